package simulator

import (
	"encoding/json"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// BuildPair's models are what Build gives for each state alone: on every
// step of the step scenarios (documents shared between states, stamped
// ones, replaced ones) the two outputs are byte for byte the separate
// builds' outputs.
func TestBuildPairIsBuild(t *testing.T) {
	files := []string{"../scenarios/gep-713/steps-inherited-over-time.yaml", "../scenarios/gep-713/steps-direct-conflict-over-time.yaml", "../scenarios/gateway-api/backendtlspolicy-conformance-backendtlspolicy.yaml"}
	states := func(f string) ([]State, Options) {
		docs, err := load.Read([]string{f}, nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Build(docs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		sts, err := States(docs, m.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		return sts, Options{Profiles: m.Scenario.Spec.Profiles}
	}
	out := func(m *Model) string {
		b, err := json.Marshal(m.Run(engine.StickyOverrides, nil))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	pairs := 0
	for _, f := range files {
		n, _ := states(f)
		for i := 1; i < len(n); i++ {
			sep, opts := states(f)
			var want [2]string
			for j, st := range []State{sep[i-1], sep[i]} {
				m, err := Build(st.Docs, opts)
				if err != nil {
					t.Fatal(err)
				}
				want[j] = out(m)
			}
			pair, _ := states(f)
			a, b, err := BuildPair(pair[i-1].Docs, pair[i].Docs, opts)
			if err != nil {
				t.Fatalf("%s step %d: %#v", f, i, err)
			}
			if got := out(a); got != want[0] {
				t.Errorf("%s step %d, before: BuildPair gives\n%s\nBuild\n%s", f, i, got, want[0])
			}
			if got := out(b); got != want[1] {
				t.Errorf("%s step %d, after: BuildPair gives\n%s\nBuild\n%s", f, i, got, want[1])
			}
			pairs++
		}
	}
	if pairs < 8 {
		t.Errorf("%d pairs, want at least 8", pairs)
	}
}
