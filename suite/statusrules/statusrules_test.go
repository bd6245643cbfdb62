package statusrules

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/compare"
)

// policyWithStatus is a policy at generation 2 with the given ancestor
// entries.
func policyWithStatus(entries ...map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.io/v1", "kind": "P", "metadata": map[string]any{"name": "p", "namespace": "ns", "generation": int64(2)}}}
	var as []any
	for _, e := range entries {
		as = append(as, e)
	}
	_ = unstructured.SetNestedSlice(u.Object, as, "status", "ancestors")
	return u
}

func entry(ancestor, controller string, conds ...map[string]any) map[string]any {
	var cs []any
	for _, c := range conds {
		cs = append(cs, c)
	}
	return map[string]any{"ancestorRef": map[string]any{"name": ancestor}, "controllerName": controller, "conditions": cs}
}

func cond(typ, status, reason string, gen int64) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "observedGeneration": gen, "lastTransitionTime": "2026-01-01T00:00:00Z", "message": "m"}
}

// Each status rule holds on a well-formed status and is broken by the
// status that breaks it, and only the implementation's own entries are
// judged (GEP-713: implementations populate the ancestors they are
// responsible for).
func TestStatusRules(t *testing.T) {
	const me = "example.com/me"
	good := cond("Accepted", "True", "Accepted", 2)
	noLTT := cond("Accepted", "True", "Accepted", 2)
	delete(noLTT, "lastTransitionTime")
	for _, tc := range []struct {
		name   string
		policy *unstructured.Unstructured
		want   []string
	}{
		{"well-formed", policyWithStatus(entry("gw", me, good, cond("Enforced", "False", "Overridden", 2))), nil},
		{"another controller's entry", policyWithStatus(entry("gw", me, good), entry("gw", "other.io/x", cond("Accepted", "Yes", "Whatever", 1))), nil},
		{"stale generation", policyWithStatus(entry("gw", me, cond("Accepted", "True", "Accepted", 1))), []string{"observed-generation"}},
		{"reason outside the Go spec", policyWithStatus(entry("gw", me, cond("Accepted", "False", "NoStatus", 2))), []string{"accepted-reason"}},
		{"a reason of another kind", policyWithStatus(entry("gw", me, cond("Accepted", "False", "NoValidCACertificate", 2))), []string{"accepted-reason"}},
		{"not a condition", policyWithStatus(entry("gw", me, noLTT)), []string{"conditions-are-conditions"}},
		{"a condition type twice", policyWithStatus(entry("gw", me, good, cond("Accepted", "False", "Conflicted", 2))), []string{"conditions-are-conditions"}},
		{"status not True/False/Unknown", policyWithStatus(entry("gw", me, cond("Accepted", "Yes", "Accepted", 2))), []string{"conditions-are-conditions"}},
		{"ancestor twice", policyWithStatus(entry("gw", me, good), entry("gw", me, good)), []string{"one-entry-per-ancestor"}},
		{"strategy by its API name", policyWithStatus(entry("gw", me, withMessage(cond("Enforced", "True", "Enforced", 2), "merged with p1 (JSONMerge)"))), []string{"strategy-names"}},
		{"strategy by GEP-713's name", policyWithStatus(entry("gw", me, withMessage(cond("Enforced", "True", "Enforced", 2), "Patch defaults: merged with p1"))), nil},
	} {
		var got []string
		for _, d := range Policies([]*unstructured.Unstructured{tc.policy}, me, []string{"JSONMerge"}, true, nil, engine.VocabularyDraft) {
			if d.Kind != compare.StatusRule || d.Ref != "P/ns/p" {
				t.Errorf("%s: difference %+v", tc.name, d)
			}
			got = append(got, d.Condition)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: broken %q, want %q", tc.name, got, tc.want)
		}
	}
}

// Gateway API's Go spec adds NoValidCACertificate to the reasons of a
// BackendTLSPolicy's Accepted condition (BackendTLSPolicyReasonNoValidCACertificate).
func TestAcceptedReasonOfKind(t *testing.T) {
	p := policyWithStatus(entry("gw", "example.com/me", cond("Accepted", "False", "NoValidCACertificate", 2)))
	p.SetKind("BackendTLSPolicy")
	if d := Policies([]*unstructured.Unstructured{p}, "example.com/me", nil, true, nil, engine.VocabularyDraft); len(d) != 0 {
		t.Errorf("BackendTLSPolicy with NoValidCACertificate: %+v", d)
	}
}

// Affected conditions follow GEP-713's naming: DOMAIN/KINDAffected with a
// policy kind of the scenario; others' route parent entries are not
// judged.
func TestAffectedNames(t *testing.T) {
	const me = "example.com/me"
	withConds := func(kind string, types ...string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"kind": kind, "metadata": map[string]any{"name": "o", "namespace": "ns", "generation": int64(1)}}}
		var cs []any
		for _, typ := range types {
			cs = append(cs, cond(typ, "True", "Affected", 1))
		}
		_ = unstructured.SetNestedSlice(u.Object, cs, "status", "conditions")
		return u
	}
	route := withConds("HTTPRoute")
	_ = unstructured.SetNestedSlice(route.Object, []any{
		map[string]any{"controllerName": me, "conditions": []any{cond("ColorPolicyAffected", "True", "Affected", 1)}},
		map[string]any{"controllerName": "other.io/x", "conditions": []any{cond("Whatever Affected", "True", "Affected", 1)}},
	}, "status", "parents")
	for _, tc := range []struct {
		name string
		o    *unstructured.Unstructured
		bad  bool
	}{
		{"pattern", withConds("Service", "policies.controller.io/ColorPolicyAffected", "Ready"), false},
		{"no domain", withConds("Service", "ColorPolicyAffected"), true},
		{"bad domain", withConds("Service", "Policies_IO/ColorPolicyAffected"), true},
		{"another kind", withConds("Service", "policies.controller.io/RetryPolicyAffected"), true},
		{"own route parent entry", route, true},
	} {
		got := Affected([]*unstructured.Unstructured{tc.o}, me, []string{"ColorPolicy"})
		if (len(got) > 0) != tc.bad || tc.bad && got[0].Condition != "affected-condition-name" {
			t.Errorf("%s: %v, want broken %v", tc.name, got, tc.bad)
		}
	}
	// affected-observed-generation: the object's spec changed (generation
	// 2) and the condition still says 1; a condition without it is let be
	// (GEP-713: it SHOULD be there).
	stale := withConds("Service", "policies.controller.io/ColorPolicyAffected")
	stale.SetGeneration(2)
	if got := Affected([]*unstructured.Unstructured{stale}, me, []string{"ColorPolicy"}); len(got) != 1 || got[0].Condition != "affected-observed-generation" {
		t.Errorf("stale observedGeneration: %v, want affected-observed-generation", got)
	}
	without := withConds("Service", "policies.controller.io/ColorPolicyAffected")
	conds, _, _ := unstructured.NestedSlice(without.Object, "status", "conditions")
	delete(conds[0].(map[string]any), "observedGeneration")
	_ = unstructured.SetNestedSlice(without.Object, conds, "status", "conditions")
	without.SetGeneration(2)
	if got := Affected([]*unstructured.Unstructured{without}, me, []string{"ColorPolicy"}); len(got) != 0 {
		t.Errorf("no observedGeneration: %v, want none broken", got)
	}
}

func withMessage(c map[string]any, msg string) map[string]any {
	c["message"] = msg
	return c
}

// TestOfflineRules: on an offline translator's output (not stored by an
// API server: no lastTransitionTime, no observedGeneration) only the rules
// that do not need a stored object are judged.
func TestOfflineRules(t *testing.T) {
	const me = "example.com/me"
	printed := cond("Accepted", "True", "Accepted", 0)
	delete(printed, "lastTransitionTime")
	delete(printed, "observedGeneration")
	if got := Policies([]*unstructured.Unstructured{policyWithStatus(entry("gw", me, printed))}, me, nil, false, nil, engine.VocabularyDraft); len(got) != 0 {
		t.Errorf("printed status: %v, want no rule broken", got)
	}
	if got := Policies([]*unstructured.Unstructured{policyWithStatus(entry("gw", me, printed))}, me, nil, true, nil, engine.VocabularyDraft); len(got) == 0 {
		t.Errorf("the same status stored: no rule broken, want conditions-are-conditions and observed-generation")
	}
	twice := policyWithStatus(entry("gw", me, printed), entry("gw", me, printed))
	if got := Policies([]*unstructured.Unstructured{twice}, me, nil, false, nil, engine.VocabularyDraft); len(got) != 1 || got[0].Condition != "one-entry-per-ancestor" {
		t.Errorf("printed status with an ancestor twice: %v, want one-entry-per-ancestor", got)
	}
}

// A Gateway of another implementation's GatewayClass: the implementation
// writes no entry for it and keeps the other implementation's (Gateway API
// PolicyStatus.Ancestors: "implementations MUST ONLY populate ancestor
// status for the Ancestor resources they are responsible for").
func TestOtherImplementations(t *testing.T) {
	const me, them = "example.com/me", "example.net/them"
	good := cond("Accepted", "True", "Accepted", 2)
	others := map[string]string{"ns/gw-other": them}
	for _, tc := range []struct {
		name   string
		policy *unstructured.Unstructured
		stored bool
		want   []string
	}{
		{"each its own", policyWithStatus(entry("gw", me, good), entry("gw-other", them, good)), true, nil},
		{"an entry for their Gateway", policyWithStatus(entry("gw", me, good), entry("gw-other", me, good), entry("gw-other", them, good)), true, []string{"own-ancestors-only"}},
		{"their entry gone", policyWithStatus(entry("gw", me, good)), true, []string{"others-entries-kept"}},
		{"their entry under another controllerName", policyWithStatus(entry("gw", me, good), entry("gw-other", "example.org/x", good)), true, []string{"others-entries-kept"}},
		{"printed by a translator: nobody wrote theirs", policyWithStatus(entry("gw", me, good)), false, nil},
		{"printed, an entry for their Gateway", policyWithStatus(entry("gw-other", me, good)), false, []string{"own-ancestors-only"}},
	} {
		var got []string
		for _, d := range Policies([]*unstructured.Unstructured{tc.policy}, me, nil, tc.stored, others, engine.VocabularyDraft) {
			got = append(got, d.Condition)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: broken %q, want %q", tc.name, got, tc.want)
		}
	}
}

// The rules of merged GEP-713's status vocabulary ("Status reporting",
// Status conditions) hold on what its text allows and are broken by what
// it does not, for an implementation that claims it: Programmed takes only
// its reasons (True: Programmed, PartiallyProgrammed; False: Reconciling,
// Overridden), and "Non-accepted policy objects are also not Programmed
// and not Overridden". The draft's Enforced is not judged by them, and an
// implementation that claims the draft is not judged by merged's text.
func TestStatusRulesOfTheVocabulary(t *testing.T) {
	const me = "example.com/me"
	accepted, rejected := cond("Accepted", "True", "Accepted", 2), cond("Accepted", "False", "Conflicted", 2)
	for _, tc := range []struct {
		name  string
		claim engine.Vocabulary
		entry map[string]any
		want  []string
	}{
		{"programmed", engine.VocabularyMerged, entry("gw", me, accepted, cond("Programmed", "True", "Programmed", 2)), nil},
		{"partially programmed", engine.VocabularyMerged, entry("gw", me, accepted, cond("Programmed", "True", "PartiallyProgrammed", 2)), nil},
		{"overridden", engine.VocabularyMerged, entry("gw", me, accepted, cond("Programmed", "False", "Overridden", 2)), nil},
		{"reconciling", engine.VocabularyMerged, entry("gw", me, accepted, cond("Programmed", "False", "Reconciling", 2)), nil},
		{"rejected, nothing else", engine.VocabularyMerged, entry("gw", me, rejected), nil},
		{"True with a False reason", engine.VocabularyMerged, entry("gw", me, accepted, cond("Programmed", "True", "Overridden", 2)), []string{"programmed-reason"}},
		{"a reason of the draft", engine.VocabularyMerged, entry("gw", me, accepted, cond("Programmed", "True", "Enforced", 2)), []string{"programmed-reason"}},
		{"Unknown", engine.VocabularyMerged, entry("gw", me, accepted, cond("Programmed", "False", "Unknown", 2)), []string{"programmed-reason"}},
		{"rejected and overridden", engine.VocabularyMerged, entry("gw", me, rejected, cond("Programmed", "False", "Overridden", 2)), []string{"not-accepted-not-programmed"}},
		{"rejected and programmed", engine.VocabularyMerged, entry("gw", me, cond("Accepted", "False", "Invalid", 2), cond("Programmed", "True", "Programmed", 2)), []string{"not-accepted-not-programmed"}},
		{"the draft's Enforced on a rejected policy", engine.VocabularyMerged, entry("gw", me, rejected, cond("Enforced", "False", "Overridden", 2)), nil},
		{"claiming the draft", engine.VocabularyDraft, entry("gw", me, rejected, cond("Programmed", "False", "Unknown", 2)), nil},
	} {
		var got []string
		for _, d := range Policies([]*unstructured.Unstructured{policyWithStatus(tc.entry)}, me, nil, true, nil, tc.claim) {
			got = append(got, d.Condition)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s (claims %s): broken %q, want %q", tc.name, tc.claim, got, tc.want)
		}
	}
}
