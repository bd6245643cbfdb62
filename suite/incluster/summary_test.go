package incluster

import (
	"slices"
	"testing"

	"github.com/gepcheck/gepcheck/suite/compare"
)

// RandomKinds, which run --random's triage (and cluster-test.sh's check
// that every kind is kept) reads, has every kind of every failed random
// case, not only the one a case was shrunk for, and none of the scenario
// files' or of passed cases.
func TestRandomKinds(t *testing.T) {
	cond := compare.Difference{Kind: compare.PolicyCondition, Ref: "ColorPolicy/ns/p", Condition: "Accepted", Want: "False/TargetNotFound", Got: "True/Accepted"}
	conflict := compare.Difference{Kind: compare.PolicyCondition, Ref: "ColorPolicy/ns/p", Condition: "Accepted", Want: "True/Accepted", Got: "False/Conflicted"}
	extra := compare.Difference{Kind: compare.ExtraEffective, Path: []string{"Service/ns/s"}, Fields: []string{"color"}}
	sum := &Summary{Results: []Result{
		{Plan: &Plan{File: "/tmp/gepcheck-random-1/random-color-inherited-1.yaml", Random: true}, Outcome: Fail, Diff: []compare.Difference{cond, extra}},
		{Plan: &Plan{File: "/tmp/gepcheck-random-1/random-color-inherited-2.yaml", Random: true}, Outcome: Fail, State: 1, Diff: []compare.Difference{conflict}},
		{Plan: &Plan{File: "/tmp/gepcheck-random-1/random-color-inherited-3.yaml", Random: true}, Outcome: Pass},
		{Plan: &Plan{File: "/tmp/gepcheck-random-1/random-color-inherited-4.yaml", Random: true}, Outcome: Error, Diff: []compare.Difference{{Kind: compare.Error}}},
		{Plan: &Plan{File: "scenarios/gep-713/example-1-direct.yaml"}, Outcome: Fail, Diff: []compare.Difference{{Kind: compare.TargetCondition}}},
	}}
	want := []compare.Found{{Kind: "condition"}, {Kind: "conflicted", AfterStep: true}, {Kind: "extra-setting-color"}}
	if got := sum.RandomKinds(); !slices.Equal(got, want) {
		t.Errorf("RandomKinds = %v, want %v", got, want)
	}
}
