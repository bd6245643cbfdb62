package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/suite/cluster"
	"github.com/gepcheck/gepcheck/suite/cluster/kind"
	"github.com/gepcheck/gepcheck/suite/cluster/local"
	"github.com/gepcheck/gepcheck/suite/cluster/providers"
	"github.com/gepcheck/gepcheck/suite/cluster/tools"
	"github.com/gepcheck/gepcheck/suite/impl"
	"github.com/gepcheck/gepcheck/suite/incluster"
)

// clusterFlags select a cluster.
type clusterFlags struct {
	cluster, kubeconfig, context, kindName string
}

func (f *clusterFlags) add(cmd *cobra.Command, withProvider bool) {
	if withProvider {
		cmd.Flags().StringVar(&f.cluster, "cluster", "", "run in a cluster: local (a control plane gepcheck builds and starts), kind (sigs.k8s.io/kind, needs Docker), or kubeconfig (any existing cluster)")
		cmd.Flags().StringVar(&f.kindName, "kind-cluster", "gepcheck", "name of the kind cluster, for --cluster kind")
	}
	cmd.Flags().StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: KUBECONFIG, ~/.kube/config)")
	cmd.Flags().StringVar(&f.context, "context", "", "kubeconfig context (default: the current one)")
}

func (f *clusterFlags) options(logf func(string)) providers.Options {
	return providers.Options{Kubeconfig: f.kubeconfig, Context: f.context, KindName: f.kindName, Log: logf}
}

// signalContext is cancelled on SIGINT and SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func newClean(stdout io.Writer) *cobra.Command {
	var cf clusterFlags
	var crds bool
	cmd := &cobra.Command{
		Use:   "clean [--kubeconfig FILE] [--context NAME] [--crds]",
		Short: "Delete everything gepcheck left in a cluster (objects labelled gepcheck.dev/managed-by=gepcheck)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signalContext()
			defer stop()
			connect, _ := providers.Lookup("kubeconfig")
			c, err := connect(ctx, cf.options(nil))
			if err != nil {
				return err
			}
			deleted, err := cluster.Clean(ctx, c, crds)
			for _, d := range deleted {
				fmt.Fprintf(stdout, "deleted %s\n", d)
			}
			fmt.Fprintf(stdout, "%d object(s) deleted from %s\n", len(deleted), c.Name)
			return err
		},
	}
	cf.add(cmd, false)
	cmd.Flags().BoolVar(&crds, "crds", false, "also delete the CRDs gepcheck installed (and with them every object of their kinds)")
	return cmd
}

// newController is gepcheck controller: the implementations' controllers
// (impl.Commander), as subcommands.
func newController(subs []*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "controller",
		Short: "Run an implementation's controller against a cluster",
	}
	cmd.AddCommand(subs...)
	return cmd
}

func newTools(stdout, stderr io.Writer) *cobra.Command {
	var f impl.Flags
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "Build (once) and print the pinned etcd, kube-apiserver, kube-controller-manager, kubectl and the implementations' controllers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logf := func(s string) { fmt.Fprintln(stderr, "gepcheck: "+s) }
			for _, t := range tools.All {
				p, err := t.Build(cmd.Context(), logf)
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "%s %s %s\n", t.Name, t.Version, p)
			}
			for _, cfg := range f.Configs() {
				tooled, ok := cfg.(impl.Tooled)
				if !ok {
					continue
				}
				for _, t := range tooled.Tools() {
					p, err := t.Build(cmd.Context(), logf)
					if err != nil {
						return err
					}
					fmt.Fprintf(stdout, "%s %s %s\n", t.Name, t.Version, p)
				}
			}
			return nil
		},
	}
	f.AddFlags(cmd.Flags())
	_ = cmd.Flags().MarkHidden("impl")
	return cmd
}

func newLocalCluster(stdout, stderr io.Writer) *cobra.Command {
	var dir string
	var f impl.Flags
	cmd := &cobra.Command{
		Use:   "local-cluster [--dir DIR] [--crds IMPL]",
		Short: "Start the local control plane (etcd, kube-apiserver, kube-controller-manager) and keep it until interrupted",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var ic incluster.Implementation
			if f.Impl != "" {
				_, cfg, err := f.Selected()
				if err != nil {
					return inputError{fmt.Errorf("--crds: %w", err)}
				}
				if ic, err = cfg.InCluster(context.Background()); err != nil {
					return inputError{fmt.Errorf("--crds %s: %w", f.Impl, err)}
				}
			}
			ctx, stop := signalContext()
			defer stop()
			c, err := local.Start(ctx, local.Options{Dir: dir, Log: func(s string) { fmt.Fprintln(stderr, "gepcheck: "+s) }})
			if err != nil {
				return err
			}
			defer c.Stop()
			if ic != nil {
				if err := incluster.InstallCRDs(ctx, c, ic); err != nil {
					return err
				}
			}
			fmt.Fprintf(stdout, "export KUBECONFIG=%s\n", c.Kubeconfig)
			<-ctx.Done()
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory for data and logs (default: a new temporary directory, removed on exit)")
	// --crds names an implementation; its own flags (a version) apply.
	f.AddFlagsAs(cmd.Flags(), "crds", "install the CRDs an implementation needs")
	return cmd
}

func newKind(stdout, stderr io.Writer) *cobra.Command {
	var name string
	cmd := &cobra.Command{Use: "kind", Short: "Create or delete gepcheck's kind cluster (needs Docker or Podman)"}
	up := &cobra.Command{
		Use:   "up [--name gepcheck]",
		Short: "Create (or reuse) the kind cluster from kind-config/cluster.yaml and print its kubeconfig",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := kind.Connect(cmd.Context(), name, func(s string) { fmt.Fprintln(stderr, "gepcheck: "+s) })
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "export KUBECONFIG=%s\n", c.Kubeconfig)
			return nil
		},
	}
	down := &cobra.Command{
		Use:   "down [--name gepcheck]",
		Short: "Delete the kind cluster",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return kind.Delete(cmd.Context(), name)
		},
	}
	for _, c := range []*cobra.Command{up, down} {
		c.Flags().StringVar(&name, "name", "gepcheck", "kind cluster name")
		cmd.AddCommand(c)
	}
	return cmd
}
