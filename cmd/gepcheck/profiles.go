package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/render"
)

func newProfiles(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "profiles [NAME]",
		Short: "List the built-in policy profiles, or print one as YAML",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := profile.Builtins()
			if err != nil {
				return err
			}
			if len(args) == 1 {
				p, ok := b[args[0]]
				if !ok {
					return exitcode.Input{Err: fmt.Errorf("no built-in profile %q (one of %s)", args[0], strings.Join(profile.BuiltinNames(), ", "))}
				}
				return render.Data(stdout, "yaml", p)
			}
			for _, n := range profile.BuiltinNames() {
				p := b[n]
				// An alternative reading of a kind is chosen by name only
				// (docs/profiles.md): say so, so that the default is plain.
				alt := ""
				if p.Spec.Alternative {
					alt = " (alternative: by name only)"
				}
				fmt.Fprintf(stdout, "%-20s %s.%s%s  %s\n", n, p.Spec.Policy.Kind, p.Spec.Policy.Group, alt, p.Spec.Citation)
			}
			return nil
		},
	}
}
