package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/suite/driver"
)

func newEgctl(stdout io.Writer) *cobra.Command {
	var version string
	cmd := &cobra.Command{
		Use:   "egctl [--envoy-gateway-version V]",
		Short: "Build Envoy Gateway's egctl into gepcheck's cache (once) and print its path",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			bin, err := driver.Egctl(context.Background(), version)
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, bin)
			return nil
		},
	}
	cmd.Flags().StringVar(&version, "envoy-gateway-version", driver.EnvoyGatewayVersion, "Envoy Gateway version")
	return cmd
}
