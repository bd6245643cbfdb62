package input

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/cluster/providers"
	"github.com/gepcheck/gepcheck/internal/exitcode"
)

// ClusterFlags are the flags that read the input from a live cluster,
// read-only (docs/cluster.md, Reading a cluster): --from-cluster,
// --kubeconfig, --context, -n, -A.
type ClusterFlags struct {
	on            bool
	cluster       providers.Flags
	namespace     string
	allNamespaces bool
	// Refs: -n is also the namespace of a KIND/NAME reference (explain
	// --target, --policy), so it is taken without --from-cluster.
	Refs bool
}

func (f *ClusterFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.on, "from-cluster", false, "read the objects from a cluster, read-only (get and list only): Gateway API objects, Services, Namespaces, the policy kinds of the profiles and the ConfigMaps they reference; files given with -f are applied over them as kubectl apply would (docs/cluster.md, Reading a cluster)")
	f.cluster.AddFlags(cmd.Flags(), false)
	cmd.Flags().StringVarP(&f.namespace, "namespace", "n", "", "with --from-cluster: the namespace to read (default: the kubeconfig context's, else default); applied files without a namespace go there; on explain, also the namespace of a KIND/NAME reference")
	cmd.Flags().BoolVarP(&f.allNamespaces, "all-namespaces", "A", false, "with --from-cluster: read every namespace")
	pre := cmd.PreRunE
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		if err := f.check(cmd); err != nil {
			return err
		}
		if pre != nil {
			return pre(cmd, args)
		}
		return nil
	}
}

// check refuses the cluster flags without --from-cluster.
func (f *ClusterFlags) check(cmd *cobra.Command) error {
	if f.on {
		if f.allNamespaces && f.namespace != "" {
			return exitcode.Input{Err: errors.New("pass one of -n and -A")}
		}
		return nil
	}
	for _, name := range []string{"kubeconfig", "context", "namespace", "all-namespaces"} {
		if name == "namespace" && f.Refs {
			continue
		}
		if cmd.Flags().Changed(name) {
			return exitcode.Input{Err: fmt.Errorf("--%s reads a cluster: pass --from-cluster too", name)}
		}
	}
	return nil
}

// live is the cluster --from-cluster reads, nil without it.
func (f *ClusterFlags) live() *Cluster {
	if !f.on {
		return nil
	}
	return &Cluster{Kubeconfig: f.cluster.Kubeconfig, Context: f.cluster.Context, Namespace: f.namespace, AllNamespaces: f.allNamespaces}
}

// RefNamespace is the namespace of a KIND/NAME reference: -n; with
// --from-cluster and no -n, the namespace read, as kubectl reads it
// (Cluster.RefNamespace); empty otherwise (ref.Kubectl then defaults).
func (f *ClusterFlags) RefNamespace() string {
	if f.on {
		return f.live().RefNamespace()
	}
	return f.namespace
}
