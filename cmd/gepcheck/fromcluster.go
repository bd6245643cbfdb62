package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite/cluster"
)

// fromCluster are the flags that read the input from a live cluster,
// read-only (docs/cluster.md, Reading a cluster): --from-cluster,
// --kubeconfig, --context, -n, -A.
type fromCluster struct {
	on            bool
	cluster       clusterFlags
	namespace     string
	allNamespaces bool
	// refs: -n is also the namespace of a KIND/NAME reference (explain
	// --target, --policy), so it is taken without --from-cluster.
	refs bool
	// state is what was read, once read: the documents and the
	// CustomResourceDefinitions of the kinds read (state.CRDs, sorted by
	// name), for CRD-based storing to take.
	state *cluster.State
	// readOpts are the options the state was read with: what it covers.
	readOpts cluster.ReadOptions
}

func (f *fromCluster) add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.on, "from-cluster", false, "read the objects from a cluster, read-only (get and list only): Gateway API objects, Services, Namespaces, the policy kinds of the profiles and the ConfigMaps they reference; files given with -f are applied over them as kubectl apply would (docs/cluster.md, Reading a cluster)")
	f.cluster.add(cmd, false)
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
func (f *fromCluster) check(cmd *cobra.Command) error {
	if f.on {
		if f.allNamespaces && f.namespace != "" {
			return inputError{errors.New("pass one of -n and -A")}
		}
		return nil
	}
	for _, name := range []string{"kubeconfig", "context", "namespace", "all-namespaces"} {
		if name == "namespace" && f.refs {
			continue
		}
		if cmd.Flags().Changed(name) {
			return inputError{fmt.Errorf("--%s reads a cluster: pass --from-cluster too", name)}
		}
	}
	return nil
}

// applyNamespace is the namespace applied files without one go to: as
// kubectl apply -f puts them, -n's, else the kubeconfig context's, else
// default, also when -A reads every namespace (kubectl apply has no -A).
func (f *fromCluster) applyNamespace() string {
	return f.ns()
}

// refNamespace is the namespace of a KIND/NAME reference: -n; with
// --from-cluster and no -n, the namespace read (ns), as kubectl reads it;
// empty otherwise (ref.Kubectl then defaults).
func (f *fromCluster) refNamespace() string {
	if f.namespace == "" && f.on && !f.allNamespaces {
		return f.ns()
	}
	return f.namespace
}

// ns is -n, else the kubeconfig context's namespace, else default.
func (f *fromCluster) ns() string {
	if f.namespace != "" {
		return f.namespace
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if f.cluster.kubeconfig != "" {
		rules.ExplicitPath = f.cluster.kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: f.cluster.context})
	if ns, _, err := cc.Namespace(); err == nil && ns != "" {
		return ns
	}
	return "default"
}

// read reads the cluster's objects for opts: the documents, as a file's
// would be loaded.
func (f *fromCluster) read(opts simulator.Options) ([]*load.Doc, error) {
	ns := ""
	if !f.allNamespaces {
		ns = f.ns()
	}
	o, err := cluster.ReadOptionsFor(opts, ns)
	if err != nil {
		return nil, inputError{err}
	}
	c, err := cluster.FromKubeconfig(f.cluster.kubeconfig, f.cluster.context)
	if err != nil {
		return nil, inputError{err}
	}
	ctx, cancel := signalContext()
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelT()
	if err := c.Reachable(ctx, 10*time.Second); err != nil {
		return nil, err
	}
	st, err := cluster.ReadState(ctx, c, o)
	if err != nil {
		return nil, interrupted(ctx, environmentOr(err))
	}
	f.state, f.readOpts = st, o
	return st.Docs, nil
}

// clusterModel is the model of the cluster's objects with the files of -f
// (if any) applied over them (simulator.Apply).
func (c *common) clusterModel(stdin io.Reader, opts simulator.Options) (*simulator.Model, error) {
	docs, err := c.clusterDocs(stdin, opts)
	if err != nil {
		return nil, err
	}
	m, err := simulator.Build(docs, opts)
	if err != nil {
		return nil, inputError{err}
	}
	return m, nil
}

// clusterDocs are the cluster's objects with the files of -f and -k (if
// any) applied over them (simulator.Apply): the input of simulate,
// explain and simulate --impl with --from-cluster.
func (c *common) clusterDocs(stdin io.Reader, opts simulator.Options) ([]*load.Doc, error) {
	docs, err := c.src.read(opts)
	if err != nil {
		return nil, err
	}
	if len(c.files)+len(c.kdirs) > 0 {
		change, err := c.readChange(stdin, opts)
		if err != nil {
			return nil, err
		}
		docs = simulator.Apply(docs, change, c.src.applyNamespace())
	}
	return docs, nil
}

// readChange reads the files (-f) and kustomizations (-k) applied over the
// cluster's objects, as simulate reads its input, warnings on standard
// error.
func (c *common) readChange(stdin io.Reader, opts simulator.Options) ([]*load.Doc, error) {
	docs, warns, err := simulator.ReadInput(c.input(stdin), opts.Limits)
	printWarnings(c.stderr(), warns)
	if err != nil {
		return nil, inputError{err}
	}
	return docs, nil
}
