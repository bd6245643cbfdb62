package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/internal/exitcode"
)

// newGen is `gepcheck gen`: print a random scenario, reproducibly from a
// seed.
func newGen(stdout io.Writer) *cobra.Command {
	var o generators.PrintOptions
	var workload int
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
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("workload-routes") && (workload < 1 || workload > generators.MaxWorkloadRoutes) {
				return exitcode.Input{Err: fmt.Errorf("--workload-routes %d: from 1 to %d (docs/limits.md)", workload, generators.MaxWorkloadRoutes)}
			}
			if workload > 0 {
				// docs/performance.md: the whole-pipeline workload.
				w := bufio.NewWriter(stdout)
				if err := generators.Workload(w, workload, uint64(o.Seed)); err != nil {
					return err
				}
				return w.Flush()
			}
			data, err := generators.Print(o)
			if err != nil {
				return exitcode.Input{Err: err}
			}
			_, err = stdout.Write(data)
			return err
		},
	}
	cmd.Flags().IntVar(&o.Seed, "seed", 0, "seed of the draw")
	cmd.Flags().IntVar(&workload, "workload-routes", 0, "print the benchmark workload of docs/performance.md with this many HTTPRoutes instead")
	cmd.Flags().StringVar(&o.Profile, "profile", "", "policy profile: "+strings.Join(append(slices.Clone(generators.ProfileNames), generators.DrawnProfiles()...), ", ")+" (default: drawn)")
	cmd.Flags().BoolVar(&o.Generic, "generic", false, "draw a generic DAG of abstract kinds instead of Gateway API objects")
	cmd.Flags().IntVar(&o.MaxObjects, "max-objects", 0, fmt.Sprintf("most objects (GatewayClasses, Gateways, routes, Services, grants; generic nodes) (default %d)", generators.DefaultMaxObjects))
	cmd.Flags().IntVar(&o.Steps, "steps", 0, fmt.Sprintf("also draw up to N changes over time (spec.steps: policies deleted, re-created, given another spec or targets; targets deleted and re-created), at most %d", generators.MaxDrawnSteps))
	cmd.Flags().IntVar(&o.MaxPolicies, "max-policies", 0, fmt.Sprintf("most policies (default %d)", generators.DefaultMaxPolicies))
	return cmd
}
