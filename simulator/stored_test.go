package simulator

import (
	"slices"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/engine"
)

// storedDocs: a policy kind served from a CRD whose schema prunes nulls
// and defaults retry.numRetries to 2 (profile spec.stored; Kubernetes,
// "Defaulting and Nullable"), merged as RFC 7386 merge patches (GEP-713,
// Patch defaults). gw-policy on the Gateway sets a timeout and 5 retries;
// route-policy on the route writes timeout null and an empty retry.
const storedDocs = `apiVersion: gepcheck.dev/v1alpha1
kind: PolicyProfile
metadata: {name: stored-retry}
spec:
  policy: {group: example.io, kind: RetryPolicy}
  targets:
  - {group: gateway.networking.k8s.io, kind: Gateway}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute}
  effectiveTargets: [{group: gateway.networking.k8s.io, kind: HTTPRoute}]
  mergeStrategies: [PatchDefaults]
  stored:
    pruneNulls: true
    defaults: {retry.numRetries: 2}
---
apiVersion: example.io/v1
kind: RetryPolicy
metadata: {name: gw-policy, namespace: ns}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  timeout: 5s
  retry: {numRetries: 5}
---
apiVersion: example.io/v1
kind: RetryPolicy
metadata: {name: route-policy, namespace: ns}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  timeout: null
  retry: {}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gc}
spec: {controllerName: example.io/c}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: ns}
spec:
  gatewayClassName: gc
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: ns}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: s, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r2, namespace: ns}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: s, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: s, namespace: ns}
spec: {ports: [{port: 80}]}
`

// TestStoredAttribution: the 2 the schema stored for route-policy is
// attributed to the CRD default, stored for route-policy, in provenance
// (storedDefaults) and in explain's decisions; the 5 route-r2 inherits is
// gw-policy's own. As stored, route-policy is {retry: {numRetries: 2}}
// and its merge patch onto gw-policy's spec (RFC 7386) keeps the timeout.
func TestStoredAttribution(t *testing.T) {
	m := loadYAML(t, storedDocs, Options{})
	out := m.Run(engine.StickyOverrides, nil)
	byRoute := map[string]engine.EffectivePolicy{}
	for _, e := range out.EffectivePolicies {
		byRoute[e.Path[len(e.Path)-1]] = e
	}
	r, r2 := byRoute["HTTPRoute/ns/r"], byRoute["HTTPRoute/ns/r2"]
	if got, want := asJSON(t, r.Spec), wantJSON(t, `{"retry":{"numRetries":2},"timeout":"5s"}`); got != want {
		t.Fatalf("route r: effective %s, want %s", got, want)
	}
	if r.Provenance["retry.numRetries"] != "RetryPolicy/ns/route-policy" || !slices.Equal(r.StoredDefaults, []string{"retry.numRetries"}) {
		t.Errorf("route r: provenance %v, stored defaults %v; want retry.numRetries from route-policy, a stored default", r.Provenance, r.StoredDefaults)
	}
	if r2.StoredDefaults != nil {
		t.Errorf("route r2: stored defaults %v, want none: gw-policy's author wrote every field", r2.StoredDefaults)
	}
	d := m.Decide(out, r)
	for _, f := range d.Fields {
		if want := f.Field == "retry.numRetries"; f.StoredDefault != want {
			t.Errorf("explain: field %s storedDefault %v, want %v", f.Field, f.StoredDefault, want)
		}
	}
	if got := engine.StoredDefaultSource(r.PolicyKind, r.Provenance["retry.numRetries"]); got != "RetryPolicy CRD default, stored for RetryPolicy/ns/route-policy" {
		t.Errorf("source %q", got)
	}
}

// TestStoredWarnings: as written, route-policy's null deletes the timeout
// (RFC 7386: a null removes the field) and its empty retry keeps the 5;
// as stored, the null is pruned and the default 2 replaces the 5. Each
// change is one warning, byte-identical whatever the document order, and
// a run whose policies storing leaves alone has no intent as written, no
// second run and no warning.
func TestStoredWarnings(t *testing.T) {
	want := []string{
		`a null for timeout in RetryPolicy/ns/route-policy is pruned by the API server: the merge patch does not delete timeout (timeout: "5s" from RetryPolicy/ns/gw-policy stays in effect; Kubernetes, Defaulting and Nullable) (on 1 path(s), e.g. Gateway/ns/gw > HTTPRoute/ns/r)`,
		`retry.numRetries: 2 from the RetryPolicy CRD default, stored for RetryPolicy/ns/route-policy replaces 5 from RetryPolicy/ns/gw-policy: the API server set it when it stored the policy (Kubernetes, Defaulting and Nullable) (on 1 path(s), e.g. Gateway/ns/gw > HTTPRoute/ns/r)`,
	}
	docs := strings.Split(storedDocs, "\n---\n")
	for _, order := range []string{"as written", "reversed"} {
		in := slices.Clone(docs)
		if order == "reversed" {
			slices.Reverse(in)
		}
		for _, sem := range []engine.Semantics{engine.StickyOverrides, engine.GEP713} {
			out := loadYAML(t, strings.Join(in, "\n---\n"), Options{}).Run(sem, nil)
			if !slices.Equal(out.Warnings, want) {
				t.Errorf("%s, %s: warnings\n%s\nwant\n%s", order, sem, strings.Join(out.Warnings, "\n"), strings.Join(want, "\n"))
			}
			if len(out.Written) != 1 || asJSON(t, out.Written[0].Spec) != wantJSON(t, `{"retry":{"numRetries":5}}`) {
				t.Errorf("%s, %s: as written %s, want route r's {retry: {numRetries: 5}}", order, sem, asJSON(t, out.Written))
			}
		}
	}
	// The same policies written as the API server stores them: nothing
	// changes when they are stored.
	plain := strings.Replace(strings.Replace(storedDocs, "  timeout: null\n  retry: {}", "  retry: {numRetries: 2}", 1), "retry: {numRetries: 5}", "retry: {numRetries: 5}", 1)
	m := loadYAML(t, plain, Options{})
	for _, k := range m.Kinds {
		for _, p := range k.Policies {
			if p.Intent.Written != nil || p.Intent.Stored != nil {
				t.Errorf("%s: storing changes nothing, yet it carries an intent as written", p.Ref)
			}
		}
	}
	if out := m.Run(engine.StickyOverrides, nil); len(out.Warnings) != 0 || out.Written != nil || out.Stored != nil {
		t.Errorf("nothing stored differently, yet warnings %v, as written %v", out.Warnings, out.Written)
	}
}
