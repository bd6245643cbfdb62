package incluster

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/simulator/fault"
	"github.com/gepcheck/gepcheck/suite/compare"
)

// counting is a Controller that counts kills and starts.
type counting struct{ kills, starts int }

func (c *counting) Kill() error                     { c.kills++; return nil }
func (c *counting) Start(ctx context.Context) error { c.starts++; return nil }

func obj(kind, ns, name string, status map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": kind,
		"metadata": map[string]any{"namespace": ns, "name": name}}}
	if status != nil {
		u.Object["status"] = status
	}
	return u
}

func ancestorStatus(status, reason, msg string) map[string]any {
	return map[string]any{"ancestors": []any{
		map[string]any{"ancestorRef": map[string]any{"kind": "Gateway", "namespace": "ns", "name": "gw"}, "controllerName": "me",
			"conditions": []any{map[string]any{"type": "Accepted", "status": status, "reason": reason, "message": msg}}},
		map[string]any{"ancestorRef": map[string]any{"kind": "Gateway", "namespace": "ns", "name": "other"}, "controllerName": "them",
			"conditions": []any{map[string]any{"type": "Accepted", "status": msg, "reason": "Accepted"}}},
	}}
}

// The status watch counts a write only where status changed after the
// first sight, and a flip only where the implementation's own condition
// changed status or reason (docs/faults.md, stability).
func TestStatusWatchCounts(t *testing.T) {
	w := &statusWatch{own: "me", want: map[string]bool{"BackendTLSPolicy/ns/p": true}, status: map[string]map[string]any{}}
	for _, st := range []map[string]any{
		ancestorStatus("True", "Accepted", "a"),    // baseline
		ancestorStatus("True", "Accepted", "a"),    // no change: no write
		ancestorStatus("True", "Accepted", "b"),    // a message and another's entry: a write, no flip
		ancestorStatus("False", "Conflicted", "b"), // a flip
		ancestorStatus("True", "Accepted", "b"),    // and back: another
	} {
		w.seen(obj("BackendTLSPolicy", "ns", "p", st))
	}
	w.seen(obj("BackendTLSPolicy", "ns", "q", ancestorStatus("False", "Invalid", "x"))) // not watched
	w.seen(obj("BackendTLSPolicy", "ns", "q", ancestorStatus("True", "Accepted", "x")))
	writes, flipped, objects := w.counts()
	if writes != 3 || flipped != 2 || objects != 1 {
		t.Errorf("writes %d, flipped %d, objects %d; want 3, 2, 1", writes, flipped, objects)
	}
	want := []compare.Difference{{Kind: compare.Flapping, Ref: "BackendTLSPolicy/ns/p@Gateway/ns/gw", Condition: "Accepted", Want: "True/Accepted", Got: "False/Conflicted"}}
	if got := w.flipDiffs(); !slices.EqualFunc(got, want, func(a, b compare.Difference) bool { return a.String() == b.String() }) {
		t.Errorf("flips %v, want %v (one per condition, the first)", compare.Strings(got), compare.Strings(want))
	}
}

// A condition that appears or vanishes is a flip too; listeners and
// status.conditions are read.
func TestFlipsOf(t *testing.T) {
	before := conditionsOf(map[string]any{"conditions": []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted"}},
		"listeners": []any{map[string]any{"name": "http", "conditions": []any{map[string]any{"type": "Programmed", "status": "True", "reason": "Programmed"}}}}}, "me")
	after := conditionsOf(map[string]any{"conditions": []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted"}}}, "me")
	got := compare.Strings(flipsOf("Gateway/ns/gw", before, after))
	want := []string{"flapping: Gateway/ns/gw#http Programmed flipped from True/Programmed to no such condition during the quiet period"}
	if !slices.Equal(got, want) {
		t.Errorf("flips %q, want %q", got, want)
	}
	if d := flipsOf("x", after, after); len(d) != 0 {
		t.Errorf("the same conditions flipped: %v", d)
	}
}

// ties: the state's policies in one wave, in the order the seed draws,
// the same for the same seed; a step's other objects keep their places.
func TestTies(t *testing.T) {
	var pols []*unstructured.Unstructured
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		pols = append(pols, obj("BackendTLSPolicy", "ns", n, nil))
	}
	pt := &perturbing{faults: []fault.Fault{{Kind: fault.Ties, Seed: 7}}}
	one := pt.tiedWaves([][]*unstructured.Unstructured{pols[:2], pols[2:]})
	again := pt.tiedWaves([][]*unstructured.Unstructured{pols[:2], pols[2:]})
	if len(one) != 1 || len(one[0]) != len(pols) || !slices.Equal(one[0], again[0]) {
		t.Fatalf("tied waves %v, then %v: want one wave of %d, the same twice", names(one[0]), names(again[0]), len(pols))
	}
	if slices.Equal(one[0], pols) {
		t.Errorf("seed 7 kept the written order %v", names(one[0]))
	}
	other := (&perturbing{faults: []fault.Fault{{Kind: fault.Ties, Seed: 8}}}).tiedWaves([][]*unstructured.Unstructured{pols})
	if slices.Equal(one[0], other[0]) {
		t.Errorf("seeds 7 and 8 drew the same order %v", names(one[0]))
	}
	var nilPt *perturbing
	if w := nilPt.tiedWaves([][]*unstructured.Unstructured{pols[:2], pols[2:]}); len(w) != 2 {
		t.Errorf("without faults the waves are not kept: %d", len(w))
	}
	step := []*unstructured.Unstructured{obj("HTTPRoute", "ns", "r", nil), pols[0], obj("Service", "ns", "s", nil), pols[1], pols[2]}
	got := pt.tiedApply(step)
	if got[0] != step[0] || got[2] != step[2] || !slices.Equal(sorted(names(got)), sorted(names(step))) {
		t.Errorf("tied step %v from %v: non-policies moved or objects lost", names(got), names(step))
	}
}

func names(us []*unstructured.Unstructured) []string {
	var out []string
	for _, u := range us {
		out = append(out, u.GetName())
	}
	return out
}

func sorted(s []string) []string { slices.Sort(s); return s }

// A restart fault happens when due: mid-apply after half the state's
// objects, or after k status writes; each once.
func TestRestartDue(t *testing.T) {
	for _, tc := range []struct {
		name         string
		f            fault.Fault
		writes       int
		afterObjects int // kills after this many objects of 4
	}{
		{"mid-apply", fault.Fault{Kind: fault.Restart}, 0, 2},
		{"after 2 writes", fault.Fault{Kind: fault.Restart, AfterWrites: 2}, 2, 1},
		{"writes not made", fault.Fault{Kind: fault.Restart, AfterWrites: 3}, 2, -1},
	} {
		ctl := &counting{}
		w := &statusWatch{writes: tc.writes}
		pt := &perturbing{r: &Runner{Controller: ctl}, faults: []fault.Fault{tc.f}, fired: []bool{false}, writes: w, total: 4, a: &Applied{}}
		at := -1
		for i := 1; i <= 4; i++ {
			if err := pt.afterObject(context.Background()); err != nil {
				t.Fatal(err)
			}
			if ctl.kills == 1 && at < 0 {
				at = i
			}
		}
		if at != tc.afterObjects || ctl.kills > 1 || ctl.starts != ctl.kills || pt.a.Restarts != ctl.kills {
			t.Errorf("%s: killed after object %d (%d kills, %d starts, %d restarts counted); want after %d, once", tc.name, at, ctl.kills, ctl.starts, pt.a.Restarts, tc.afterObjects)
		}
	}
}

// A fault this run cannot make skips the case, naming the fault.
func TestCannotPerturb(t *testing.T) {
	r := &Runner{Kube: &cluster.Kube{Cluster: &cluster.Cluster{}}}
	for _, f := range []fault.Fault{{Kind: fault.Restart, State: 1}, {Kind: fault.APIServer}, {Kind: fault.Delay, Seed: 3}} {
		why := r.cannotPerturb([]fault.Fault{{Kind: fault.Burst}, f})
		if !strings.Contains(why, f.String()) {
			t.Errorf("%s: reason %q does not name the fault", f, why)
		}
	}
	r.Controller = &counting{}
	if why := r.cannotPerturb([]fault.Fault{{Kind: fault.Restart}, {Kind: fault.Burst}, {Kind: fault.Ties}}); why != "" {
		t.Errorf("a run with its controller cannot restart it: %s", why)
	}
}

// failing is a Controller whose kill finds nothing.
type failing struct{ counting }

func (c *failing) Kill() error { return errors.New("killed no process") }

// A kill that killed nothing fails the state, naming the fault.
func TestRestartKilledNothing(t *testing.T) {
	f := fault.Fault{Kind: fault.Restart}
	pt := &perturbing{r: &Runner{Controller: &failing{}}, faults: []fault.Fault{f}, fired: []bool{false}, writes: &statusWatch{}, total: 1, a: &Applied{}}
	if err := pt.afterObject(context.Background()); err == nil || !strings.Contains(err.Error(), f.String()) {
		t.Errorf("error %v, want one naming %s", err, f)
	}
}

// The convergence oracle's differences are its own kind, with what was
// compared; status rules are not its.
func TestNotConvergent(t *testing.T) {
	got := notConvergent([]compare.Difference{
		{Kind: compare.PolicyCondition, Ref: "P/ns/a", Condition: "Accepted", Want: "True/Accepted"},
		{Kind: compare.StatusRule, Ref: "P/ns/a", Condition: "one-entry"},
		{Kind: compare.Effective, Path: []string{"Gateway/ns/gw"}, Fields: []string{"color"}, Want: map[string]any{"color": "red"}},
	})
	want := []string{"not-convergent: P/ns/a Accepted: True/Accepted, then no such condition", `not-convergent: path Gateway/ns/gw: {"color":"red"}, then no effective policy`}
	if s := compare.Strings(got); !slices.Equal(s, want) {
		t.Errorf("got %q, want %q", s, want)
	}
}

// noProcess is an implementation whose start starts no process.
type noProcess struct{ Implementation }

func (noProcess) Name() string { return "none" }
func (noProcess) Start(context.Context, *cluster.Cluster, string, func(string)) (func(), error) {
	return func() {}, nil
}

// Local's kill that kills no process is an error, not a silent pass; its
// later starts log beside the first (docs/faults.md, restart).
func TestKillOfNothing(t *testing.T) {
	l, err := StartLocal(context.Background(), &cluster.Cluster{}, noProcess{}, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, d := range l.Logs() {
			os.RemoveAll(d)
		}
	}()
	if err := l.Kill(); err == nil || !strings.Contains(err.Error(), "killed no process") {
		t.Errorf("Kill: %v, want an error", err)
	}
	if err := l.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if logs := l.Logs(); len(logs) != 2 || logs[1] != logs[0]+"-start-2" || l.Starts() != 2 {
		t.Errorf("logs %q after two starts", logs)
	}
	if err := l.Start(context.Background()); err == nil {
		t.Error("a second start of a running controller was not refused")
	}
	l.Stop()
}
