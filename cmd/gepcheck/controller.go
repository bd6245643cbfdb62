package main

import (
	"github.com/spf13/cobra"
)

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
