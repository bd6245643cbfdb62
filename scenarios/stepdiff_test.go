package scenarios

import (
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// stepFiles are the scenarios with steps whose profiles are built in (the
// Envoy Gateway one is its plug-in's, checked in a cluster by
// cluster/local/localtest's TestLocalDiff).
var stepFiles = []string{
	"gep-713/steps-inherited-over-time.yaml",
	"gep-713/steps-direct-conflict-over-time.yaml",
	"gateway-api/backendtlspolicy-conformance-backendtlspolicy.yaml",
	"gateway-api/backendtlspolicy-conformance-observed-generation-bump.yaml",
}

// stepDiffs runs CheckStepDiff on every step of the step scenarios: the
// diff of the engine's outputs of each state and the next (run gives
// them), judged by the two states' expect blocks. It returns the
// problems and how many steps were judged.
func stepDiffs(t *testing.T, run func(m *simulator.Model, sem engine.Semantics) *simulator.Output) ([]string, int) {
	t.Helper()
	var problems []string
	steps := 0
	for _, f := range stepFiles {
		docs, err := load.Read([]string{f}, nil)
		if err != nil {
			t.Fatal(err)
		}
		states, models, err := simulator.StateModels(docs, simulator.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(states) < 2 {
			t.Fatalf("%s has no steps", f)
		}
		vocab, err := models[0].Scenario.Vocabulary()
		if err != nil {
			t.Fatal(err)
		}
		sems, err := models[0].Scenario.SemanticsList()
		if err != nil {
			t.Fatal(err)
		}
		for _, sem := range sems {
			outs := make([]*simulator.Output, len(models))
			for i, m := range models {
				m.Vocabulary = vocab
				outs[i] = run(m, sem)
			}
			for i := 1; i < len(states); i++ {
				steps++
				d := simulator.DiffOutputs(outs[i-1], outs[i])
				for _, p := range CheckStepDiff(states[i-1].Expect, states[i].Expect, d) {
					problems = append(problems, f+" ["+string(sem)+"] "+states[i].Label(len(states)-1)+": "+p)
				}
			}
		}
	}
	return problems, steps
}

// The diff of each step of the step scenarios is the one their expect
// blocks state (scenarios/README.md, Steps; docs/diff.md).
func TestStepDiff(t *testing.T) {
	problems, steps := stepDiffs(t, func(m *simulator.Model, sem engine.Semantics) *simulator.Output { return m.Run(sem, nil) })
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("%d steps judged", steps)
	if steps < 10 {
		t.Errorf("%d steps judged, want at least 10", steps)
	}
}

// CheckStepDiff can fail: with a broken engine (GEP-713, Conflict
// resolution rule 1 reversed; overrides merged as defaults) the diffs are
// no longer the ones the expect blocks state, and with a broken diff (the
// states swapped, a change left out) neither.
func TestStepDiffCatches(t *testing.T) {
	for _, mutant := range []engine.Mutant{engine.MutantLowerEstablished, engine.MutantOverridesAsDefaults} {
		problems, _ := stepDiffs(t, func(m *simulator.Model, sem engine.Semantics) *simulator.Output { return m.RunMutant(sem, mutant) })
		if len(problems) == 0 {
			t.Errorf("mutant %s: no step diff judged wrong", mutant)
		}
	}
	docs, err := load.Read([]string{stepFiles[0]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	states, models, err := simulator.StateModels(docs, simulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, a := models[0].Run(engine.StickyOverrides, nil), models[1].Run(engine.StickyOverrides, nil)
	swapped := simulator.DiffOutputs(a, b)
	if p := CheckStepDiff(states[0].Expect, states[1].Expect, swapped); len(p) == 0 {
		t.Error("the states swapped: no problem found")
	}
	d := simulator.DiffOutputs(b, a)
	if len(d.Fields) == 0 || len(d.Conditions) == 0 {
		t.Fatalf("step 1 of %s changes no field or no condition", stepFiles[0])
	}
	d.Fields = d.Fields[1:]
	if p := CheckStepDiff(states[0].Expect, states[1].Expect, d); len(p) == 0 || !strings.Contains(p[0], "does not report") {
		t.Errorf("a field change left out: %v", p)
	}
	d = simulator.DiffOutputs(b, a)
	d.Conditions = d.Conditions[1:]
	if p := CheckStepDiff(states[0].Expect, states[1].Expect, d); len(p) == 0 {
		t.Error("a condition flip left out: no problem found")
	}
}
