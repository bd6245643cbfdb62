package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/impl"
)

func newTools(stdout, stderr io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "tools",
		Short: "Build (once) and print the pinned etcd, kube-apiserver, kube-controller-manager, kubectl, helm and the implementations' controllers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return impl.BuildTools(cmd.Context(), stdout, func(s string) { fmt.Fprintln(stderr, "gepcheck: "+s) })
		},
	}
}
