package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/suite/driver"
)

func newEgctl(stdout io.Writer) *cobra.Command {
	var version, build string
	cmd := &cobra.Command{
		Use:   "egctl [--envoy-gateway-version V] [--egctl-build fast|stock]",
		Short: "Build Envoy Gateway's egctl into gepcheck's cache (once) and print its path",
		Long: `egctl builds Envoy Gateway's egctl into gepcheck's cache the first time and
prints its path. Two builds (docs/envoy-gateway.md):

  stock  go install github.com/envoyproxy/gateway/cmd/egctl@VERSION, unmodified
  fast   the same module versions, with each CRD's validation (its compiled
         CEL rules) and defaulting schema built once per run instead of once
         per document; translation untouched; make ci checks that it prints
         the same bytes as stock`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if build != driver.EgctlFast && build != driver.EgctlStock {
				return inputError{fmt.Errorf("--egctl-build %q: one of fast, stock", build)}
			}
			bin, err := driver.Egctl(context.Background(), version, build)
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, bin)
			return nil
		},
	}
	cmd.Flags().StringVar(&version, "envoy-gateway-version", driver.EnvoyGatewayVersion, "Envoy Gateway version")
	cmd.Flags().StringVar(&build, "egctl-build", driver.EgctlFast, "which build of egctl: fast or stock")
	return cmd
}
