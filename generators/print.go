package generators

import (
	"bytes"
	"fmt"
	"strings"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/simulator/fault"
)

// PrintOptions say which scenario Print draws: what gepcheck gen takes.
type PrintOptions struct {
	Seed int
	// Profile; drawn when empty (not with Generic).
	Profile string
	// Generic draws a DAG of abstract kinds with a policy kind P.
	Generic bool
	// MaxObjects and MaxPolicies bound the draw (0: the defaults).
	MaxObjects, MaxPolicies int
	// Steps, when set, draws up to this many changes over time after the
	// scenario (Cases; not with Generic).
	Steps int
	// Faults, when set, draws the perturbations of these kinds the case
	// is run under in a cluster into its spec.faults (docs/faults.md).
	Faults []fault.Kind
}

// Draw returns the scenario Print prints for o, as a value (without steps;
// not Generic): what shrinking edits.
func Draw(o PrintOptions) (*Scenario, error) {
	if o.Generic || o.Steps > 0 {
		return nil, fmt.Errorf("only a scenario without steps, not generic, is drawn as a value")
	}
	if g, ok := For(o.Profile, "default", o.MaxPolicies); ok {
		return g.Example(o.Seed), nil
	}
	cfg := Config{Profile: o.Profile, MaxObjects: o.MaxObjects, MaxPolicies: o.MaxPolicies}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("%w (--profile: %s)", err, strings.Join(ProfileNames, ", "))
	}
	return Scenarios(cfg).Example(o.Seed), nil
}

// MaxMaxObjects and MaxMaxPolicies bound what a drawn scenario may hold
// (gen --max-objects, --max-policies): a hundred times the defaults,
// drawn in well under a second; 10^8 took half a minute and 3.6 GB.
const (
	MaxMaxObjects  = 100 * DefaultMaxObjects
	MaxMaxPolicies = 100 * DefaultMaxPolicies
)

// check checks o's limits (docs/limits.md) and flags that do not go
// together.
func (o PrintOptions) check() error {
	if o.MaxObjects < 0 || o.MaxObjects > MaxMaxObjects {
		return fmt.Errorf("--max-objects %d: from 1 to %d, or 0 for the default (docs/limits.md)", o.MaxObjects, MaxMaxObjects)
	}
	if o.MaxPolicies < 0 || o.MaxPolicies > MaxMaxPolicies {
		return fmt.Errorf("--max-policies %d: from 1 to %d, or 0 for the default (docs/limits.md)", o.MaxPolicies, MaxMaxPolicies)
	}
	if o.Steps < 0 || o.Steps > MaxDrawnSteps {
		return fmt.Errorf("--steps %d: from 0 to %d", o.Steps, MaxDrawnSteps)
	}
	if o.Steps > 0 && o.Generic {
		return fmt.Errorf("--steps and --generic do not go together: generic scenarios have no cluster objects to change")
	}
	if len(o.Faults) > 0 && o.Generic {
		return fmt.Errorf("--faults and --generic do not go together: generic scenarios do not run in a cluster")
	}
	return nil
}

// command is the gepcheck gen command (without --steps and --faults) that draws s
// again with cfg.
func (o PrintOptions) command(s *Scenario, cfg Config) string {
	line := fmt.Sprintf("# gepcheck gen --seed %d", o.Seed)
	if o.Generic {
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
	return line
}

// printed is the file of a drawn case: its scenario's YAML for one
// without documents of its own (generic: no steps are drawn), else its
// documents and steps (YAML) without the first document separator.
func (c Case) printed() []byte {
	if !c.Changes() || c.Scenario.Generic != nil {
		return c.Scenario.YAML()
	}
	return bytes.TrimPrefix(c.YAML(), []byte("---\n"))
}

// Print draws the scenario o names and prints it as multi-document YAML,
// its first line the gepcheck gen command that prints the same bytes.
func Print(o PrintOptions) ([]byte, error) {
	var out bytes.Buffer
	if err := o.check(); err != nil {
		return nil, err
	}
	changing := "" // --steps and --faults, as given
	if o.Steps > 0 {
		changing = fmt.Sprintf(" --steps %d", o.Steps)
	}
	changes := o.Steps > 0 || len(o.Faults) > 0
	if len(o.Faults) > 0 {
		changing += " --faults " + fault.Flag(o.Faults)
	}
	draw := func(g *rapid.Generator[*Scenario]) []byte {
		if len(o.Faults) > 0 {
			return FaultCases(g, o.Steps, o.Faults).Example(o.Seed).printed()
		}
		if o.Steps > 0 {
			return Cases(g, o.Steps).Example(o.Seed).printed()
		}
		return g.Example(o.Seed).YAML()
	}
	if g, ok := For(o.Profile, "default", o.MaxPolicies); ok && !o.Generic {
		fmt.Fprintf(&out, "# gepcheck gen --seed %d --profile %s%s\n", o.Seed, o.Profile, changing)
		out.Write(draw(g))
		return out.Bytes(), nil
	}
	cfg := Config{Profile: o.Profile, MaxObjects: o.MaxObjects, MaxPolicies: o.MaxPolicies}
	if o.Generic && o.Profile != "" {
		return nil, fmt.Errorf("--profile and --generic do not go together: generic scenarios bring their own profile")
	}
	var s *Scenario
	if o.Generic {
		if err := cfg.ValidateGeneric(); err != nil {
			return nil, err
		}
		s = GenericScenarios(cfg).Example(o.Seed)
	} else {
		if err := cfg.Validate(); err != nil {
			return nil, fmt.Errorf("%w (--profile: %s)", err, strings.Join(ProfileNames, ", "))
		}
		s = Scenarios(cfg).Example(o.Seed)
		if changes {
			// The profile drawn is fixed for the draw with steps, which
			// then draws the same scenario.
			cfg.Profile = s.ProfileName()
		}
	}
	fmt.Fprintln(&out, o.command(s, cfg)+changing)
	if changes {
		out.Write(draw(Scenarios(cfg)))
	} else {
		out.Write(s.YAML())
	}
	return out.Bytes(), nil
}
