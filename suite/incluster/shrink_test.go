package incluster

import "testing"

// TestStepNumber: a result's step is read back from its label.
func TestStepNumber(t *testing.T) {
	for label, want := range map[string]int{"step 3 (delete-established)": 3, "": 0} {
		if got := stepNumber(label); got != want {
			t.Errorf("stepNumber(%q) = %d, want %d", label, got, want)
		}
	}
}
