package differential

import (
	"context"
	osexec "os/exec"
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/impl/exec"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// The differential property catches a broken implementation: the example
// of docs/exec-protocol.md with its newest-wins mode on (GEP-713, Merge
// strategy None, reversed).
func TestDifferentialCatchesBrokenImplementation(t *testing.T) {
	if _, err := osexec.LookPath("python3"); err != nil {
		t.Skip("python3 not found: the example implementation is a Python script")
	}
	// The example writes merged GEP-713's status vocabulary (Programmed).
	broken := observe.ClaimingVocabulary(&exec.Exec{Command: []string{"../../docs/examples/colorpolicy-direct.py"}, Env: []string{"GEPCHECK_EXAMPLE_BROKEN=newest-wins"}}, engine.VocabularyMerged)
	p := Property(context.Background(), broken, "color-direct", generators.Scenarios(generators.Config{Profile: "color-direct", MaxPolicies: 4}))
	out := suite.Run(p, "", 7, 15, suite.Options{ShrinkTime: time.Second})
	if out.Passed {
		t.Fatal("the differential property did not catch a newest-wins implementation in 15 cases (seed 7)")
	}
	if s, _, _ := out.Capture.Last(); s == nil || len(s.Policies) < 2 {
		t.Errorf("the counterexample should hold at least two conflicting policies: %+v", s)
	}
}
