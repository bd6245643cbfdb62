package simulator

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
)

func statesOf(t *testing.T, yaml string) ([]State, error) {
	t.Helper()
	docs, err := load.Read([]string{"-"}, strings.NewReader(yaml))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	m, err := Build(docs, Options{})
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return States(docs, m.Scenario)
}

const stepsHeader = `apiVersion: gepcheck.dev/v1alpha1
kind: Scenario
metadata: {name: s}
spec:
  citation: test
  profiles: [color-direct]
  expect: {effectivePolicies: []}
  steps:
`

const stepsObjects = `
---
apiVersion: v1
kind: Service
metadata: {name: b1}
spec: {ports: [{port: 80}]}
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: old, creationTimestamp: "2025-01-01T00:00:10Z"}
spec: {targetRefs: [{group: "", kind: Service, name: b1}], color: red}
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: unstamped}
spec: {targetRefs: [{group: "", kind: Service, name: b1}], color: blue}
`

func policyStep(name, policy string) string {
	return fmt.Sprintf(`  - name: %s
    apply:
    - apiVersion: policies.controller.io/v1
      kind: ColorPolicy
      metadata: {name: %s}
      spec: {targetRefs: [{group: "", kind: Service, name: b1}], color: green}
    expect: {effectivePolicies: []}
`, name, policy)
}

func timeOf(t *testing.T, st State, kind, name string) string {
	t.Helper()
	for _, d := range st.Docs {
		if d.Kind == kind && d.Name == name {
			md, _ := d.Raw["metadata"].(map[string]any)
			ts, _ := md["creationTimestamp"].(string)
			return ts
		}
	}
	t.Fatalf("step %d: no %s/%s", st.Step, kind, name)
	return ""
}

// TestStatesTime: time passes between steps as in a cluster (GEP-713,
// Conflict resolution rule 2 orders by creationTimestamp). Objects of the
// file without a creationTimestamp get one second after the latest one
// written (still newer than every written time, tied with each other); an
// object a step creates gets one more second per step; an update keeps
// the object's time; a delete and apply in one step creates it anew.
func TestStatesTime(t *testing.T) {
	steps := policyStep("add-new", "new") + policyStep("update-old", "old") +
		`  - name: recreate
    delete: [ColorPolicy/default/old]
    apply:
    - apiVersion: policies.controller.io/v1
      kind: ColorPolicy
      metadata: {name: old}
      spec: {targetRefs: [{group: "", kind: Service, name: b1}], color: red}
    expect: {effectivePolicies: []}
`
	states, err := statesOf(t, stepsHeader+steps+stepsObjects)
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 4 {
		t.Fatalf("%d states, want 4", len(states))
	}
	for _, c := range []struct {
		step       int
		name, want string
	}{
		{0, "old", "2025-01-01T00:00:10Z"},
		{0, "unstamped", "2025-01-01T00:00:11Z"},
		{1, "new", "2025-01-01T00:00:12Z"},
		{2, "old", "2025-01-01T00:00:10Z"},
		{2, "new", "2025-01-01T00:00:12Z"},
		{3, "old", "2025-01-01T00:00:14Z"},
	} {
		if got := timeOf(t, states[c.step], "ColorPolicy", c.name); got != c.want {
			t.Errorf("step %d: %s created %q, want %q", c.step, c.name, got, c.want)
		}
	}
	if got := timeOf(t, states[0], "Service", "b1"); got != "2025-01-01T00:00:11Z" {
		t.Errorf("step 0: Service b1 created %q, want the time of the file's unstamped objects", got)
	}
	if n := len(states[3].Docs); n != 4 {
		t.Errorf("step 3 holds %d objects, want 4 (b1, old, unstamped, new)", n)
	}
	// The file's own documents are left as they are.
	if _, ok := writtenTime(states[0].Docs[2].Raw); !ok {
		t.Errorf("step 0's unstamped policy has no time")
	}
}

// TestStatesWithoutSteps: a file without steps is one state, its documents
// untouched (no creationTimestamp is added).
func TestStatesWithoutSteps(t *testing.T) {
	states, err := statesOf(t, strings.Replace(stepsHeader, "  steps:\n", "", 1)+stepsObjects)
	if err != nil {
		t.Fatal(err)
	}
	if len(states) != 1 || states[0].Name != "create" {
		t.Fatalf("states %v, want one", states)
	}
	if got := timeOf(t, states[0], "ColorPolicy", "unstamped"); got != "" {
		t.Errorf("unstamped policy got creationTimestamp %q", got)
	}
}

// TestStatesErrors: each mistake in a step is exit-2 input naming its field
// and line.
func TestStatesErrors(t *testing.T) {
	for _, c := range []struct {
		name, steps, want string
	}{
		{"no name", strings.Replace(policyStep("x", "p"), "name: x", "description: d", 1), "spec.steps[0].name: is required"},
		{"two names", policyStep("x", "p") + policyStep("x", "q"), `spec.steps[1].name: "x" names two steps`},
		{"missing delete", "  - name: x\n    delete: [ColorPolicy/default/nope]\n    expect: {effectivePolicies: []}\n", "spec.steps[0].delete[0]: ColorPolicy/default/nope is not in the scenario"},
		{"bad ref", "  - name: x\n    delete: [nope]\n    expect: {effectivePolicies: []}\n", "spec.steps[0].delete[0]"},
		{"empty", "  - name: x\n    expect: {effectivePolicies: []}\n", "spec.steps[0]: changes nothing"},
		{"timestamp", strings.Replace(policyStep("x", "p"), "{name: p}", `{name: p, creationTimestamp: "2020-01-01T00:00:00Z"}`, 1), "spec.steps[0].apply[0].metadata.creationTimestamp"},
		{"bad object", strings.Replace(policyStep("x", "p"), "{name: p}", "{name: Not_A_Name}", 1), "(line 13)"},
		{"too many", strings.Repeat(policyStep("x", "p"), MaxSteps+1), fmt.Sprintf("at most %d", MaxSteps)},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := statesOf(t, stepsHeader+c.steps+stepsObjects)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestOneEntryPerTarget: two targetRefs naming one Gateway give one target
// in the policy's status, whether the Gateway exists or not (Gateway API
// PolicyStatus.Ancestors: one entry per ancestor). Found by random steps
// deleting such a Gateway on the local control plane.
func TestOneEntryPerTarget(t *testing.T) {
	for _, gw := range []string{"g1", "missing"} {
		docs := joinDocs(example2[0], example2[1], `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: twice}
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: `+gw+`}
  - {group: gateway.networking.k8s.io, kind: Gateway, name: `+gw+`}
  color: red`)
		out := simulate(t, docs, Options{Profiles: []string{"color-inherited"}})
		for _, p := range out.Policies {
			if p.Ref == "ColorPolicy/default/twice" && len(p.Targets) != 1 {
				t.Errorf("Gateway %s named twice: targets %v, want one", gw, p.Targets)
			}
		}
	}
}

// TestEmptyObjectBeatenAtomically: under Atomic defaults the established
// spec is replaced "in its entirety" and "MUST NOT be enforced in the
// scope of the HTTPRoute" (GEP-713, Merge strategy: Atomic defaults), also
// when its only field is an empty object the challenger has too; under
// Patch defaults the two empty objects merge and the established field
// stays (docs/semantics.md, An empty object beaten atomically).
func TestEmptyObjectBeatenAtomically(t *testing.T) {
	for _, c := range []struct{ strategy, reason string }{
		{"", engine.ReasonOverridden},
		{"\n  strategy: patch", engine.ReasonProgrammed},
	} {
		docs := joinDocs(example2[0], example2[1], example2[3], example2[7], `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: gp}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g1}]
  shade: {}`+c.strategy, `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: rp}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r1}]
  shade: {}`)
		out := simulate(t, docs, Options{Profiles: []string{"color-inherited"}})
		checkCondition(t, out, "ColorPolicy/default/gp", "", engine.TypeProgrammed, map[bool]string{true: "True", false: "False"}[c.reason == engine.ReasonProgrammed], c.reason, "")
	}
}

// TestStatesFaultErrors: a fault that is not valid (docs/faults.md) is
// exit-2 input naming its field in the Scenario document, also in a
// scenario without steps.
func TestStatesFaultErrors(t *testing.T) {
	withFaults := func(steps, faults string) string {
		return strings.Replace(stepsHeader, "  steps:\n", steps+"  faults:\n"+faults, 1) + stepsObjects
	}
	oneStep := "  steps:\n" + policyStep("x", "p")
	for _, c := range []struct {
		name, steps, faults, want string
	}{
		{"kind", "", "  - {kind: crash, state: 0}\n", `spec.faults[0].kind: "crash" is not a kind of fault`},
		{"state past the last", oneStep, "  - {kind: restart, state: 2}\n", "spec.faults[0].state: 2 is not a state of the case (0 to 1"},
		{"no steps", "", "  - {kind: burst, state: 1}\n", "spec.faults[0].state: 1 is not a state"},
		{"writes for burst", "", "  - {kind: burst, state: 0, afterWrites: 2}\n", "spec.faults[0].afterWrites: is for restart and apiserver faults only"},
		{"writes over the limit", "", "  - {kind: restart, state: 0, afterWrites: 65}\n", "spec.faults[0].afterWrites: 65 is not between 0 and 64"},
		{"delay", "", "  - {kind: delay, state: 0, maxDelay: 1m}\n", "spec.faults[0].maxDelay: 1m0s is not above 0 and at most 5s"},
		{"delay not a duration", "", "  - {kind: delay, state: 0, maxDelay: soon}\n", `spec.faults[0].maxDelay: "soon" is not a duration`},
		{"misop at creation", oneStep, "  - {kind: misop, state: 0, op: target-recreated}\n", "spec.faults[0].state: a misoperation is a step"},
		{"misop op", oneStep, "  - {kind: misop, state: 1, op: oops}\n", `spec.faults[0].op: "oops" is not a misoperation`},
		{"op for restart", "", "  - {kind: restart, state: 0, op: targetrefs-moved}\n", "spec.faults[0].op: is for misop faults only"},
		{"too many", "", strings.Repeat("  - {kind: burst, state: 0}\n", 17), "spec.faults: has 17 faults; at most 16"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := statesOf(t, withFaults(c.steps, c.faults))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "line ") {
				t.Fatalf("error %v, want one containing %q and its line", err, c.want)
			}
		})
	}
	states, err := statesOf(t, withFaults(oneStep, "  - {kind: restart, state: 1, afterWrites: 2}\n  - {kind: delay, state: 0, seed: 7, maxDelay: 800ms}\n  - {kind: misop, state: 1, op: targetrefs-moved}\n"))
	if err != nil || len(states) != 2 {
		t.Fatalf("valid faults: %d states, %v", len(states), err)
	}
}
