package incluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/features"
	"github.com/gepcheck/gepcheck/suite/observe"
)

const crossNamespace = `apiVersion: gepcheck.dev/v1alpha1
kind: Scenario
metadata: {name: cross}
spec:
  citation: test
  profiles: [color-inherited]
  expect: {}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gc}
spec: {controllerName: example.com/other}
---
apiVersion: v1
kind: Namespace
metadata: {name: infra, labels: {team: infra}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: gc
  listeners:
  - name: http
    port: 80
    protocol: HTTP
    allowedRoutes:
      namespaces:
        from: Selector
        selector: {matchLabels: {kubernetes.io/metadata.name: apps}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: apps}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: apps}
spec:
  clusterIP: 10.1.2.3
  ports: [{port: 80}]
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: newer, namespace: infra, creationTimestamp: "2024-01-01T00:00:05Z"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  color: red
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: older, namespace: apps, creationTimestamp: "2024-01-01T00:00:01Z"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  color: blue
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: tie, namespace: apps, creationTimestamp: "2024-01-01T00:00:01Z"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  color: green
`

func writeScenario(t *testing.T, body string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "cross.yaml")
	if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func find(p *Plan, kind, name string) *unstructured.Unstructured {
	for _, u := range p.ScenarioObjects() {
		if u.GetKind() == kind && (u.GetName() == name || strings.HasSuffix(u.GetName(), "-"+name)) {
			return u
		}
	}
	return nil
}

// Every reference follows the renaming, and policies are grouped by their
// intended creationTimestamp, oldest first (GEP-713, Conflict resolution
// rule 2: the API server sets the timestamps, to the second).
func TestPlanRewritesAndOrders(t *testing.T) {
	p, err := NewPlan(writeScenario(t, crossNamespace), Target{Run: "r1", Index: 7, ControllerName: "example.com/mine", Features: features.All, Endpoints: true,
		Annotations: func(profiles []string, partition string) map[string]string {
			return map[string]string{"example.com/profiles": strings.Join(profiles, ","), "example.com/partition": partition}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Skip != "" {
		t.Fatalf("skipped: %s", p.Skip)
	}
	infra, apps := p.Namespaces["infra"], p.Namespaces["apps"]
	if infra != "gc-r1-7-infra" || apps != "gc-r1-7-apps" {
		t.Fatalf("namespaces %v", p.Namespaces)
	}
	gc := find(p, "GatewayClass", "gc")
	if gc == nil || gc.GetName() != "gc-r1-7-gc" {
		t.Fatalf("GatewayClass not renamed: %v", gc)
	}
	if c, _, _ := unstructured.NestedString(gc.Object, "spec", "controllerName"); c != "example.com/mine" {
		t.Errorf("controllerName %q", c)
	}
	gw := find(p, "Gateway", "gw")
	if cls, _, _ := unstructured.NestedString(gw.Object, "spec", "gatewayClassName"); cls != "gc-r1-7-gc" {
		t.Errorf("gatewayClassName %q", cls)
	}
	ls, _, _ := unstructured.NestedSlice(gw.Object, "spec", "listeners")
	sel, _, _ := unstructured.NestedString(ls[0].(map[string]any), "allowedRoutes", "namespaces", "selector", "matchLabels", "kubernetes.io/metadata.name")
	if sel != apps {
		t.Errorf("namespace selector %q, want %q", sel, apps)
	}
	r := find(p, "HTTPRoute", "r")
	refs, _, _ := unstructured.NestedSlice(r.Object, "spec", "parentRefs")
	if ns := refs[0].(map[string]any)["namespace"]; ns != infra || r.GetNamespace() != apps {
		t.Errorf("route %s/%s parentRef namespace %v", r.GetNamespace(), r.GetName(), ns)
	}
	svc := find(p, "Service", "svc")
	if _, ok, _ := unstructured.NestedString(svc.Object, "spec", "clusterIP"); ok {
		t.Error("clusterIP kept: the API server must allocate it")
	}
	if len(p.Endpoints) != 1 || p.Endpoints[0].GetLabels()["kubernetes.io/service-name"] != "svc" || p.Endpoints[0].GetNamespace() != apps {
		t.Errorf("endpoints %v", p.Endpoints)
	}
	for _, u := range p.ScenarioObjects() {
		if u.GetLabels()["gepcheck.dev/managed-by"] != "gepcheck" || u.GetLabels()["gepcheck.dev/run"] != "r1" || u.GetLabels()["gepcheck.dev/scenario"] != "7" {
			t.Errorf("%s %s labels %v", u.GetKind(), u.GetName(), u.GetLabels())
		}
		if ts := u.GetCreationTimestamp(); !ts.IsZero() {
			t.Errorf("%s %s keeps a creationTimestamp", u.GetKind(), u.GetName())
		}
	}
	ns := find(p, "Namespace", "infra")
	if ns.GetLabels()["team"] != "infra" || ns.GetAnnotations()["example.com/profiles"] != "color-inherited" || ns.GetAnnotations()["example.com/partition"] != "r1-7" {
		t.Errorf("namespace labels %v annotations %v", ns.GetLabels(), ns.GetAnnotations())
	}
	// Policy waves: {older, tie}, then {newer}.
	var names [][]string
	for _, g := range p.PolicyWaves {
		var n []string
		for _, u := range g {
			n = append(n, u.GetName())
		}
		names = append(names, n)
	}
	if len(names) != 2 || strings.Join(names[0], ",") != "older,tie" || strings.Join(names[1], ",") != "newer" {
		t.Errorf("policy groups %v, want [[older tie] [newer]]", names)
	}
	msg := "policy ColorPolicy/gc-r1-7-apps/older@HTTPRoute/gc-r1-7-apps/r: Gateway gc-r1-7-gc"
	if got := p.Unmap(msg); got != "policy ColorPolicy/apps/older@HTTPRoute/apps/r: Gateway gc" {
		t.Errorf("Unmap: %s", got)
	}
}

func TestPlanSkips(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"../../scenarios/gep-713/abstract-process.yaml", "own PolicyProfile"},
		{"../../scenarios/kuadrant/a1-default-replaced.yaml", "AuthPolicy, which the implementation does not serve"},
		{"../../scenarios/gep-2649/cdncaching-object-fields.yaml", "ObjectFields"},
	} {
		// An implementation of ColorPolicy alone, without ObjectFields.
		p, err := NewPlan(tc.file, Target{Run: "r", Features: features.Set{"ColorPolicy", "CDNCachingPolicy"}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Skip, tc.want) {
			t.Errorf("%s: skip %q, want it to mention %q", tc.file, p.Skip, tc.want)
		}
	}
}

// A scenario the simulator refuses is an error naming the file, not a skip.
func TestPlanBadScenario(t *testing.T) {
	f := writeScenario(t, "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: 80}\n")
	_, err := NewPlan(f, Target{Run: "r", Features: features.All})
	if err == nil || !strings.Contains(err.Error(), "cross.yaml") {
		t.Errorf("error %v, want one naming the file", err)
	}
}

// orderNotes says when the stored creationTimestamps do not keep the
// intended order (GEP-713, Conflict resolution rule 2): a wave meant to share
// one that straddles two seconds, or a wave not newer than the one before.
func TestOrderNotes(t *testing.T) {
	pol := func(name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"kind": "ColorPolicy", "metadata": map[string]any{"name": name, "namespace": "ns"}}}
	}
	at := func(u *unstructured.Unstructured, sec, ms int) *unstructured.Unstructured {
		c := u.DeepCopy()
		c.SetCreationTimestamp(metav1.NewTime(time.Date(2026, 1, 1, 0, 0, sec, ms*1e6, time.UTC)))
		return c
	}
	a, b, c := pol("a"), pol("b"), pol("c")
	p := &Plan{PolicyWaves: [][]*unstructured.Unstructured{{a, b}, {c}}}
	for _, tc := range []struct {
		name   string
		stored []*unstructured.Unstructured
		want   []string
	}{
		{"kept", []*unstructured.Unstructured{at(a, 1, 0), at(b, 1, 0), at(c, 2, 0)}, nil},
		{"a wave over two seconds", []*unstructured.Unstructured{at(a, 1, 0), at(b, 2, 0), at(c, 3, 0)}, []string{"meant to share a creationTimestamp"}},
		{"a wave not newer", []*unstructured.Unstructured{at(a, 1, 0), at(b, 1, 0), at(c, 1, 0)}, []string{"c (2026-01-01T00:00:01Z) is not newer than b"}},
	} {
		notes := orderNotes(p, tc.stored)
		if len(notes) != len(tc.want) {
			t.Errorf("%s: notes %q, want %d", tc.name, notes, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(notes[i], w) {
				t.Errorf("%s: note %q does not say %q", tc.name, notes[i], w)
			}
		}
	}
}

// A scenario whose expectations hold under one reading of GEP-713 only
// (its semantics:) is skipped for an implementation that claims the
// other, and planned, under the claim, for one that claims it.
func TestPlanFollowsTheClaim(t *testing.T) {
	const file = "../../scenarios/gep-713/overrides-three-levels-gep713.yaml"
	for _, tc := range []struct {
		claim engine.Semantics
		skip  bool
	}{{"", true}, {engine.StickyOverrides, true}, {engine.GEP713, false}} {
		p, err := NewPlan(file, Target{Run: "r", Features: features.All, Semantics: tc.claim})
		if err != nil {
			t.Fatal(err)
		}
		if skipped := strings.Contains(p.Skip, "holds under gep-713"); skipped != tc.skip {
			t.Errorf("claim %q: skip %q", tc.claim, p.Skip)
		}
		if !tc.skip && p.Semantics != tc.claim {
			t.Errorf("claim %q: planned under %q", tc.claim, p.Semantics)
		}
	}
}

// TestPlanSteps: a scenario's steps become plans of the state after each
// (the names of the first plan), with the objects each step deletes as
// applied before and the ones it applies as in its state.
func TestPlanSteps(t *testing.T) {
	p, err := NewPlan("../../scenarios/gep-713/steps-direct-conflict-over-time.yaml", Target{Run: "r", Index: 2, Features: features.All})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 6 {
		t.Fatalf("%d steps, want 6", len(p.Steps))
	}
	ns := p.Namespaces["default"]
	names := func(us []*unstructured.Unstructured) string {
		var out []string
		for _, u := range us {
			out = append(out, u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName())
		}
		return strings.Join(out, ",")
	}
	for i, want := range []struct{ label, del, apply string }{
		{"step 1 (add-challenger)", "", "ColorPolicy/" + ns + "/p2"},
		{"step 3 (delete-established)", "ColorPolicy/" + ns + "/p1", ""},
		{"step 5 (delete-target)", "Service/" + ns + "/b2", ""},
		{"step 6 (recreate-target)", "", "Service/" + ns + "/b2"},
	} {
		st := p.Steps[[]int{0, 2, 4, 5}[i]]
		if label := p.StateLabel(st.Index); label != want.label || st.Index != []int{1, 3, 5, 6}[i] || names(st.Delete) != want.del || names(st.Apply) != want.apply {
			t.Errorf("%s (state %d): delete [%s] apply [%s], want %s: delete [%s] apply [%s]", label, st.Index, names(st.Delete), names(st.Apply), want.label, want.del, want.apply)
		}
	}
	// The state after delete-target has no b2; its policies carry the
	// run's labels, so that cleanup finds them.
	last := p.Steps[4].State
	for _, u := range last.ScenarioObjects() {
		if u.GetKind() == "Service" && u.GetName() == "b2" {
			t.Errorf("b2 is in the state after it was deleted")
		}
		if u.GetLabels()["gepcheck.dev/run"] != "r" {
			t.Errorf("%s/%s is not labelled with the run", u.GetKind(), u.GetName())
		}
	}
	if n := len(last.PolicyObjects()); n != 1 {
		t.Errorf("%d policies after delete-target, want 1 (p2)", n)
	}
}

// A GatewayClass another implementation serves keeps its controllerName,
// and its Gateways are the plan's Others (the runner writes their ancestor
// entries; Gateway API PolicyStatus.Ancestors).
func TestPlanOtherImplementation(t *testing.T) {
	p, err := NewPlan("../../scenarios/gateway-api/backendtlspolicy-two-implementations.yaml", Target{Run: "r", Index: 3, ControllerName: "example.com/mine", Features: features.All})
	if err != nil || p.Skip != "" {
		t.Fatal(err, p.Skip)
	}
	controllers := map[string]string{}
	for _, u := range p.Objects {
		if u.GetKind() == "GatewayClass" {
			controllers[p.Unmap(u.GetName())], _, _ = unstructured.NestedString(u.Object, "spec", "controllerName")
		}
	}
	if controllers["example"] != "example.com/mine" || controllers["other"] != "example.net/other-controller" {
		t.Errorf("controllerNames %q", controllers)
	}
	if len(p.Others) != 1 || p.Others[p.Namespaces["default"]+"/gw-other"] != "example.net/other-controller" {
		t.Errorf("others %q", p.Others)
	}
}

// The status vocabulary an implementation claims (GEP-713 as merged
// upstream, "Status reporting", or its draft) is the one its plans, and
// the plans of their steps, compute the expectation in; no claim is
// merged GEP-713's. run --status-vocabulary (ClaimingVocabulary) replaces
// the claim of an implementation's capabilities, and nothing else.
func TestPlanFollowsTheVocabularyClaim(t *testing.T) {
	const file = "../../scenarios/gep-713/steps-direct-conflict-over-time.yaml"
	for _, tc := range []struct {
		claim, want engine.Vocabulary
	}{{"", engine.VocabularyMerged}, {engine.VocabularyMerged, engine.VocabularyMerged}, {engine.VocabularyDraft, engine.VocabularyDraft}} {
		p, err := NewPlan(file, Target{Run: "r", Features: features.All, Vocabulary: tc.claim})
		if err != nil {
			t.Fatal(err)
		}
		if p.Vocabulary != tc.want {
			t.Errorf("claim %q: planned in %q", tc.claim, p.Vocabulary)
		}
		for _, st := range p.Steps {
			if st.State.Vocabulary != tc.want {
				t.Errorf("claim %q: %s planned in %q", tc.claim, p.StateLabel(st.Index), st.State.Vocabulary)
			}
		}
	}
	im := ClaimingVocabulary(capsOnly{caps: Capabilities{Capabilities: observe.Capabilities{Vocabulary: engine.VocabularyMerged, Semantics: engine.GEP713}}}, engine.VocabularyDraft)
	if tg := TargetFor(im, "r", 0); tg.Vocabulary != engine.VocabularyDraft || tg.Semantics != engine.GEP713 {
		t.Errorf("claiming the draft: target in %q under %q", tg.Vocabulary, tg.Semantics)
	}
}

// capsOnly is an implementation that only has capabilities.
type capsOnly struct {
	Implementation
	caps Capabilities
}

func (c capsOnly) Capabilities() Capabilities                            { return c.caps }
func (capsOnly) ControllerName() string                                  { return "example.com/caps-only" }
func (capsOnly) NamespaceAnnotations([]string, string) map[string]string { return nil }
