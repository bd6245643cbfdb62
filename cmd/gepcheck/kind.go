package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/cluster/kind"
)

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
