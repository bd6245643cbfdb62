package incluster

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// HistoryCase is a history of two steps with a fault: p2 is created
// after p1 on b1 (Conflicted, GEP-713 Merge strategy: None), then p1 is
// deleted and p2 moves to b2. (Exported for TestLocalHistoryIndependent.)
const HistoryCase = `apiVersion: gepcheck.dev/v1alpha1
kind: Scenario
metadata: {name: history}
spec:
  citation: "GEP-713, Conflict resolution (Merge strategy: None)"
  profiles: [color-direct]
  expect: {}
  faults:
  - {kind: burst, state: 1}
  steps:
  - name: delete-established
    delete: [ColorPolicy/default/p1]
    expect: {}
  - name: retarget
    apply:
    - apiVersion: policies.controller.io/v1
      kind: ColorPolicy
      metadata: {name: p2}
      spec:
        targetRefs: [{group: "", kind: Service, name: b2}]
        color: blue
    expect: {}
---
apiVersion: v1
kind: Service
metadata: {name: b1}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: b2}
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

func historyPlans(t *testing.T) (p, fresh *Plan) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "history.yaml")
	if err := os.WriteFile(file, []byte(HistoryCase), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(file, Target{Run: "h", Index: 1, ControllerName: "example.com/c"})
	if err != nil || p.Skip != "" {
		t.Fatal(err, p.Skip)
	}
	fresh, err = finalPlan(p, nil, Target{Run: "h", Index: historyBase + 1, ControllerName: "example.com/c"})
	if err != nil || fresh.Skip != "" {
		t.Fatal(err, fresh.Skip)
	}
	return p, fresh
}

// The fresh start of a history is its last state's objects, as that
// state's plan has them (in the scenario's names, with the same spec and
// creation order), in namespaces of its own, without steps or faults.
func TestFinalPlan(t *testing.T) {
	p, fresh := historyPlans(t)
	last := p.State(len(p.Steps))
	if len(p.Steps) != 2 || len(p.Faults) != 1 {
		t.Fatalf("the history has %d steps and %d faults, want 2 and 1", len(p.Steps), len(p.Faults))
	}
	if len(fresh.Steps) != 0 || len(fresh.Faults) != 0 {
		t.Errorf("the fresh start has %d steps and %d faults, want none", len(fresh.Steps), len(fresh.Faults))
	}
	if p.Namespaces["default"] == fresh.Namespaces["default"] {
		t.Errorf("the fresh start shares namespace %s with the history", p.Namespaces["default"])
	}
	key := func(pl *Plan) []string {
		var out []string
		for _, u := range slices.Concat(pl.NamespaceObjects, pl.Objects) {
			out = append(out, pl.Unmap(u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName())+" "+fmt.Sprint(u.Object["spec"]))
		}
		for i, wave := range pl.PolicyWaves {
			for _, u := range wave {
				out = append(out, fmt.Sprintf("wave %d: %s %v", i, pl.Unmap(u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()), u.Object["spec"]))
			}
		}
		return out
	}
	if got, want := key(fresh), key(last); !slices.Equal(got, want) {
		t.Errorf("the fresh start's objects\n%v\nwant the last state's\n%v", got, want)
	}
	if len(fresh.PolicyObjects()) != 1 {
		t.Errorf("the fresh start has %d policies, want p2 alone", len(fresh.PolicyObjects()))
	}
}

// The fresh start creates the final objects in the order the history
// left their creationTimestamps, not the file's: a re-created target, a
// tie (GEP-713, Conflict resolution rules 2 and 3) or a policy created
// again by a misoperation orders them differently.
func TestFinalPlanCreationOrder(t *testing.T) {
	// HistoryCase but for its steps: one that recolors p2, so that the
	// last state holds p1 and p2.
	steps := HistoryCase[strings.Index(HistoryCase, "  steps:"):strings.Index(HistoryCase, "---")]
	recolor := strings.Replace(HistoryCase, steps, `  steps:
  - name: recolor
    apply:
    - apiVersion: policies.controller.io/v1
      kind: ColorPolicy
      metadata: {name: p2}
      spec:
        targetRefs: [{group: "", kind: Service, name: b1}]
        color: green
    expect: {}
`, 1)
	file := filepath.Join(t.TempDir(), "recolor.yaml")
	if err := os.WriteFile(file, []byte(recolor), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(file, Target{Run: "h", Index: 2, ControllerName: "example.com/c"})
	if err != nil || p.Skip != "" || len(p.Steps) != 1 {
		t.Fatal(err, p.Skip, len(p.Steps))
	}
	for _, tc := range []struct {
		name     string
		p1, p2   string // stored creationTimestamps
		wantWave [][]string
	}{
		{"as the file", "2026-11-28T10:00:00Z", "2026-11-28T10:00:01Z", [][]string{{"p1"}, {"p2"}}},
		{"p1 re-created", "2026-11-28T10:00:07Z", "2026-11-28T10:00:01Z", [][]string{{"p2"}, {"p1"}}},
		{"tied", "2026-11-28T10:00:03Z", "2026-11-28T10:00:03Z", [][]string{{"p1", "p2"}}},
	} {
		var stored []*unstructured.Unstructured
		for _, u := range p.State(1).ScenarioObjects() {
			u = u.DeepCopy()
			switch u.GetName() {
			case "p1", "p2":
				ts, err := time.Parse(time.RFC3339, map[string]string{"p1": tc.p1, "p2": tc.p2}[u.GetName()])
				if err != nil {
					t.Fatal(err)
				}
				u.SetCreationTimestamp(metav1.NewTime(ts))
			}
			stored = append(stored, u)
		}
		fresh, err := finalPlan(p, stored, Target{Run: "h", Index: historyBase + 2, ControllerName: "example.com/c"})
		if err != nil || fresh.Skip != "" {
			t.Fatal(err, fresh.Skip)
		}
		var waves [][]string
		for _, w := range fresh.PolicyWaves {
			var names []string
			for _, u := range w {
				names = append(names, u.GetName())
			}
			slices.Sort(names)
			waves = append(waves, names)
		}
		if fmt.Sprint(waves) != fmt.Sprint(tc.wantWave) {
			t.Errorf("%s: the fresh start's policy waves %v, want %v", tc.name, waves, tc.wantWave)
		}
	}
}

// historyDiff compares the two observations in the scenario's names: the
// same status in two sets of namespaces is no difference, one condition
// that differs is one history-dependent difference, named as the scenario
// names its policy.
func TestHistoryDiff(t *testing.T) {
	p, fresh := historyPlans(t)
	obs := func(pl *Plan, reason string) observe.Observation {
		ns := pl.Namespaces["default"]
		status := "True"
		if reason != engine.ReasonAccepted {
			status = "False"
		}
		return observe.Observation{
			Effective: []observe.Path{{Path: []string{"Service/" + ns + "/b2"}, Spec: map[string]any{"color": "blue"}}},
			Policies:  []observe.Status{{Ref: "ColorPolicy/" + ns + "/p2", Conditions: []engine.Condition{{Type: engine.TypeAccepted, Status: status, Reason: reason}}}},
		}
	}
	history, start := obs(p, engine.ReasonAccepted), obs(fresh, engine.ReasonAccepted)
	if len(compare.Diff(start, history, observe.Capabilities{})) == 0 {
		t.Fatal("the two observations agree in the cluster's names: the test shows nothing")
	}
	if ds := historyDiff(p, fresh, history, start, nil); len(ds) != 0 {
		t.Errorf("the same status in two sets of namespaces: %v", compare.Strings(ds))
	}
	ds := historyDiff(p, fresh, obs(p, engine.ReasonConflicted), start, nil)
	if len(ds) != 1 || ds[0].Kind != compare.HistoryDependent || ds[0].Ref != "ColorPolicy/default/p2" || ds[0].Want != "True/Accepted" {
		t.Errorf("a condition kept from the history: %#v, want one history-dependent difference on ColorPolicy/default/p2", ds)
	}
}
