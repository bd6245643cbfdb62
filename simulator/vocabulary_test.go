package simulator

import (
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/engine"
)

// The two status vocabularies word one outcome: GEP-713 as merged
// (gateway-api v1.6.3, "Status reporting", Status conditions: Programmed,
// PartiallyProgrammed, Overridden) and its 2025 draft ("Policy status":
// Enforced, PartiallyEnforced, Overridden). Example 2 of GEP-713
// (End-to-end examples): "p1 must be reported as partially enforced, due to
// in some cases beaten by p2", p2 and p3 "enforced", p4 "NOT enforced, due
// to being overridden by ColorPolicy p3".
func TestVocabularies(t *testing.T) {
	docs := joinDocs(example2...)
	for _, c := range []struct {
		vocab                      engine.Vocabulary
		typ, full, partial, absent string
	}{
		{"", "Programmed", "Programmed", "PartiallyProgrammed", "Enforced"},
		{engine.VocabularyMerged, "Programmed", "Programmed", "PartiallyProgrammed", "Enforced"},
		{engine.VocabularyDraft, "Enforced", "Enforced", "PartiallyEnforced", "Programmed"},
	} {
		out := loadYAML(t, docs, Options{Profiles: []string{"color-inherited"}, Vocabulary: c.vocab}).Run(engine.StickyOverrides, nil)
		want := c.vocab
		if want == "" {
			want = "merged"
		}
		if out.StatusVocabulary != want {
			t.Errorf("%q: output names vocabulary %q, want %q", c.vocab, out.StatusVocabulary, want)
		}
		checkCondition(t, out, "ColorPolicy/default/p1", "", c.typ, "True", c.partial, "ColorPolicy/default/p2")
		checkCondition(t, out, "ColorPolicy/default/p2", "", c.typ, "True", c.full)
		checkCondition(t, out, "ColorPolicy/default/p3", "", c.typ, "True", c.full)
		checkCondition(t, out, "ColorPolicy/default/p4", "", c.typ, "False", "Overridden", "ColorPolicy/default/p3")
		checkCondition(t, out, "ColorPolicy/default/p4", "HTTPRoute/default/r4", c.typ, "False", "Overridden", "ColorPolicy/default/p3")
		for _, p := range out.Policies {
			if _, ok := engine.FindCondition(p.Conditions, c.absent); ok {
				t.Errorf("%q: %s has a %s condition: %+v", c.vocab, p.Ref, c.absent, p.Conditions)
			}
		}
	}
}

// GEP-713 as merged, Status conditions: "Non-accepted policy objects are
// also not Programmed and not Overridden" (and its table: Accepted False,
// Programmed ∅).
func TestNotAcceptedNotProgrammed(t *testing.T) {
	docs := joinDocs(append(example2[:len(example2):len(example2)], `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: lost}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: nowhere}]
  color: pink`)...)
	out := simulate(t, docs, Options{Profiles: []string{"color-inherited"}})
	p := policyStatus(t, out, "ColorPolicy/default/lost")
	if len(p.Conditions) != 1 || p.Conditions[0].Type != "Accepted" || p.Conditions[0].Status != "False" {
		t.Errorf("a policy whose target is missing: %+v, want only Accepted=False", p.Conditions)
	}
	for _, pt := range p.Targets {
		for _, c := range pt.Conditions {
			if c.Type != "Accepted" {
				t.Errorf("target %s of a non-accepted policy has %s", pt.Ref, c.Type)
			}
		}
	}
}

// Under gep713 the policy named as a field's overrider is the one that
// decided the path. An older Patch default a-default and a newer Atomic
// override b-override on one Gateway are merged first (a-default's
// strategy: the override's color wins, the result carries b-override's
// strategy); the route's policy r is then beaten by that Atomic override
// (GEP-713, Merge strategy: Atomic overrides, "the policy attached to the
// HTTPRoute MUST NOT be enforced"). Until 2026-11-27 the message named
// a-default, itself overridden, because the merged spec's root came from
// it.
func TestGEP713OverriderDecides(t *testing.T) {
	docs := joinDocs(example2[0], example2[1], example2[3], example2[7], `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: a-default, creationTimestamp: "2025-01-01T00:00:00Z"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g1}]
  strategy: patch
  color: red`, `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: b-override, creationTimestamp: "2025-01-02T00:00:00Z"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g1}]
  overrides: {color: green}`, `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: r, creationTimestamp: "2025-01-03T00:00:00Z"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r1}]
  size: 1`)
	for _, sem := range []engine.Semantics{engine.GEP713, engine.StickyOverrides} {
		out := loadYAML(t, docs, Options{Profiles: []string{"color-inherited"}}).Run(sem, nil)
		checkCondition(t, out, "ColorPolicy/default/r", "", "Programmed", "False", "Overridden", "by ColorPolicy/default/b-override")
		checkCondition(t, out, "ColorPolicy/default/a-default", "", "Programmed", "False", "Overridden", "by ColorPolicy/default/b-override")
		c, _ := engine.FindCondition(policyStatus(t, out, "ColorPolicy/default/r").Conditions, "Programmed")
		if strings.Contains(c.Message, "a-default") {
			t.Errorf("%s: r's message names a-default, which decided nothing: %s", sem, c.Message)
		}
	}
}

// A policy whose spec proper sets no value (an empty object, a merge patch
// of only nulls) is in effect or overridden by a reading neither GEP-713
// text settles (docs/semantics.md, A policy that sets no value): its
// condition says so and is marked Undefined, which no comparison judges; a
// policy that sets a value is not marked.
func TestNoValueUndefined(t *testing.T) {
	for _, spec := range []string{"shade: {}", "strategy: patch\n  color: null", "overrides: {}"} {
		docs := joinDocs(example2[0], example2[1], example2[3], example2[7], `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: empty}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g1}]
  `+spec, `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: r}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r1}]
  color: blue`)
		for _, vocab := range []engine.Vocabulary{engine.VocabularyMerged, engine.VocabularyDraft} {
			out := loadYAML(t, docs, Options{Profiles: []string{"color-inherited"}, Vocabulary: vocab}).Run(engine.StickyOverrides, nil)
			for _, p := range out.Policies {
				for _, c := range p.Conditions {
					if c.Type == "Accepted" {
						continue
					}
					empty := p.Ref == "ColorPolicy/default/empty"
					if got := c.Undefined != ""; got != empty {
						t.Errorf("%q, %s: %s %s/%s Undefined=%q", spec, vocab, p.Ref, c.Type, c.Reason, c.Undefined)
					}
					if empty && !strings.Contains(c.Message, "docs/semantics.md") {
						t.Errorf("%q, %s: the message does not say the reading is not settled: %s", spec, vocab, c.Message)
					}
				}
			}
		}
	}
}

// No path through g2 reaches an effective target (it has no routes): the
// condition is Unknown in merged GEP-713's words (no reason of the text
// fits), the draft's False/Unknown, and Undefined in both, which no
// comparison judges (docs/semantics.md, Status vocabularies).
func TestUnreachedUndefined(t *testing.T) {
	docs := joinDocs(example2[0], example2[1], example2[2], example2[3], example2[7], `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: lonely}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g2}]
  color: pink`)
	for _, c := range []struct {
		vocab               engine.Vocabulary
		typ, status, reason string
	}{
		{engine.VocabularyMerged, "Programmed", "Unknown", "Unknown"},
		{engine.VocabularyDraft, "Enforced", "False", "Unknown"},
	} {
		out := loadYAML(t, docs, Options{Profiles: []string{"color-inherited"}, Vocabulary: c.vocab}).Run(engine.StickyOverrides, nil)
		checkCondition(t, out, "ColorPolicy/default/lonely", "", c.typ, c.status, c.reason, "no path reaches an effective target")
		cond, _ := engine.FindCondition(policyStatus(t, out, "ColorPolicy/default/lonely").Conditions, c.typ)
		if cond.Undefined == "" {
			t.Errorf("%s: %+v not marked Undefined", c.vocab, cond)
		}
	}
}

// PartiallyProgrammed "SHOULD include details highlighting which parts of
// the policy/scope are reconciled and which parts have been superseded, with
// the references to all other related policies" (GEP-713, Status
// conditions): past the eight fields a message details, the policies that
// superseded the rest are still named.
func TestPartiallyProgrammedNamesAllSuperseders(t *testing.T) {
	docs := joinDocs(example2[0], example2[1], example2[3], example2[7], `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: gp}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g1}]
  strategy: patch
  f: {f1: a, f2: a, f3: a, f4: a, f5: a, f6: a, f7: a, f8: a, f9: a, keep: a}`, `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: rp}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r1}]
  strategy: patch
  f: {f1: b, f2: b, f3: b, f4: b, f5: b}`, `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: zs}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r1}]
  strategy: patch
  f: {f6: c, f7: c, f8: c, f9: c}`)
	out := simulate(t, docs, Options{Profiles: []string{"color-inherited"}})
	checkCondition(t, out, "ColorPolicy/default/gp", "", "Programmed", "True", "PartiallyProgrammed",
		"f.f1 by ColorPolicy/default/rp on 1 path",
		"and 1 more; the policies that superseded a field: ColorPolicy/default/rp, ColorPolicy/default/zs")
}
