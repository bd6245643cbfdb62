package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/generators"
)

// newGen is `gepcheck gen`: print a random scenario, reproducibly from a
// seed.
func newGen(stdout io.Writer) *cobra.Command {
	var (
		seed        int
		profileName string
		generic     bool
		cfg         generators.Config
	)
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
			cfg.Profile = profileName
			if generic && profileName != "" {
				return inputError{fmt.Errorf("--profile and --generic do not go together: generic scenarios bring their own profile")}
			}
			var s *generators.Scenario
			maxP := cfg.MaxPolicies
			special := map[string]func() *generators.Scenario{
				"kuadrant-ratelimitpolicy": func() *generators.Scenario {
					return generators.KuadrantScenarios(generators.InheritedConfig{MaxPolicies: maxP}).Example(seed)
				},
				"field-level": func() *generators.Scenario {
					return generators.FieldLevelScenarios(generators.InheritedConfig{MaxPolicies: maxP}).Example(seed)
				},
				"envoy-gateway-backendtrafficpolicy": func() *generators.Scenario {
					return generators.EnvoyGatewayScenarios("default", maxP).Example(seed)
				},
				"envoy-gateway-clienttrafficpolicy": func() *generators.Scenario {
					return generators.EnvoyGatewayClientScenarios("default", maxP).Example(seed)
				},
				"envoy-gateway-securitypolicy": func() *generators.Scenario {
					return generators.EnvoyGatewaySecurityScenarios("default", maxP).Example(seed)
				},
			}
			if draw, ok := special[profileName]; ok && !generic {
				s = draw()
				fmt.Fprintf(stdout, "# gepcheck gen --seed %d --profile %s\n", seed, profileName)
				_, err := stdout.Write(s.YAML())
				return err
			}
			if generic {
				if err := cfg.ValidateGeneric(); err != nil {
					return inputError{err}
				}
				s = generators.GenericScenarios(cfg).Example(seed)
			} else {
				if err := cfg.Validate(); err != nil {
					return inputError{fmt.Errorf("%w (--profile: %s)", err, strings.Join(generators.ProfileNames, ", "))}
				}
				s = generators.Scenarios(cfg).Example(seed)
			}
			line := fmt.Sprintf("# gepcheck gen --seed %d", seed)
			if generic {
				line += " --generic"
			} else {
				line += " --profile " + s.ProfileName()
			}
			if cfg.MaxObjects != 0 {
				line += fmt.Sprintf(" --max-objects %d", cfg.MaxObjects)
			}
			if cfg.MaxPolicies != 0 {
				line += fmt.Sprintf(" --max-policies %d", cfg.MaxPolicies)
			}
			if _, err := fmt.Fprintln(stdout, line); err != nil {
				return err
			}
			_, err := stdout.Write(s.YAML())
			return err
		},
	}
	cmd.Flags().IntVar(&seed, "seed", 0, "seed of the draw")
	cmd.Flags().StringVar(&profileName, "profile", "", "policy profile: "+strings.Join(generators.ProfileNames, ", ")+", kuadrant-ratelimitpolicy, field-level, envoy-gateway-backendtrafficpolicy, envoy-gateway-clienttrafficpolicy, envoy-gateway-securitypolicy (default: drawn)")
	cmd.Flags().BoolVar(&generic, "generic", false, "draw a generic DAG of abstract kinds instead of Gateway API objects")
	cmd.Flags().IntVar(&cfg.MaxObjects, "max-objects", 0, fmt.Sprintf("most objects (GatewayClasses, Gateways, routes, Services, grants; generic nodes) (default %d)", generators.DefaultMaxObjects))
	cmd.Flags().IntVar(&cfg.MaxPolicies, "max-policies", 0, fmt.Sprintf("most policies (default %d)", generators.DefaultMaxPolicies))
	return cmd
}
