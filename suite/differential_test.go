package suite

import (
	"os/exec"
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/suite/driver"
)

// The differential property catches a broken implementation: the example
// of docs/exec-protocol.md with its newest-wins mode on (GEP-713, Merge
// strategy None, reversed).
func TestDifferentialCatchesBrokenImplementation(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found: the example implementation is a Python script")
	}
	broken := &driver.Exec{Command: []string{"../docs/examples/colorpolicy-direct.py"}, Env: []string{"GEPCHECK_EXAMPLE_BROKEN=newest-wins"}}
	p := Differential(broken, "color-direct", generators.Scenarios(generators.Config{Profile: "color-direct", MaxPolicies: 4}))
	out := Run(p, "", 7, 15, Options{ShrinkTime: time.Second})
	if out.Passed {
		t.Fatal("the differential property did not catch a newest-wins implementation in 15 cases (seed 7)")
	}
	if s, _, _ := out.Capture.Last(); s == nil || len(s.Policies) < 2 {
		t.Errorf("the counterexample should hold at least two conflicting policies: %+v", s)
	}
}
