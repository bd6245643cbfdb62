package envoygateway

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/cluster/local/localtest"
	"github.com/gepcheck/gepcheck/impl/reference"
	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/suite/statusrules"
)

// twoImplementations: one HTTPRoute attached to a Gateway of each
// implementation, a ColorPolicy (gepcheck-reference) and a
// BackendTrafficPolicy (Envoy Gateway) on it.
const twoImplementations = `apiVersion: v1
kind: Namespace
metadata: {name: two}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: two-ref}
spec: {controllerName: ` + reference.ControllerName + `}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: two-eg}
spec: {controllerName: ` + ControllerName + `}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw-ref, namespace: two}
spec:
  gatewayClassName: two-ref
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw-eg, namespace: two}
spec:
  gatewayClassName: two-eg
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: two}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: two}
spec:
  parentRefs: [{name: gw-ref}, {name: gw-eg}]
  rules: [{name: rule-1, backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: cp, namespace: two}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  color: red
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: btp, namespace: two}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  timeout: {http: {requestTimeout: 5s}}
`

// TestLocalTwoImplementations: GEP-713, Status needs to be namespaced by
// implementation: "Because an object can be affected by multiple
// implementations at once, any added status MUST be namespaced by the
// implementation." gepcheck-reference and Envoy Gateway's controller run
// against one local control plane, on one HTTPRoute attached to a Gateway
// of each: each writes the route's parent status only for its own Gateway
// under its controllerName, each policy's ancestors only under its own
// controllerName, every Affected condition under a domain, and a change
// one implementation acts on leaves the other's status in place.
func TestLocalTwoImplementations(t *testing.T) {
	ctx := context.Background()
	eg, err := CRDs(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	c := localtest.Start(t, append(reference.CRDs(), eg...), gotool.KubeControllerManager, ControllerTool(""))
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := (&reference.Controller{Config: c.Config}).Run(rctx); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	p, err := Start(ctx, c, Options{Dir: t.TempDir(), Log: func(s string) { t.Log(s) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)

	k, err := cluster.NewKube(c)
	if err != nil {
		t.Fatal(err)
	}
	apply := func(doc string) {
		t.Helper()
		var u unstructured.Unstructured
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		res, err := k.Resource(u.GroupVersionKind(), u.GetNamespace())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := res.Apply(ctx, u.GetName(), &u, metav1.ApplyOptions{FieldManager: "gepcheck-test", Force: true}); err != nil {
			t.Fatal(err)
		}
	}
	docs := strings.Split(twoImplementations, "\n---\n")
	for _, d := range docs {
		apply(d)
	}
	get := func(apiVersion, kind, name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(apiVersion)
		u.SetKind(kind)
		u.SetNamespace("two")
		u.SetName(name)
		got, err := k.Get(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	// wait polls until every check passes, or fails with the last
	// problems; the budget only ends a wait for status that never comes,
	// generous for two controllers on a loaded 2-core machine.
	wait := func(what string, check func() []string) {
		t.Helper()
		var problems []string
		for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(time.Second) {
			if problems = check(); len(problems) == 0 {
				return
			}
		}
		t.Fatalf("%s: %s", what, strings.Join(problems, "; "))
	}
	namespaced := func() []string {
		return namespacedProblems(get("gateway.networking.k8s.io/v1", "HTTPRoute", "r"),
			get("policies.controller.io/v1", "ColorPolicy", "cp"), get("gateway.envoyproxy.io/v1alpha1", "BackendTrafficPolicy", "btp"))
	}
	wait("status of two implementations on one route", namespaced)

	// A change each implementation acts on leaves the other's status.
	apply(strings.Replace(docs[len(docs)-2], "color: red", "color: blue", 1))
	wait("after the ColorPolicy changed", func() []string {
		cp := get("policies.controller.io/v1", "ColorPolicy", "cp")
		if !observedAt(cp, 2) {
			return []string{"gepcheck-reference has not written status for the ColorPolicy's generation 2"}
		}
		return namespaced()
	})
	apply(strings.Replace(docs[len(docs)-1], "5s", "15s", 1))
	wait("after the BackendTrafficPolicy changed", func() []string {
		btp := get("gateway.envoyproxy.io/v1alpha1", "BackendTrafficPolicy", "btp")
		if !observedAt(btp, 2) {
			return []string{"Envoy Gateway has not written status for the BackendTrafficPolicy's generation 2"}
		}
		return namespaced()
	})
}

// namespacedProblems says where the status of a route attached to gw-ref
// (gepcheck-reference) and gw-eg (Envoy Gateway) and of a policy of each
// is not namespaced by the implementation that wrote it.
func namespacedProblems(route, cp, btp *unstructured.Unstructured) []string {
	var problems []string
	parents := controllersOf(route, "parents")
	if got := parents[reference.ControllerName]; len(got) != 1 || got[0] != "gw-ref" {
		problems = append(problems, fmt.Sprintf("route parents of %s: %v, want [gw-ref]", reference.ControllerName, got))
	}
	if got := parents[ControllerName]; len(got) != 1 || got[0] != "gw-eg" {
		problems = append(problems, fmt.Sprintf("route parents of %s: %v, want [gw-eg]", ControllerName, got))
	}
	if len(parents) != 2 {
		problems = append(problems, fmt.Sprintf("route parents written by %d controllers, want 2: %v", len(parents), parents))
	}
	if a := controllersOf(cp, "ancestors"); len(a) != 1 || len(a[reference.ControllerName]) == 0 {
		problems = append(problems, fmt.Sprintf("ColorPolicy ancestors by %v, want gepcheck-reference's only", a))
	}
	if a := controllersOf(btp, "ancestors"); len(a) != 1 || len(a[ControllerName]) == 0 {
		problems = append(problems, fmt.Sprintf("BackendTrafficPolicy ancestors by %v, want Envoy Gateway's only", a))
	}
	for _, d := range statusrules.Affected([]*unstructured.Unstructured{route}, reference.ControllerName, []string{"ColorPolicy", "BackendTrafficPolicy"}) {
		problems = append(problems, d.String())
	}
	return problems
}

// controllersOf lists the names of the parents (field parents) or
// ancestors of u's status entries, by controllerName.
func controllersOf(u *unstructured.Unstructured, field string) map[string][]string {
	out := map[string][]string{}
	entries, _, _ := unstructured.NestedSlice(u.Object, "status", field)
	for _, e := range entries {
		m, _ := e.(map[string]any)
		ref, _ := m["parentRef"].(map[string]any)
		if ref == nil {
			ref, _ = m["ancestorRef"].(map[string]any)
		}
		ctl, _ := m["controllerName"].(string)
		out[ctl] = append(out[ctl], fmt.Sprint(ref["name"]))
	}
	return out
}

// TestNamespacedProblems: the checks of TestLocalTwoImplementations fail
// for status that is not namespaced: an implementation writing a parent
// entry for the other's Gateway, an ancestor under another's
// controllerName, an Affected condition without a domain.
func TestNamespacedProblems(t *testing.T) {
	entry := func(ref, ctl, name string) any {
		return map[string]any{ref: map[string]any{"name": name}, "controllerName": ctl, "conditions": []any{}}
	}
	with := func(kind string, field string, entries ...any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"kind": kind, "metadata": map[string]any{"name": "x", "namespace": "two"}}}
		_ = unstructured.SetNestedSlice(u.Object, entries, "status", field)
		return u
	}
	route := func(entries ...any) *unstructured.Unstructured { return with("HTTPRoute", "parents", entries...) }
	good := []*unstructured.Unstructured{
		route(entry("parentRef", reference.ControllerName, "gw-ref"), entry("parentRef", ControllerName, "gw-eg")),
		with("ColorPolicy", "ancestors", entry("ancestorRef", reference.ControllerName, "gw-ref")),
		with("BackendTrafficPolicy", "ancestors", entry("ancestorRef", ControllerName, "gw-eg")),
	}
	if p := namespacedProblems(good[0], good[1], good[2]); len(p) != 0 {
		t.Fatalf("namespaced status: %v", p)
	}
	affected := route(entry("parentRef", reference.ControllerName, "gw-ref"), entry("parentRef", ControllerName, "gw-eg"))
	_ = unstructured.SetNestedSlice(affected.Object, []any{map[string]any{"type": "ColorPolicyAffected", "status": "True"}}, "status", "conditions")
	for name, c := range map[string][3]*unstructured.Unstructured{
		"a parent entry for the other's Gateway": {route(entry("parentRef", reference.ControllerName, "gw-ref"), entry("parentRef", reference.ControllerName, "gw-eg"), entry("parentRef", ControllerName, "gw-eg")), good[1], good[2]},
		"an ancestor under another's name":       {good[0], good[1], with("BackendTrafficPolicy", "ancestors", entry("ancestorRef", reference.ControllerName, "gw-eg"))},
		"an Affected condition without domain":   {affected, good[1], good[2]},
	} {
		if p := namespacedProblems(c[0], c[1], c[2]); len(p) == 0 {
			t.Errorf("%s: no problem found", name)
		}
	}
}

// observedAt: every ancestor condition of u was written for generation.
func observedAt(u *unstructured.Unstructured, generation int64) bool {
	if u.GetGeneration() != generation {
		return false
	}
	ancestors, _, _ := unstructured.NestedSlice(u.Object, "status", "ancestors")
	n := 0
	for _, a := range ancestors {
		conds, _, _ := unstructured.NestedSlice(a.(map[string]any), "conditions")
		for _, c := range conds {
			n++
			if statusrules.Int(c.(map[string]any)["observedGeneration"]) != generation {
				return false
			}
		}
	}
	return n > 0
}
