package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/cluster/providers"
	"github.com/gepcheck/gepcheck/internal/signals"
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
			return cf.Clean(ctx, crds, stdout)
		},
	}
	cf.AddFlags(cmd.Flags(), false)
	cmd.Flags().BoolVar(&crds, "crds", false, "also delete the CRDs gepcheck installed (and with them every object of their kinds)")
	return cmd
}
