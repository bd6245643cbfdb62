package generators

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// TestCase: the pieces shrinking a case with steps uses: a file's
// steps are split off and put back, a candidate whose steps no longer
// apply is recognised and left out, and a drawn case moves to other
// namespaces whole.
func TestCase(t *testing.T) {
	data, err := os.ReadFile("../scenarios/gep-713/steps-direct-conflict-over-time.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseCase(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Steps) != 6 {
		t.Fatalf("%d steps, want 6", len(s.Steps))
	}
	if c := (Case{Docs: s.Docs, Steps: s.Steps[:3]}).YAML(); !stepsApply(c) {
		t.Errorf("the first three steps do not apply")
	} else if back, _ := ParseCase(c); len(back.Steps) != 3 {
		t.Errorf("%d steps put back, want 3", len(back.Steps))
	}
	if c := (Case{Docs: s.Docs}).YAML(); !stepsApply(c) {
		t.Errorf("the scenario without steps does not apply")
	}
	// delete-established twice: the second deletes what is not there.
	again := map[string]any{}
	for k, v := range s.Steps[2].(map[string]any) {
		again[k] = v
	}
	again["name"] = "again"
	if stepsApply((Case{Docs: s.Docs, Steps: []any{s.Steps[2], again}}).YAML()) {
		t.Errorf("a step deleting what is gone applies")
	}
	// Failing at step 4: the steps after it gone first, then one before
	// it, then objects; every candidate applies.
	cands := s.Smaller(4)
	if len(cands) == 0 || len(cands[0].Steps) != 4 {
		t.Fatalf("first candidate has %d steps, want 4", len(cands[0].Steps))
	}
	for _, c := range cands {
		if !stepsApply(c.YAML()) {
			t.Errorf("candidate with %d steps and %d objects does not apply", len(c.Steps), c.Objects())
		}
		if !c.Less(s) {
			t.Errorf("candidate with %d steps and %d objects is not smaller than %d and %d", len(c.Steps), c.Objects(), len(s.Steps), s.Objects())
		}
	}
	// A drawn case (namespaces written out, no expected outcome) moves
	// to other namespaces whole.
	drawn, err := ParseCase(Cases(Scenarios(Config{Profile: "color-inherited"}), 4).Example(3).printed())
	if err != nil {
		t.Fatal(err)
	}
	moved := drawn
	var names []string
	for _, d := range drawn.Docs {
		if d["kind"] == "Namespace" {
			n := d["metadata"].(map[string]any)["name"].(string)
			names = append(names, n)
			moved = moved.InNamespace(n, "moved-"+n)
		}
	}
	if len(names) == 0 || len(drawn.Steps) == 0 {
		t.Fatalf("drawn case has %d namespaces and %d steps", len(names), len(drawn.Steps))
	}
	out := string(moved.YAML())
	for _, n := range names {
		if strings.Contains(out, "namespace: "+n+"\n") || strings.Contains(out, "/"+n+"/") {
			t.Errorf("namespace %s left after InNamespace:\n%s", n, out)
		}
	}
	if !stepsApply(moved.YAML()) {
		t.Errorf("the moved case does not apply:\n%s", out)
	}
	if string((Case{Docs: drawn.Docs, Steps: drawn.Steps}).YAML()) == out {
		t.Error("InNamespace changed nothing")
	}
}

// The file Print writes of a drawn case with steps reads back as the
// case drawn: the same documents and steps.
func TestPrintedReadsBack(t *testing.T) {
	g := Scenarios(Config{Profile: "color-inherited"})
	for seed := range 5 {
		c := Cases(g, 4).Example(seed)
		read, err := ParseCase(c.printed())
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(Case{Docs: read.Docs, Steps: read.Steps}.YAML()), string(c.YAML()); got != want || len(c.Steps) != len(read.Steps) || len(c.Steps) == 0 {
			t.Errorf("seed %d: %d steps drawn as\n%s\nread back as %d steps\n%s", seed, len(c.Steps), want, len(read.Steps), got)
		}
	}
}

// StateLabel names a case's states as the simulator's states of its file
// are named (simulator.State.Label): drawn cases with steps, a case whose
// steps are all shrunk away ("creation") and one without steps ("").
func TestStateLabel(t *testing.T) {
	g := Scenarios(Config{Profile: "color-inherited"})
	for seed := range 5 {
		c := Cases(g, 4).Example(seed)
		if !c.Changes() {
			continue
		}
		docs, err := load.Read([]string{"-"}, bytes.NewReader(c.YAML()))
		if err != nil {
			t.Fatal(err)
		}
		m, err := simulator.Build(docs, simulator.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sts, err := simulator.States(docs, m.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		if len(sts) != len(c.Steps)+1 {
			t.Fatalf("seed %d: %d states of %d steps", seed, len(sts), len(c.Steps))
		}
		for i, st := range sts {
			if got, want := c.StateLabel(i), st.Label(len(sts)-1); got != want || !strings.HasPrefix(got, "step ") {
				t.Errorf("seed %d: state %d labelled %q, want %q", seed, i, got, want)
			}
		}
		if got := (Case{Docs: c.Docs}).StateLabel(0); got != "creation" {
			t.Errorf("seed %d: a case without its steps labelled %q, want creation", seed, got)
		}
	}
	if got := (Case{Scenario: g.Example(1)}).StateLabel(0); got != "" {
		t.Errorf("a case without steps labelled %q, want none", got)
	}
}
