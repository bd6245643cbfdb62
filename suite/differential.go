package suite

import (
	"context"
	"strings"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/driver"
)

// Differential is the property "implementation d does what the reference
// engine does" on scenarios drawn from gen with the given profile: every
// disagreement is a counterexample, shrunk by rapid to a minimal scenario.
func Differential(d driver.Driver, profile string, gen *rapid.Generator[*generators.Scenario]) Property {
	return Property{
		Name: "differential/" + d.Name(),
		Cite: "GEP-713 conformance: the implementation's effective policies and policy conditions equal the reference engine's for profile " + profile,
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			s := gen.Draw(t, "scenario")
			c.Set(s, engine.StickyOverrides)
			cs := driver.Case{Name: "case", YAML: string(s.YAML()), Profiles: []string{profile}}
			want, _ := driver.Reference{}.Observe(context.Background(), []driver.Case{cs})
			got, err := d.Observe(context.Background(), []driver.Case{cs})
			if err != nil {
				t.Fatalf("%s could not run: %v", d.Name(), err)
			}
			if diff := driver.DiffConditions(want[0], got[0], d.Conditions()); len(diff) > 0 {
				fail(t, c, "%s disagrees with the reference:\n%s", d.Name(), strings.Join(diff, "\n"))
			}
		},
	}
}
