package differential

import (
	"context"
	"fmt"
	"slices"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// A batched differential run: many independent scenarios, one namespace
// each, observed by the implementation in few calls (one translator process per
// batch costs about a second before it does any work), compared with the
// reference; each disagreement is shrunk, also in batches, to a minimal
// scenario.

// Disagreement is one scenario on which an implementation and the
// reference differ.
type Disagreement struct {
	Seed     int
	Scenario *generators.Scenario
	Diff     []compare.Difference
	Want     observe.Observation
	Got      observe.Observation
}

// BatchRun draws n scenarios (gen(i) for i in [0, n)) and compares
// implementation d with the reference, batch scenarios per call, on what
// caps says d reports. observed, when set, gets every scenario's
// comparison, agreeing or not (coverage, conditions counted).
func BatchRun(ctx context.Context, d observe.Observer, profile string, gen func(i int) *generators.Scenario, n, batch int, caps observe.Capabilities, progress func(done, disagree int), observed func(Disagreement)) ([]Disagreement, error) {
	var out []Disagreement
	for start := 0; start < n; start += batch {
		end := min(n, start+batch)
		var scenarios []*generators.Scenario
		for i := start; i < end; i++ {
			scenarios = append(scenarios, gen(i))
		}
		res, err := run(ctx, d, profile, scenarios, caps)
		if err != nil {
			return out, err
		}
		for k, r := range res {
			if observed != nil {
				observed(r) // every scenario, agreeing or not
			}
			if len(r.Diff) > 0 {
				r.Seed = start + k
				out = append(out, r)
			}
		}
		if progress != nil {
			progress(end, len(out))
		}
	}
	return out, nil
}

// run asks the reference and the implementation, and compares.
func run(ctx context.Context, d observe.Observer, profile string, scenarios []*generators.Scenario, caps observe.Capabilities) ([]Disagreement, error) {
	cases := make([]observe.Case, len(scenarios))
	for i, s := range scenarios {
		cases[i] = observe.Case{Name: s.Namespaces[0], YAML: string(s.YAML()), Profiles: []string{profile}}
	}
	want := observe.Reference(cases, caps)
	got, err := d.Observe(ctx, cases)
	if err != nil {
		return nil, err
	}
	out := make([]Disagreement, len(cases))
	for i := range cases {
		out[i] = Disagreement{Scenario: scenarios[i], Want: want[i], Got: got[i], Diff: compare.Diff(want[i], got[i], caps)}
	}
	return out, nil
}

// Shrink makes a disagreeing scenario smaller while it still shows the
// kind of difference target (one of Kinds): each round tries, in one batch,
// every scenario with one policy removed, one spec field removed, or one
// object, section or reference removed (generators.Smaller), and keeps, of
// those still showing target, the one with the fewest kinds of difference,
// so that other behaviours fall away, then the smallest.
func Shrink(ctx context.Context, d observe.Observer, profile string, dis Disagreement, caps observe.Capabilities, target string) Disagreement {
	cur := dis
	for round := 0; round < 40; round++ {
		cands := generators.Smaller(cur.Scenario)
		for i := range cands {
			cands[i] = cands[i].InNamespace(fmt.Sprintf("shrink-%d", i))
		}
		res, err := run(ctx, d, profile, cands, caps)
		if err != nil {
			return cur
		}
		best, bestKinds := -1, 0
		for i, r := range res {
			if r.Got.Error != "" {
				continue
			}
			// Fewest kinds of difference, then the smallest scenario.
			if ks := compare.Kinds(r.Diff); slices.Contains(ks, target) &&
				(best < 0 || len(ks) < bestKinds || (len(ks) == bestKinds && generators.Size(r.Scenario) < generators.Size(res[best].Scenario))) {
				best, bestKinds = i, len(ks)
			}
		}
		if best < 0 {
			break
		}
		cur = res[best]
		cur.Seed = dis.Seed
		cur.Scenario = cur.Scenario.InNamespace(dis.Scenario.Namespaces[0])
	}
	// Observe the minimal scenario in its original namespace.
	if res, err := run(ctx, d, profile, []*generators.Scenario{cur.Scenario}, caps); err == nil && len(res[0].Diff) > 0 {
		res[0].Seed = cur.Seed
		return res[0]
	}
	return cur
}
