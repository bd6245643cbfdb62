// Package differential compares an implementation with the reference
// engine on random scenarios: as a rapid property (one case at a time,
// shrunk by rapid), or in batches for implementations that are slow to
// start (a translator process can cost a second before it does any work),
// shrinking each disagreement in batches too and keeping one finding per
// kind of difference (compare.Kinds).
package differential

import (
	"context"
	"fmt"
	"strings"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Property is "implementation d does what the reference engine does" on
// scenarios drawn from gen with the given profile: every disagreement is a
// counterexample, shrunk by rapid to a minimal scenario. d runs in ctx:
// when it ends, so do the implementation's processes.
func Property(ctx context.Context, d observe.Observer, profile string, gen *rapid.Generator[*generators.Scenario]) suite.Property {
	return suite.Property{
		Name: "differential/" + d.Name(),
		Cite: "GEP-713 conformance: the implementation's effective policies and policy conditions equal the reference engine's for profile " + profile,
		Check: func(t *rapid.T, _ engine.Mutant, c *suite.Capture) {
			s := gen.Draw(t, "scenario")
			claim := d.Capabilities().Claim()
			c.Set(s, claim)
			cs := []observe.Case{{Name: "case", YAML: string(s.YAML()), Profiles: []string{profile}}}
			want := observe.Reference(cs, d.Capabilities())
			got, err := d.Observe(ctx, cs)
			if err != nil {
				t.Fatalf("%s could not run: %v", d.Name(), err)
			}
			if diff := compare.Diff(want[0], got[0], d.Capabilities()); len(diff) > 0 {
				suite.Fail(t, c, "%s disagrees with the reference:\n%s", d.Name(), strings.Join(compare.Strings(diff), "\n"))
			}
		},
	}
}

// Cases asks the reference, under the semantics d claims, and
// implementation d about each case, and compares on what d reports: one
// list of differences per case. A case whose expectations hold only under
// other semantics is skipped, not run.
func Cases(ctx context.Context, d observe.Observer, cases []observe.Case) ([]CaseResult, error) {
	caps := d.Capabilities()
	claim := caps.Claim()
	out := make([]CaseResult, len(cases))
	var run []observe.Case
	var want []observe.Observation
	var at []int
	for i, c := range cases {
		out[i].Name, out[i].Case = c.Name, c
		if why := observe.Unclaimed(c.Semantics, claim, d.Name()); why != "" {
			out[i].Skipped = why
			continue
		}
		// One build of the case, for the features it needs and the
		// reference's expectation (a case that does not load needs none:
		// the comparison reports it).
		m, err := observe.ReferenceModel(c, caps)
		if err == nil && caps.Unsupported(m) != "" {
			out[i].Skipped = fmt.Sprintf("uses %s, which %s does not declare", caps.Unsupported(m), d.Name())
			continue
		}
		run, at = append(run, c), append(at, i)
		want = append(want, observe.ReferenceOf(c.Name, m, err, caps))
	}
	if len(run) == 0 {
		return out, nil
	}
	got, err := d.Observe(ctx, run)
	if err != nil {
		return nil, err
	}
	for k, i := range at {
		out[i].Diff = compare.Diff(want[k], got[k], caps)
		out[i].Want, out[i].Got = want[k], got[k]
	}
	return out, nil
}

// CaseResult is one case compared.
type CaseResult struct {
	Name string
	// Case is what was run; Want and Got the reference's and the
	// implementation's observations (empty when skipped).
	Case      observe.Case
	Want, Got observe.Observation
	Diff      []compare.Difference
	// Skipped says why the case was not run, if it was not.
	Skipped string
}
