package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/generators"
)

// newGen is `gepcheck gen`: print a random scenario, reproducibly from a
// seed.
func newGen(stdout io.Writer) *cobra.Command {
	var f generators.Flags
	cmd := &cobra.Command{
		Use:   "gen --seed N [--profile P] [--generic] [--max-objects N] [--max-policies N]",
		Short: "Print a random scenario drawn by gepcheck's generators",
		Long: `gen prints a random scenario as multi-document YAML that simulate reads as it
is (gepcheck gen --seed 7 | gepcheck simulate -f -). The same flags always
print the same bytes; the first line is the command that reproduces them.

Without --profile, the profile is drawn too; the first line names the profile
drawn, and passing it as --profile prints the same scenario. --generic draws a
DAG of abstract kinds (A > B > C > D) with a policy kind P instead of Gateway
API objects.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.Print(stdout) },
	}
	f.AddFlags(cmd.Flags())
	return cmd
}
