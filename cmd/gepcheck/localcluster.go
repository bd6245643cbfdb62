package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/cluster/local"
	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/signals"
	"github.com/gepcheck/gepcheck/suite/incluster"
)

func newLocalCluster(stdout, stderr io.Writer) *cobra.Command {
	var dir string
	var f impl.Flags
	cmd := &cobra.Command{
		Use:   "local-cluster [--dir DIR] [--crds IMPL]",
		Short: "Start the local control plane (etcd, kube-apiserver, kube-controller-manager) and keep it until interrupted",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ic, err := f.SelectedInCluster(context.Background(), "crds")
			if err != nil {
				return err
			}
			ctx, stop := signals.Context()
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
