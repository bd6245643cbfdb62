package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/findings"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// disagreement is a small differential.Disagreement: one policy condition
// that differs on a generated scenario.
func disagreement() differential.Disagreement {
	s := generators.Scenarios(generators.Config{MaxObjects: 5, MaxPolicies: 2}).Example(0)
	return differential.Disagreement{
		Seed: 3,
		Case: generators.Case{Scenario: s},
		Diff: []compare.Difference{{Kind: compare.PolicyCondition, Ref: "ColorPolicy/ns/p", Condition: "Accepted", Want: "True/Accepted", Got: "False/Conflicted"}},
		Want: observe.Observation{Name: "case-3"},
		Got:  observe.Observation{Name: "case-3"},
	}
}

// A new finding is written untriaged, and reads back as a finding of its
// implementation and kind of difference.
func TestWriteFindingUntriaged(t *testing.T) {
	file, err := WriteFinding(t.TempDir(), "my-impl", "gepcheck fuzz --impl my-impl", "conflicted", "the docs", disagreement())
	if err != nil {
		t.Fatal(err)
	}
	f, err := findings.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	if f.Triage.Verdict != suite.Untriaged || f.Implementation != "my-impl" || f.Kind != "conflicted" || len(f.Differences) != 1 {
		t.Errorf("read back %+v; want my-impl, conflicted, one difference, untriaged", f)
	}
}

// A case with steps is written as its scenario file, steps kept, after
// comments naming the step that fails and the differences, in a file of
// its own (IMPL-KIND-steps.yaml) that reads back as the same case.
func TestWriteFindingWithSteps(t *testing.T) {
	g := generators.Scenarios(generators.Config{Profile: "color-inherited", MaxObjects: 5, MaxPolicies: 2})
	c := generators.Cases(g, 3).Example(1)
	if !c.Changes() || len(c.Steps) == 0 {
		t.Fatalf("drew a case without steps: %+v", c)
	}
	d := disagreement()
	d.Case, d.State = c, 1
	file, err := WriteFinding(t.TempDir(), "my-impl", "gepcheck fuzz --impl my-impl --steps 3", "conflicted-after-step", "the docs", d)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(file) != "my-impl-conflicted-after-step-steps.yaml" {
		t.Errorf("written to %s", file)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	head := "# Finding: my-impl disagrees with gepcheck's reference at step 1 (" + c.Steps[0].(map[string]any)["name"].(string) + ").\n# Replay: gepcheck fuzz --impl my-impl --steps 3\n#   "
	if !strings.HasPrefix(string(data), head) || !strings.Contains(string(data), "False/Conflicted") {
		t.Errorf("file starts\n%s\nwant the step, the replay and the differences first", data)
	}
	back, err := generators.ParseCase(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Steps) != len(c.Steps) || back.Objects() != c.Objects() {
		t.Errorf("read back %d steps and %d objects, want %d and %d", len(back.Steps), back.Objects(), len(c.Steps), c.Objects())
	}
}
