package reports

import (
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
		Seed:     3,
		Scenario: s,
		Diff:     []compare.Difference{{Kind: compare.PolicyCondition, Ref: "ColorPolicy/ns/p", Condition: "Accepted", Want: "True/Accepted", Got: "False/Conflicted"}},
		Want:     observe.Observation{Name: "case-3"},
		Got:      observe.Observation{Name: "case-3"},
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
