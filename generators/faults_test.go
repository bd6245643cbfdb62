package generators

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/fault"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// TestFaultCases: every drawn perturbation is what docs/faults.md says it
// is, judged on the printed case's states by the simulator (not by the
// generator): a ties fault at a state creating two policies or more, an
// invalid-then-fixed misoperation a policy the reference does not accept
// at its state and accepts again after the next step, a target deleted
// and then created again, a policy's targetRefs moved; every kind asked
// for is there, and the same seed prints the same bytes.
func TestFaultCases(t *testing.T) {
	ops := map[fault.Op]int{}
	for _, prof := range []string{"color-direct", "color-inherited", "backendtlspolicy", "all-levels"} {
		for seed := range 12 {
			o := PrintOptions{Seed: seed, Profile: prof, Steps: seed % 3, Faults: fault.Kinds}
			data, err := Print(o)
			if err != nil {
				t.Fatal(err)
			}
			if again, _ := Print(o); !bytes.Equal(data, again) {
				t.Fatalf("%s seed %d: two prints differ", prof, seed)
			}
			c, err := ParseCase(data)
			if err != nil {
				t.Fatal(err)
			}
			checkFaults(t, prof, seed, c, ops)
		}
	}
	// Misoperations without steps drawn make a history of two steps at
	// least.
	for seed := range 30 {
		c := FaultCases(Scenarios(Config{Profile: "color-direct"}), 0, []fault.Kind{fault.Misop}).Example(seed)
		if len(c.Steps) < 2 {
			t.Errorf("seed %d: misoperations without steps drawn make %d steps, want 2 at least", seed, len(c.Steps))
		}
	}
	for _, op := range fault.Ops {
		if ops[op] == 0 {
			t.Errorf("no misoperation %s drawn", op)
		}
	}
}

// checkFaults checks the faults of c against its states.
func checkFaults(t *testing.T, prof string, seed int, c Case, ops map[fault.Op]int) {
	t.Helper()
	docs, err := load.Read([]string{"-"}, bytes.NewReader(c.YAML()))
	if err != nil {
		t.Fatal(err)
	}
	states, models, err := simulator.StateModels(docs, simulator.Options{})
	if err != nil {
		t.Fatalf("%s seed %d: %v\n%s", prof, seed, err, c.YAML())
	}
	kind := models[0].Kinds[0].Profile.Spec.Policy.Kind
	for _, k := range fault.Kinds {
		if !slices.ContainsFunc(c.Faults, func(f fault.Fault) bool { return f.Kind == k }) {
			t.Errorf("%s seed %d: no %s fault drawn", prof, seed, k)
		}
	}
	for _, f := range c.Faults {
		st := states[f.State]
		switch f.Kind {
		case fault.Restart, fault.APIServer:
			if f.AfterWrites > 3 {
				t.Errorf("%s seed %d: %s", prof, seed, f)
			}
		case fault.Delay:
			if d := f.Delay(); d < 100*time.Millisecond || d > time.Second {
				t.Errorf("%s seed %d: %s", prof, seed, f)
			}
		case fault.Ties:
			created := st.Applied
			if f.State == 0 {
				created = st.Docs
			}
			if n := countKind(created, kind); n < 2 {
				t.Errorf("%s seed %d: %s creates %d policies", prof, seed, f, n)
			}
		case fault.Misop:
			ops[f.Op]++
			checkMisop(t, prof, seed, f, states, models)
		}
	}
}

// checkMisop checks misoperation f on the case's states.
func checkMisop(t *testing.T, prof string, seed int, f fault.Fault, states []simulator.State, models []*simulator.Model) {
	t.Helper()
	st := states[f.State]
	switch f.Op {
	case fault.InvalidThenFixed:
		if len(st.Applied) != 1 || f.State+1 >= len(states) {
			t.Fatalf("%s seed %d: %s applies %d objects, %d states", prof, seed, f, len(st.Applied), len(states))
		}
		ref := st.Applied[0].Kind + "/" + st.Applied[0].Namespace + "/" + st.Applied[0].Name
		if r := accepted(models[f.State], ref); !strings.HasPrefix(r, "False/") {
			t.Errorf("%s seed %d: %s: %s Accepted %q, want False", prof, seed, f, ref, r)
		}
		if r := accepted(models[f.State-1], ref); r != accepted(models[f.State+1], ref) {
			t.Errorf("%s seed %d: %s: %s Accepted %q before, %q once fixed", prof, seed, f, ref, r, accepted(models[f.State+1], ref))
		}
	case fault.TargetRecreated:
		if len(st.Deleted) != 1 || f.State+1 >= len(states) || len(states[f.State+1].Applied) != 1 || !load.SameText(st.Deleted[0], states[f.State+1].Applied[0]) && st.Deleted[0].Name != states[f.State+1].Applied[0].Name {
			t.Errorf("%s seed %d: %s is not a deletion then its creation", prof, seed, f)
		}
	case fault.TargetRefsMoved:
		before := states[f.State-1].Docs
		if len(st.Applied) != 1 {
			t.Fatalf("%s seed %d: %s applies %d objects", prof, seed, f, len(st.Applied))
		}
		a := st.Applied[0]
		for _, d := range before {
			if d.Kind == a.Kind && d.Namespace == a.Namespace && d.Name == a.Name && refsOf(d) == refsOf(a) {
				t.Errorf("%s seed %d: %s: %s keeps its targetRefs %s", prof, seed, f, a.Name, refsOf(a))
			}
		}
	}
}

func countKind(docs []*load.Doc, kind string) int {
	n := 0
	for _, d := range docs {
		if d.Kind == kind {
			n++
		}
	}
	return n
}

// accepted is the status of ref's Accepted condition in m's reference
// output ("" when it has none).
func accepted(m *simulator.Model, ref string) string {
	for _, p := range m.Run(engine.StickyOverrides, nil).Policies {
		if strings.HasSuffix(p.Ref, ref) {
			for _, c := range p.Conditions {
				if c.Type == "Accepted" {
					return c.Status + "/" + c.Reason
				}
			}
		}
	}
	return ""
}

func refsOf(d *load.Doc) string {
	spec, _ := d.Raw["spec"].(map[string]any)
	var b strings.Builder
	for _, r := range targetRefs(map[string]any{"spec": spec}) {
		m, _ := r.(map[string]any)
		b.WriteString(m["kind"].(string) + "/" + m["name"].(string) + " ")
	}
	return b.String()
}

// TestSmallerKeepsFaults: the candidates of a case with faults keep them
// at the states they perturb: a misoperation stays with its step (the
// step at its state has the same name), or goes with it; a fault whose
// state is gone moves to the state before; every candidate's faults are
// valid for its states; and each fault but the misoperations is dropped
// by one candidate.
func TestSmallerKeepsFaults(t *testing.T) {
	for seed := range 6 {
		data, err := Print(PrintOptions{Seed: seed, Profile: "color-inherited", Steps: 3, Faults: fault.Kinds})
		if err != nil {
			t.Fatal(err)
		}
		c, err := ParseCase(data)
		if err != nil {
			t.Fatal(err)
		}
		c.File = nil
		stepName := func(c Case, state int) string {
			return c.Steps[state-1].(map[string]any)["name"].(string)
		}
		misops := map[string]fault.Fault{}
		for _, f := range c.Faults {
			if f.Kind == fault.Misop {
				misops[stepName(c, f.State)] = f
			}
		}
		dropped := 0
		for _, cand := range c.Smaller(len(c.Steps)) {
			if errs := fault.Validate(cand.Faults, len(cand.Steps)+1); len(errs) > 0 {
				t.Errorf("seed %d: candidate's faults %v: %v", seed, cand.Faults, errs[0])
			}
			back, err := ParseCase(cand.YAML())
			if err != nil || !slices.Equal(back.Faults, cand.Faults) {
				t.Errorf("seed %d: candidate's faults read back as %v, want %v (%v)", seed, back.Faults, cand.Faults, err)
			}
			for _, f := range cand.Faults {
				if f.Kind == fault.Misop {
					if was, ok := misops[stepName(cand, f.State)]; !ok || was.Op != f.Op {
						t.Errorf("seed %d: %s is at step %q, which was no such misoperation", seed, f, stepName(cand, f.State))
					}
				}
			}
			for i, st := range cand.Steps {
				if f, ok := misops[st.(map[string]any)["name"].(string)]; ok && !fault.Has(cand.Faults, fault.Misop, i+1) {
					t.Errorf("seed %d: step %d lost its misoperation %s", seed, i+1, f)
				}
			}
			if len(cand.Steps) == len(c.Steps) && cand.Objects() == c.Objects() {
				dropped++
				if len(cand.Faults) != len(c.Faults)-1 || !cand.Less(c) {
					t.Errorf("seed %d: a candidate with the same steps and objects has %d faults of %d", seed, len(cand.Faults), len(c.Faults))
				}
			}
		}
		if want := len(c.Faults) - len(misops); dropped != want {
			t.Errorf("seed %d: %d candidates drop a fault, want %d", seed, dropped, want)
		}
	}
}

// keptFaults moves a fault with its step, moves one whose step is gone to
// the state before, and drops a misoperation whose step is gone.
func TestKeptFaults(t *testing.T) {
	fs := []fault.Fault{
		{Kind: fault.Restart, State: 0},
		{Kind: fault.Burst, State: 2},
		{Kind: fault.Misop, State: 2, Op: fault.TargetRefsMoved},
		{Kind: fault.Delay, State: 4, Seed: 3},
		{Kind: fault.Misop, State: 4, Op: fault.InvalidThenFixed},
	}
	// Steps 0, 2, 3 of 0..3 kept (step 1, state 2, gone).
	got := keptFaults(fs, []int{0, 2, 3})
	want := []fault.Fault{
		{Kind: fault.Restart, State: 0},
		{Kind: fault.Burst, State: 1},
		{Kind: fault.Delay, State: 3, Seed: 3},
		{Kind: fault.Misop, State: 3, Op: fault.InvalidThenFixed},
	}
	if !slices.Equal(got, want) {
		t.Errorf("keptFaults = %v, want %v", got, want)
	}
}

// gen --faults: a kind that is none is the user's input (exit 2), naming
// the flag; the kinds given are drawn, and the command printed first
// names them.
func TestFaultsFlag(t *testing.T) {
	parse := func(args ...string) *Flags {
		var f Flags
		fs := pflag.NewFlagSet("gen", pflag.ContinueOnError)
		f.AddFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return &f
	}
	var out bytes.Buffer
	err := parse("--seed", "1", "--faults", "restart,crash").Print(&out)
	var in exitcode.Input
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "--faults") || !strings.Contains(err.Error(), `"crash"`) {
		t.Errorf("--faults restart,crash: %v, want the user's input naming --faults and crash", err)
	}
	out.Reset()
	if err := parse("--seed", "1", "--profile", "color-direct", "--faults", "burst,delay").Print(&out); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(out.String(), "\n")
	c, err := ParseCase(out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if first != "# gepcheck gen --seed 1 --profile color-direct --faults burst,delay" || len(c.Faults) != 2 || c.Faults[0].Kind != fault.Burst || c.Faults[1].Kind != fault.Delay {
		t.Errorf("printed %q with faults %v", first, c.Faults)
	}
}

// The case FaultCases draws is the case Cases draws with the same seed,
// with the steps of misoperations and ties added and its faults: the
// drawn steps, in order, and the same objects.
func TestFaultCasesKeepTheDraw(t *testing.T) {
	g := Scenarios(Config{Profile: "color-inherited"})
	for seed := range 8 {
		plain := Cases(g, 3).Example(seed)
		c := FaultCases(g, 3, fault.Kinds).Example(seed)
		var drawn []any
		for _, st := range c.Steps {
			if n := st.(map[string]any)["name"].(string); !strings.Contains(n, "-misop-") && !strings.Contains(n, "-ties-") {
				drawn = append(drawn, st)
			}
		}
		if got, want := string((Case{Docs: c.Docs, Steps: drawn}).YAML()), string(plain.YAML()); got != want {
			t.Errorf("seed %d: without its faults\n%s\nwant Cases'\n%s", seed, got, want)
		}
		if len(c.Faults) == 0 {
			t.Errorf("seed %d: no faults", seed)
		}
		moved := c.InNamespace(c.Namespace(), "moved")
		if !slices.Equal(moved.Faults, c.Faults) {
			t.Errorf("seed %d: InNamespace left faults %v of %v", seed, moved.Faults, c.Faults)
		}
	}
}
