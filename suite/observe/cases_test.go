package observe

import (
	"fmt"
	"testing"
)

// A scenario with steps is one case per state, each carrying its file,
// its state's index and label as values (reports and the replay of a
// cluster's failure read them, not the case's name); one without steps
// is one case of state 0 with no label.
func TestScenarioCasesStates(t *testing.T) {
	const steps = "../../scenarios/gep-713/steps-direct-conflict-over-time.yaml"
	const plain = "../../scenarios/gep-713/example-1-direct.yaml"
	cases, err := ScenarioCases([]string{steps, plain}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 8 {
		t.Fatalf("%d cases, want 7 states and 1", len(cases))
	}
	// Files in order: example-1-direct.yaml, then steps-….yaml.
	for i, c := range cases[1:] {
		if c.File != steps || c.State != i || c.Label() == "" || c.Name != steps+" "+c.Label() || c.Label()[:len(fmt.Sprintf("step %d ", i))] != fmt.Sprintf("step %d ", i) {
			t.Errorf("case %d: file %q state %d step %q name %q", i, c.File, c.State, c.Label(), c.Name)
		}
	}
	if a, b := cases[1].Label(), cases[2].Label(); a != "step 0 (create)" || b != "step 1 (add-challenger)" {
		t.Errorf("states 0 and 1 labelled %q and %q, want step 0 (create) and step 1 (add-challenger)", a, b)
	}
	if c := cases[0]; c.File != plain || c.State != 0 || c.Label() != "" || c.Name != plain {
		t.Errorf("case without steps: file %q state %d step %q name %q", c.File, c.State, c.Label(), c.Name)
	}
}
