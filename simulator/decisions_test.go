package simulator

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

func decisions(t *testing.T, file string, target ref.Ref) PathDecisions {
	t.Helper()
	m, err := LoadFiles([]string{file}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := m.Explain(m.Run(engine.StickyOverrides, nil), target)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Decisions) != 1 {
		t.Fatalf("%d paths through %s, want 1", len(x.Decisions), target)
	}
	return x.Decisions[0]
}

// Kuadrant RFC, Example F1: the route's unset removes the gateway's merged
// default b; explain says so.
func TestDecideKuadrantUnset(t *testing.T) {
	d := decisions(t, "../scenarios/kuadrant/f1-unset-default.yaml", ref.Ref{Kind: "HTTPRoute", Namespace: "default", Name: "route"})
	found := false
	for _, u := range d.NotInEffect {
		if u.Field == "rules.authorization.b" {
			found = true
			if u.Reason != "unset by AuthPolicy/default/route-policy" {
				t.Errorf("rules.authorization.b not in effect because %q, want unset by route-policy", u.Reason)
			}
		}
	}
	if !found {
		t.Errorf("rules.authorization.b is not reported as not in effect: %+v", d.NotInEffect)
	}
}

// GEP-2649, Hierarchy (CDNCachingPolicy): cdn.enabled comes from the
// Gateway's override, includeQueryString from the route's default, which
// beats the Gateway's default.
func TestDecideFieldLevelSteps(t *testing.T) {
	d := decisions(t, "../scenarios/gep-2649/cdncaching.yaml", ref.Ref{Kind: "HTTPRoute", Namespace: "appns", Name: "example"})
	steps := map[string]FieldDecision{}
	for _, f := range d.Fields {
		steps[f.Field] = f
	}
	if f := steps["cdn.enabled"]; !strings.HasPrefix(f.Step, "override at Gateway/appns/example") {
		t.Errorf("cdn.enabled: %+v, want an override at the Gateway", f)
	}
	if f := steps["cdn.cachePolicy.includeQueryString"]; !strings.HasPrefix(f.Step, "default at HTTPRoute/appns/example") || !strings.HasSuffix(f.From, "route-cdn") {
		t.Errorf("includeQueryString: %+v, want the route's default", f)
	}
	beaten := false
	for _, u := range d.NotInEffect {
		beaten = beaten || u.Field == "cdn.cachePolicy.includeQueryString" && strings.HasSuffix(u.Policy, "gateway-cdn")
	}
	if !beaten {
		t.Errorf("the Gateway's includeQueryString default is not reported as beaten: %+v", d.NotInEffect)
	}
}

// decideFiles are the inputs the Decide properties run over: every scenario
// and the stacked Patch overrides of testdata.
func decideFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, g := range []string{"../scenarios/*/*.yaml", "../scenarios/findings/*/*.yaml", "testdata/*.yaml"} {
		fs, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	if len(files) < 10 {
		t.Fatalf("only %d input files", len(files))
	}
	return files
}

// Decide agrees with the engine: every field it reports beaten names the
// policy that simulate's beaten names for that field on that path, every
// field simulate reports beaten on a path is reported by Decide, and the
// answer is the same on every call (it used to depend on map order).
func TestDecideAgreesWithBeaten(t *testing.T) {
	for _, file := range decideFiles(t) {
		m, err := LoadFiles([]string{file}, nil, Options{})
		if err != nil {
			continue // bad input is tested elsewhere
		}
		for _, sem := range []engine.Semantics{engine.StickyOverrides, engine.GEP713} {
			checkDecideAgrees(t, file, m, sem)
		}
	}
}

func checkDecideAgrees(t *testing.T, file string, m *Model, sem engine.Semantics) {
	t.Helper()
	out := m.RunDecisions(sem)
	if plain := m.Run(sem, nil); !reflect.DeepEqual(jsonOf(t, plain), jsonOf(t, out)) {
		t.Fatalf("%s [%s]: RunDecisions and Run differ in JSON", file, sem)
	}
	// What simulate says, with every path (explain --policy's detail).
	type key struct{ policy, field, path string }
	want := map[key]string{}
	for _, p := range out.Policies {
		r := mustParse(t, p.Ref)
		for _, ps := range m.run(sem, nil, &r, false).Policies {
			if ps.Ref != p.Ref {
				continue
			}
			for _, b := range ps.Beaten {
				if len(b.Examples) != b.Paths {
					t.Fatalf("%s [%s]: %s beaten on %d paths, %d listed with Detail", file, sem, b.Field, b.Paths, len(b.Examples))
				}
				for _, ex := range b.Examples {
					want[key{p.Ref, b.Field, pathKey(ex)}] = b.By
				}
			}
		}
	}
	none := map[string]bool{}
	for _, k := range m.Kinds {
		none[k.Profile.Spec.Policy.Kind] = k.Profile.Implements(profile.None)
	}
	got := map[key]string{}
	for _, e := range out.EffectivePolicies {
		d := m.Decide(out, e)
		for i := 0; i < 20; i++ {
			if again := m.Decide(out, e); !reflect.DeepEqual(again, d) {
				t.Fatalf("%s [%s] %v: Decide differs between calls:\n%+v\n%+v", file, sem, e.Path, d, again)
			}
		}
		for _, f := range d.Fields {
			if f.From != e.Provenance[f.Field] {
				t.Errorf("%s [%s] %v: %s from %s, provenance says %s", file, sem, e.Path, f.Field, f.From, e.Provenance[f.Field])
			}
		}
		for _, u := range d.NotInEffect {
			by, ok := strings.CutPrefix(u.Reason, "beaten by ")
			if !ok {
				by, ok = strings.CutPrefix(u.Reason, "unset by ")
			}
			if !ok {
				t.Errorf("%s [%s] %v: %s of %s not in effect, no policy named: %q", file, sem, e.Path, u.Field, u.Policy, u.Reason)
				continue
			}
			by, _, _ = strings.Cut(by, ": ")
			if none[e.PolicyKind] {
				// None: simulate's beaten lists no field; the established
				// policy of the path, whose spec is the effective one, beat
				// every other.
				for f, from := range e.Provenance {
					if from != by {
						t.Errorf("%s [%s] %v: %s of %s beaten by %s, but %s is from %s", file, sem, e.Path, u.Field, u.Policy, by, f, from)
					}
				}
				continue
			}
			got[key{u.Policy, u.Field, pathKey(e.Path)}] = by
		}
	}
	for k, by := range want {
		if got[k] != by {
			t.Errorf("%s [%s]: %s of %s on %s: simulate says beaten by %s, explain says %q", file, sem, k.field, k.policy, k.path, by, got[k])
		}
	}
	for k, by := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s [%s]: %s of %s on %s: explain says beaten by %s, simulate does not list it beaten", file, sem, k.field, k.policy, k.path, by)
		}
	}
}

// The reviewer's case: two Patch overrides at a Gateway set a.b and a.c, a
// Patch default below sets a. The default's a is beaten by o2, as simulate
// reports (o2's patch gives the merged object), on every run.
func TestDecideStackedPatchOverrides(t *testing.T) {
	for i := 0; i < 20; i++ {
		d := decisions(t, "testdata/stacked-patch-overrides.yaml", ref.Ref{Kind: "Service", Namespace: "default", Name: "b1"})
		want := []Unapplied{{Policy: "ColorPolicy/default/d", Field: "a", Reason: "beaten by ColorPolicy/default/o2"}}
		if !reflect.DeepEqual(d.NotInEffect, want) {
			t.Fatalf("run %d: not in effect %+v, want %+v", i, d.NotInEffect, want)
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// GEP-2649, Hierarchy: a value a policy sets in its overrides stanza wins as
// an override. The map field of field-types-map is set only by the
// "override" policy's overrides, and explain used to call it a default
// (it re-derived the rule from the stanzas instead of asking the engine).
func TestDecideOverrideOfAMap(t *testing.T) {
	d := decisions(t, "../scenarios/gep-2649/field-types-map.yaml", ref.Ref{Kind: "HTTPRoute", Namespace: "appns", Name: "r"})
	for _, f := range d.Fields {
		if f.Field == "mapKey" && !strings.HasPrefix(f.Step, "override at HTTPRoute/appns/r") {
			t.Errorf("mapKey: %+v, want an override at the route", f)
		}
	}
}

// GEP-713, Hierarchy: "defaults ... the more specific wins; overrides ...
// the less specific wins". A policy targeting both a Gateway and a route on
// the path is stacked twice; explain names the attachment whose rule
// decided: the route for defaults, the Gateway for overrides.
func TestDecideAttachmentThatDecided(t *testing.T) {
	const objects = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: example}
spec: {controllerName: example.com/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g1}
spec:
  gatewayClassName: example
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r1}
spec:
  parentRefs: [{name: g1}]
  rules: [{backendRefs: [{name: b1, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: b1}
spec: {ports: [{port: 80}]}
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p}
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: g1}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r1}
`
	for _, tc := range []struct{ stanza, at string }{
		{"defaults", "Atomic defaults at HTTPRoute/default/r1"},
		{"overrides", "Atomic overrides at Gateway/default/g1"},
	} {
		m, err := LoadFiles([]string{"-"}, strings.NewReader(objects+"  "+tc.stanza+": {color: red}\n"), Options{Profiles: []string{"color-inherited"}})
		if err != nil {
			t.Fatal(err)
		}
		x, err := m.Explain(m.RunDecisions(engine.StickyOverrides), ref.Ref{Kind: "Service", Namespace: "default", Name: "b1"})
		if err != nil {
			t.Fatal(err)
		}
		if len(x.Decisions) != 1 || len(x.Decisions[0].Fields) != 1 || x.Decisions[0].Fields[0].Step != tc.at {
			t.Errorf("%s: %+v, want the step %q", tc.stanza, x.Decisions, tc.at)
		}
	}
}
