package incluster_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/cluster/local/localtest"
	"github.com/gepcheck/gepcheck/impl/reference"
	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// History independence (docs/faults.md) against gepcheck-reference in a
// local control plane: a history with steps (incluster.HistoryCase) and its final objects
// created at once give the same status; a controller that writes a
// policy's first conditions for good (planted: p2 stays Conflicted after
// p1 is gone) gives another status at the end of the history than from a
// fresh start, which HistoryIndependent finds on p2.
func TestLocalHistoryIndependent(t *testing.T) {
	c := localtest.Start(t, reference.CRDs(), gotool.KubeControllerManager)
	k, err := cluster.NewKube(c)
	if err != nil {
		t.Fatal(err)
	}
	var planted atomic.Bool
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := (&reference.Controller{Config: c.Config, Simulate: firstStatus(&planted)}).Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	file := filepath.Join(t.TempDir(), "history.yaml")
	if err := os.WriteFile(file, []byte(incluster.HistoryCase), 0o644); err != nil {
		t.Fatal(err)
	}
	im := reference.InCluster{}
	r := &incluster.Runner{Kube: k, Impl: im, Run: "hist", Opts: incluster.Options{StepTimeout: time.Minute, Settle: 2 * time.Second}}
	for i, tc := range []struct {
		name    string
		planted bool
	}{{"reference", false}, {"first-status", true}} {
		planted.Store(tc.planted)
		p, err := incluster.NewPlan(file, incluster.TargetFor(im, "hist", i))
		if err != nil {
			t.Fatal(err)
		}
		first, final := r.VerifyThrough(ctx, p)
		var stored []*unstructured.Unstructured
		for _, u := range p.State(len(p.Steps)).ScenarioObjects() {
			got, gerr := k.Get(ctx, u)
			if gerr != nil {
				t.Fatal(gerr)
			}
			stored = append(stored, got)
		}
		ds, err := r.HistoryIndependent(ctx, p, final, stored)
		if derr := r.Delete(ctx, p, i); derr != nil {
			t.Error(derr)
		}
		if err != nil {
			t.Fatalf("%s: %v (the history: %s %s)", tc.name, err, final.Outcome, final.Reason)
		}
		switch {
		case !tc.planted && (first.Outcome != incluster.Pass || len(ds) != 0):
			t.Errorf("%s: the history %s, history-dependent: %v; want a pass and none", tc.name, first.Outcome, compare.Strings(ds))
		case tc.planted && (first.Outcome != incluster.Fail || first.State != 1 || final.State != 2):
			t.Errorf("%s: the history %s at state %d, carried on to state %d; want a failure at 1, carried on to 2", tc.name, first.Outcome, first.State, final.State)
		case tc.planted && (len(ds) == 0 || ds[0].Kind != "history-dependent" || ds[0].Ref != "ColorPolicy/default/p2"):
			t.Errorf("%s: history-dependent: %v; want ColorPolicy/default/p2's condition", tc.name, compare.Strings(ds))
		}
		t.Logf("%s: the history %s at state %d; history-dependent: %v", tc.name, first.Outcome, first.State, compare.Strings(ds))
	}
}

// firstStatus is the reference engine, or, while planted holds, a broken
// one that writes each policy's first conditions for good (by its name in
// the cluster, so a fresh start in other namespaces starts clean).
func firstStatus(planted *atomic.Bool) func(*simulator.Model, engine.Semantics) *simulator.Output {
	var mu sync.Mutex
	first := map[string][]engine.Condition{}
	return func(m *simulator.Model, sem engine.Semantics) *simulator.Output {
		out := m.Run(sem, nil)
		if !planted.Load() {
			return out
		}
		mu.Lock()
		defer mu.Unlock()
		for i, p := range out.Policies {
			if was, ok := first[p.Ref]; ok {
				out.Policies[i].Conditions = was
			} else {
				first[p.Ref] = p.Conditions
			}
		}
		return out
	}
}
