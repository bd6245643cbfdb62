package incluster_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/impl/reference"
	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/cluster"
	"github.com/gepcheck/gepcheck/suite/cluster/local/localtest"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/incluster"
)

// conflictOverTime is a history of one step: p2, newer than p1 on b1, is
// Conflicted (GEP-713, Merge strategy: None) until p1 is deleted.
const conflictOverTime = `apiVersion: gepcheck.dev/v1alpha1
kind: Scenario
metadata: {name: history-conflict}
spec:
  citation: "GEP-713, Conflict resolution (Merge strategy: None)"
  profiles: [color-direct]
  expect: {}
  steps:
  - name: delete-established
    delete: [ColorPolicy/default/p1]
    expect: {}
---
apiVersion: v1
kind: Service
metadata: {name: b1}
spec: {ports: [{port: 80}]}
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p1, creationTimestamp: "2024-01-01T00:00:00Z"}
spec:
  targetRefs: [{group: "", kind: Service, name: b1}]
  color: red
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p2, creationTimestamp: "2024-01-01T00:00:01Z"}
spec:
  targetRefs: [{group: "", kind: Service, name: b1}]
  color: blue
`

// History independence (docs/faults.md) against gepcheck-reference in a
// local control plane: a history with a step and its final objects
// created at once give the same status; a controller that keeps a
// rejection once made (planted: p2 stays Conflicted after p1 is gone)
// gives another status at the end of the history than from a fresh
// start, which HistoryIndependent finds on p2.
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
		if err := (&reference.Controller{Config: c.Config, Simulate: keepsRejections(&planted)}).Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	file := filepath.Join(t.TempDir(), "history.yaml")
	if err := os.WriteFile(file, []byte(conflictOverTime), 0o644); err != nil {
		t.Fatal(err)
	}
	im := reference.InCluster{}
	r := &incluster.Runner{Kube: k, Impl: im, Run: "hist", Opts: incluster.Options{StepTimeout: time.Minute, Settle: 2 * time.Second}}
	for i, tc := range []struct {
		name    string
		planted bool
	}{{"reference", false}, {"keeps-rejections", true}} {
		planted.Store(tc.planted)
		p, err := incluster.NewPlan(file, incluster.TargetFor(im, "hist", i))
		if err != nil {
			t.Fatal(err)
		}
		final := r.Verify(ctx, r.Apply(ctx, p, 0))
		ds, err := r.HistoryIndependent(ctx, p, final)
		if derr := r.Delete(ctx, p, i); derr != nil {
			t.Error(derr)
		}
		if err != nil {
			t.Fatalf("%s: %v (the history: %s %s)", tc.name, err, final.Outcome, final.Reason)
		}
		switch {
		case !tc.planted && (final.Outcome != incluster.Pass || len(ds) != 0):
			t.Errorf("%s: the history %s, history-dependent: %v; want a pass and none", tc.name, final.Outcome, compare.Strings(ds))
		case tc.planted && (len(ds) == 0 || ds[0].Kind != "history-dependent" || ds[0].Ref != "ColorPolicy/default/p2"):
			t.Errorf("%s: history-dependent: %v; want ColorPolicy/default/p2's condition", tc.name, compare.Strings(ds))
		}
		t.Logf("%s: the history %s; history-dependent: %v", tc.name, final.Outcome, compare.Strings(ds))
	}
}

// keepsRejections is the reference engine, or, while planted holds, a
// broken one that keeps a rejection once made: a policy once Conflicted
// stays so (by its name in the cluster, so a fresh start in other
// namespaces starts clean).
func keepsRejections(planted *atomic.Bool) func(*simulator.Model, engine.Semantics) *simulator.Output {
	var mu sync.Mutex
	rejected := map[string]engine.Condition{}
	return func(m *simulator.Model, sem engine.Semantics) *simulator.Output {
		out := m.Run(sem, nil)
		if !planted.Load() {
			return out
		}
		mu.Lock()
		defer mu.Unlock()
		for i, p := range out.Policies {
			if c, ok := engine.FindCondition(p.Conditions, engine.TypeAccepted); ok && c.Reason == engine.ReasonConflicted {
				rejected[p.Ref] = c
				continue
			}
			if was, ok := rejected[p.Ref]; ok {
				out.Policies[i].Conditions = []engine.Condition{was}
				for j := range p.Targets {
					out.Policies[i].Targets[j].Conditions = []engine.Condition{was}
				}
			}
		}
		return out
	}
}
