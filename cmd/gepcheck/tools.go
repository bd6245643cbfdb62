package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/gotool"
)

func newTools(stdout, stderr io.Writer) *cobra.Command {
	// The implementations at their pinned versions: their flags are not
	// the command's.
	var f impl.Flags
	f.AddFlags(pflag.NewFlagSet("tools", pflag.ContinueOnError))
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "Build (once) and print the pinned etcd, kube-apiserver, kube-controller-manager, kubectl, helm and the implementations' controllers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logf := func(s string) { fmt.Fprintln(stderr, "gepcheck: "+s) }
			for _, t := range append(slices.Clone(gotool.All), gotool.Inputs...) {
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
	return cmd
}
