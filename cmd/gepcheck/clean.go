package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/internal/signals"
	"github.com/gepcheck/gepcheck/suite/cluster"
	"github.com/gepcheck/gepcheck/suite/cluster/providers"
	"github.com/gepcheck/gepcheck/suite/input"
)

func newClean(stdout io.Writer) *cobra.Command {
	var cf providers.Flags
	var crds bool
	cmd := &cobra.Command{
		Use:   "clean [--kubeconfig FILE] [--context NAME] [--crds]",
		Short: "Delete everything gepcheck left in a cluster (objects labelled gepcheck.dev/managed-by=gepcheck)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signals.Context()
			defer stop()
			connect, _ := providers.Lookup("kubeconfig")
			c, err := connect(ctx, cf.Options(nil))
			if err != nil {
				return input.EnvironmentOr(err)
			}
			deleted, err := cluster.Clean(ctx, c, crds)
			for _, d := range deleted {
				fmt.Fprintf(stdout, "deleted %s\n", d)
			}
			fmt.Fprintf(stdout, "%d object(s) deleted from %s\n", len(deleted), c.Name)
			return err
		},
	}
	cf.AddFlags(cmd.Flags(), false)
	cmd.Flags().BoolVar(&crds, "crds", false, "also delete the CRDs gepcheck installed (and with them every object of their kinds)")
	return cmd
}
