package differential

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// challengerLater is a case that agrees at creation, one policy alone on
// its Service, and after its step a newer policy on the same Service
// challenges it; an unrelated Service and policy are there to be shrunk
// away. GEP-713, Conflict resolution rule 2 (and Merge strategy: None):
// the older policy stays established.
const challengerLater = `apiVersion: gepcheck.dev/v1alpha1
kind: Scenario
metadata: {name: generated}
spec:
  citation: none
  description: a challenger arrives after creation
  profiles: [color-direct]
  expect: {effectivePolicies: []}
  steps:
  - name: add-challenger
    apply:
    - apiVersion: policies.controller.io/v1
      kind: ColorPolicy
      metadata: {name: p2, namespace: NS}
      spec:
        targetRefs: [{group: "", kind: Service, name: b1}]
        color: blue
    expect: {effectivePolicies: []}
---
apiVersion: v1
kind: Namespace
metadata: {name: NS}
---
apiVersion: v1
kind: Service
metadata: {name: b1, namespace: NS}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: other, namespace: NS}
spec: {ports: [{port: 80}]}
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p1, namespace: NS}
spec:
  targetRefs: [{group: "", kind: Service, name: b1}]
  color: red
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p-other, namespace: NS}
spec:
  targetRefs: [{group: "", kind: Service, name: other}]
  color: green
`

// TestFuzzAfterAChange: an implementation that lets the newer policy
// win agrees with the reference at creation and differs after the step
// (a finding of its own kind, KIND-after-step); shrinking keeps the step
// and drops the unrelated Service and policy. The reference itself, as
// the implementation, agrees on every state.
func TestFuzzAfterAChange(t *testing.T) {
	gen := func(i int) generators.Case {
		c, err := generators.ParseCase([]byte(strings.ReplaceAll(challengerLater, "NS", fmt.Sprintf("case-%d", i))))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	run := Run{Observer: mutated(engine.MutantNewerWins), Profile: "color-direct", Generate: gen, Checks: 2, Steps: 1}
	sum, err := Fuzz(context.Background(), run, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Disagree) != 2 || sum.Disagree[0].State != 1 {
		t.Fatalf("want both cases to disagree at step 1, got %d disagreements (first at state %d)", len(sum.Disagree), sum.Disagree[0].State)
	}
	if len(sum.Findings) == 0 {
		t.Fatal("no finding")
	}
	for _, f := range sum.Findings {
		if !f.Kind.AfterStep || !strings.HasSuffix(f.Kind.String(), "-after-step") {
			t.Errorf("finding %s: a difference seen after a change is an after-step finding", f.Kind)
		}
		small := f.Small.Case
		if len(small.Steps) != 1 || small.Objects() != f.ObjectsFrom-2 {
			t.Errorf("finding %s shrunk to %d steps and %d objects, want 1 and %d (the unrelated Service and policy gone)", f.Kind, len(small.Steps), small.Objects(), f.ObjectsFrom-2)
		}
		if !slices.Contains(f.Small.Kinds(), f.Kind) || !strings.Contains(string(small.YAML()), "case-0") {
			t.Errorf("finding %s: the shrunk case, in the case's own namespace, shows %v", f.Kind, f.Small.Kinds())
		}
	}
	run.Observer = mutated("")
	if sum, err := Fuzz(context.Background(), run, io.Discard); err != nil || len(sum.Disagree) > 0 {
		t.Fatalf("the reference disagrees with itself: %v %v", err, sum.Disagree)
	}
}

// directCases draws ColorPolicy (color-direct) cases in namespace ns:
// two Services and one to four policies on them, created zero to two
// seconds apart.
func directCases(ns string) *rapid.Generator[*generators.Scenario] {
	return rapid.Custom(func(t *rapid.T) *generators.Scenario {
		s := &generators.Scenario{Profile: "color-direct", Namespaces: []string{ns},
			Services: []generators.Service{{Namespace: ns, Name: "svc-1"}, {Namespace: ns, Name: "svc-2"}}}
		used := map[string]bool{}
		for range rapid.IntRange(1, 4).Draw(t, "policies") {
			created := generators.BaseTime.Add(time.Duration(rapid.IntRange(0, 2).Draw(t, "created")) * time.Second)
			s.Policies = append(s.Policies, generators.Policy{Group: "policies.controller.io", Kind: "ColorPolicy", Namespace: ns, Name: generators.DrawName(t, used), Created: &created,
				Targets: []generators.Target{{Kind: "Service", Name: rapid.SampledFrom([]string{"svc-1", "svc-2"}).Draw(t, "target")}},
				Spec:    map[string]any{"color": rapid.SampledFrom([]any{"red", "blue"}).Draw(t, "color")}})
		}
		return s
	})
}

// TestFuzzDrawnWithChanges: drawn cases with steps, judged state by state; the
// reference agrees with itself on every one, and an implementation that
// lets newer policies win is caught, its findings shrunk to cases that
// still show them.
func TestFuzzDrawnWithChanges(t *testing.T) {
	gen := func(i int) generators.Case {
		return generators.Cases(directCases(fmt.Sprintf("case-%d", i)), 3).Example(i)
	}
	run := Run{Observer: mutated(""), Profile: "color-direct", Generate: gen, Checks: 40, Steps: 3}
	sum, err := Fuzz(context.Background(), run, io.Discard)
	if err != nil || len(sum.Disagree) > 0 {
		t.Fatalf("the reference disagrees with itself on drawn cases: %v, %d disagreements", err, len(sum.Disagree))
	}
	run.Observer = mutated(engine.MutantNewerWins)
	if sum, err = Fuzz(context.Background(), run, io.Discard); err != nil || len(sum.Disagree) == 0 || len(sum.Findings) == 0 {
		t.Fatalf("newer-wins passes 40 drawn cases with steps: %v", err)
	}
	for _, f := range sum.Findings {
		if len(f.Small.Case.Steps) > f.StepsFrom || f.Small.Case.Objects() > f.ObjectsFrom || !slices.Contains(f.Small.Kinds(), f.Kind) {
			t.Errorf("finding %s: shrunk to %d steps, %d objects, showing %v", f.Kind, len(f.Small.Case.Steps), f.Small.Case.Objects(), f.Small.Kinds())
		}
	}
}
