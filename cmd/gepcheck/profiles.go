package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/simulator/profile"
)

func newProfiles(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "profiles [NAME]",
		Short: "List the built-in policy profiles, or print one as YAML",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				return profile.WriteBuiltin(stdout, args[0])
			}
			return profile.WriteBuiltins(stdout)
		},
	}
}
