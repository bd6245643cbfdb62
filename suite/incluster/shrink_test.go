package incluster

import (
	"os"
	"testing"
)

// TestStepCandidates: the pieces ShrinkSteps makes candidates with: a
// file's steps are split off and put back, a candidate whose steps no
// longer apply is recognised, a result's step is read back.
func TestStepCandidates(t *testing.T) {
	data, err := os.ReadFile("../../scenarios/gep-713/steps-direct-conflict-over-time.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := splitSteps(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.steps) != 6 {
		t.Fatalf("%d steps, want 6", len(s.steps))
	}
	if c := s.with(s.steps[:3]); !stepsApply(c) {
		t.Errorf("the first three steps do not apply")
	} else if back, _ := splitSteps(c); len(back.steps) != 3 {
		t.Errorf("%d steps put back, want 3", len(back.steps))
	}
	if c := s.with(nil); !stepsApply(c) {
		t.Errorf("the scenario without steps does not apply")
	}
	// delete-established twice: the second deletes what is not there.
	again := map[string]any{}
	for k, v := range s.steps[2].(map[string]any) {
		again[k] = v
	}
	again["name"] = "again"
	if stepsApply(s.with([]any{s.steps[2], again})) {
		t.Errorf("a step deleting what is gone applies")
	}
	for label, want := range map[string]int{"step 3 (delete-established)": 3, "": 0} {
		if got := stepNumber(label); got != want {
			t.Errorf("stepNumber(%q) = %d, want %d", label, got, want)
		}
	}
}
