package reference

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/spf13/pflag"
)

// --mutant is hidden, takes the names Mutants lists, and refuses another
// name as the user's input, naming the flag and the names.
func TestMutantFlag(t *testing.T) {
	cmd := plugin{}.Commands(&bytes.Buffer{}, &bytes.Buffer{})["controller"][0]
	f := cmd.Flags().Lookup("mutant")
	if f == nil || !f.Hidden {
		t.Fatalf("--mutant: %+v, want a hidden flag", f)
	}
	seen := map[Mutant]bool{}
	for _, m := range Mutants() {
		got, err := ParseMutant(string(m.Name))
		if err != nil || got != m.Name {
			t.Errorf("%s: %q %v", m.Name, got, err)
		}
		if seen[m.Name] || m.Oracle == "" || m.Doc == "" {
			t.Errorf("%s: listed twice, or without its oracle or line", m.Name)
		}
		seen[m.Name] = true
	}
	if m, err := ParseMutant(""); m != "" || err != nil {
		t.Errorf("no --mutant: %q %v, want the correct controller", m, err)
	}
	mf := MutantFlags{name: "forget"}
	_, err := mf.Mutant()
	var in exitcode.Input
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "--mutant") || !strings.Contains(err.Error(), string(StaleRead)) {
		t.Errorf("unknown mutant: %v, want an input error naming --mutant and the mutants", err)
	}
	var out bytes.Buffer
	if code := runController([]string{"--kubeconfig", "/nonexistent", "--mutant", "forget"}, &out, &out); code == 0 || !strings.Contains(out.String(), "--mutant: unknown mutant") {
		t.Errorf("gepcheck controller reference --mutant forget: exit %d, %s", code, out.String())
	}
}

// mutantWorld is the mutants' case (testdata/mutants.yaml, its first
// state) in a fake cluster, computed with the profiles it names, with
// the controller ctl.
func mutantWorld(t *testing.T, ctl *Controller) *world {
	t.Helper()
	objs := scenario(t, mutantsFile, "default")
	objs[0].SetAnnotations(map[string]string{AnnotationProfiles: "color-direct"})
	return newWorld(t, objs, ctl)
}

// accepted is the status of ref's aggregated Accepted condition ("" when
// it has none).
func (w *world) accepted(ref string) string {
	w.t.Helper()
	conds, _, _ := unstructured.NestedSlice(w.get(ref).Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Accepted" {
			return fmt.Sprint(m["status"])
		}
	}
	return ""
}

// The planted faults, one reconcile at a time in a fake cluster, beside
// the correct controller doing the same.
func TestMutantFaults(t *testing.T) {
	ctx := context.Background()
	t.Run(string(ForgetOnRestart), func(t *testing.T) {
		for _, m := range []Mutant{"", ForgetOnRestart} {
			w := mutantWorld(t, &Controller{Mutant: m})
			rec := w.ctl.reconciler()
			if _, err := rec(ctx, reconcile.Request{}); err != nil {
				t.Fatal(err)
			}
			got, want := w.accepted("ColorPolicy/default/p1"), map[Mutant]string{"": "True", ForgetOnRestart: ""}[m]
			if got != want {
				t.Errorf("%q, first reconcile: p1 Accepted %q, want %q", m, got, want)
			}
			if _, err := rec(ctx, reconcile.Request{}); err != nil {
				t.Fatal(err)
			}
			if got := w.accepted("ColorPolicy/default/p1"); got != "True" {
				t.Errorf("%q, second reconcile: p1 Accepted %q, want True", m, got)
			}
		}
	})
	t.Run(string(StaleRead), func(t *testing.T) {
		for _, m := range []Mutant{"", StaleRead} {
			w := mutantWorld(t, &Controller{Mutant: m})
			w.reconcile()
			w.reconcile()
			if err := w.cl.Delete(ctx, w.get("ColorPolicy/default/p1")); err != nil {
				t.Fatal(err)
			}
			w.reconcile()
			got, want := w.accepted("ColorPolicy/default/p2"), map[Mutant]string{"": "True", StaleRead: "False"}[m]
			if got != want {
				t.Errorf("%q, p1 deleted: p2 Accepted %q, want %q", m, got, want)
			}
			w.reconcile()
			if got := w.accepted("ColorPolicy/default/p2"); got != "True" {
				t.Errorf("%q, one reconcile later: p2 Accepted %q, want True", m, got)
			}
		}
	})
	t.Run(string(ArrivalTies), func(t *testing.T) {
		for _, m := range []Mutant{"", ArrivalTies} {
			w := mutantWorld(t, &Controller{Mutant: m})
			// p1 and p2 created in one second, p2 seen first.
			p1 := w.get("ColorPolicy/default/p1")
			p2 := w.get("ColorPolicy/default/p2")
			p2.SetCreationTimestamp(p1.GetCreationTimestamp())
			if err := w.cl.Update(ctx, p2); err != nil {
				t.Fatal(err)
			}
			events := w.ctl.events(func(context.Context, client.Object) []reconcile.Request { return []reconcile.Request{{}} })
			events(ctx, w.get("ColorPolicy/default/p2"))
			events(ctx, p1)
			w.reconcile()
			got, want := w.accepted("ColorPolicy/default/p2"), map[Mutant]string{"": "False", ArrivalTies: "True"}[m]
			if got != want {
				t.Errorf("%q, p2 seen first: p2 Accepted %q, want %q", m, got, want)
			}
			if m == ArrivalTies && p1.GetCreationTimestamp() != w.get("ColorPolicy/default/p1").GetCreationTimestamp() {
				t.Errorf("the mutant wrote p1's creationTimestamp")
			}
		}
	})
	t.Run(string(MissedEvent), func(t *testing.T) {
		for _, m := range []Mutant{"", MissedEvent} {
			w := mutantWorld(t, &Controller{Mutant: m})
			var during, created []reconcile.Request
			events := w.ctl.events(func(context.Context, client.Object) []reconcile.Request { return []reconcile.Request{{}} })
			events(ctx, w.get("Service/default/b1")) // b1's creation
			w.ctl.Simulate = func(md *simulator.Model, sem engine.Semantics) *simulator.Output {
				during = events(ctx, w.get("Service/default/b1"))  // a change while the reconcile runs
				created = events(ctx, w.get("Service/default/b2")) // a creation while it runs
				return md.Run(sem, nil)
			}
			if _, err := w.ctl.reconciler()(ctx, reconcile.Request{}); err != nil {
				t.Fatal(err)
			}
			if want := map[Mutant]int{"": 1, MissedEvent: 0}[m]; len(during) != want {
				t.Errorf("%q: a change during a reconcile made %d requests, want %d", m, len(during), want)
			}
			if len(created) != 1 {
				t.Errorf("%q: a creation during a reconcile made %d requests, want 1", m, len(created))
			}
			if got := events(ctx, w.get("Service/default/b1")); len(got) != 1 {
				t.Errorf("%q: an event after the reconcile made %d requests, want 1", m, len(got))
			}
		}
	})
	t.Run(string(Flap), func(t *testing.T) {
		w := mutantWorld(t, &Controller{Mutant: Flap})
		w.reconcile()
		w.reconcile()
		pols := []string{"p1", "p2", "p3", "p4", "p5", "p6"}
		settled := map[string]string{}
		for _, p := range pols {
			settled[p] = w.accepted("ColorPolicy/default/" + p)
		}
		for i := range pols { // each policy in turn
			w.ctl.flipOne(ctx)
			var wrong []string
			for _, p := range pols {
				if w.accepted("ColorPolicy/default/"+p) != settled[p] {
					wrong = append(wrong, p)
				}
			}
			if len(wrong) != 1 {
				t.Errorf("flip %d: Accepted flipped on %v, want one policy", i+1, wrong)
			}
			w.reconcile() // the reconcile of the flip writes it back
		}
		for _, p := range pols {
			if got := w.accepted("ColorPolicy/default/" + p); got != settled[p] {
				t.Errorf("%s after the reconciles: Accepted %q, want %q", p, got, settled[p])
			}
		}
	})
}

// A run with a planted mutant replays with it: the replay commands name
// --reference-mutant; without one they name nothing.
func TestMutantReplayFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, nil},
		{[]string{"--reference-mutant", "stale-read"}, []string{"--reference-mutant", "stale-read"}},
	} {
		fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
		cfg := plugin{}.Configure(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		got := cfg.(interface{ ReplayFlags() []string }).ReplayFlags()
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: ReplayFlags %q, want %q", tc.args, got, tc.want)
		}
	}
}
