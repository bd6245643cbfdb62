// Package statusrules holds the rules of the specs a policy's status and
// an affected object's conditions must keep, whatever the conditions say
// (docs/cluster.md): each a named check with the statement it comes from,
// judged on objects as an implementation wrote them, in a cluster or as
// an offline translator prints them.
package statusrules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gepcheck/gepcheck/internal/jsonmap"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/compare"
)

// A Rule is one rule of the specs a policy's status must keep, judged on
// the object as written, whatever the conditions say.
type Rule struct {
	// Name is stable: differences and docs cite it.
	Name string
	// Cite is the statement the rule comes from.
	Cite string
	// Stored: the rule judges what only an object stored by an API server
	// has (observedGeneration, lastTransitionTime), not what an offline
	// translator prints.
	Stored bool
	// Vocabulary, when set, is the status vocabulary whose text the rule
	// comes from: it is judged only on an implementation that claims it
	// (observe.Capabilities.Vocabulary).
	Vocabulary engine.Vocabulary
	// check returns what breaks the rule in one ancestor entry of the
	// implementation's (or "" when it holds).
	check func(entry map[string]any, on ruleContext) string
}

// ruleContext is what a rule knows besides the entry.
type ruleContext struct {
	// generation is the policy's metadata.generation.
	generation int64
	// apiStrategyNames are the implementation's own names of merge
	// strategies (observe.Capabilities.StrategyNames).
	apiStrategyNames []string
	// kind of the policy.
	kind string
}

// programmedReasons are the reasons merged GEP-713 defines for a policy's
// Programmed condition, by status ("Status reporting", Status conditions,
// PolicyConditionProgrammed).
var programmedReasons = map[string][]string{"True": {"Programmed", "PartiallyProgrammed"}, "False": {"Reconciling", "Overridden"}}

// acceptedReasons are the reasons Gateway API's Go spec defines for a
// policy's Accepted condition (PolicyConditionReason).
var acceptedReasons = []string{"Accepted", "Conflicted", "Invalid", "TargetNotFound"}

// kindAcceptedReasons are the reasons Gateway API's Go spec adds for the
// Accepted condition of one kind (BackendTLSPolicyReasonNoValidCACertificate).
var kindAcceptedReasons = map[string][]string{"BackendTLSPolicy": {"NoValidCACertificate"}}

// Rules are the rules checked on every policy, in the order they are
// reported.
var Rules = []Rule{
	{
		Name:   "conditions-are-conditions",
		Stored: true,
		Cite:   "Gateway API PolicyAncestorStatus.Conditions: []metav1.Condition (type, status True|False|Unknown, reason, lastTransitionTime required), a map keyed by type (\"Implementations MUST always _merge_ changes into Conditions of the same Type, rather than creating more than one Condition of the same Type\")",
		check: func(e map[string]any, _ ruleContext) string {
			seen := map[string]bool{}
			for _, c := range conditionsOf(e) {
				switch {
				case seen[jsonmap.String(c["type"])]:
					return jsonmap.String(c["type"]) + " twice"
				case jsonmap.String(c["type"]) == "":
					return "a condition without type"
				case !slices.Contains([]string{"True", "False", "Unknown"}, jsonmap.String(c["status"])):
					return fmt.Sprintf("%s with status %q", jsonmap.String(c["type"]), jsonmap.String(c["status"]))
				case jsonmap.String(c["reason"]) == "":
					return jsonmap.String(c["type"]) + " without reason"
				case jsonmap.String(c["lastTransitionTime"]) == "":
					return jsonmap.String(c["type"]) + " without lastTransitionTime"
				}
				seen[jsonmap.String(c["type"])] = true
			}
			return ""
		},
	},
	{
		Name:   "observed-generation",
		Stored: true,
		Cite:   "metav1.Condition.ObservedGeneration: the .metadata.generation the condition was set on; a controller that has read the current spec says so (GEP-713, Policy status)",
		check: func(e map[string]any, on ruleContext) string {
			for _, c := range conditionsOf(e) {
				if g := Int(c["observedGeneration"]); g != on.generation {
					return fmt.Sprintf("%s with observedGeneration %d, the policy's generation is %d", jsonmap.String(c["type"]), g, on.generation)
				}
			}
			return ""
		},
	},
	{
		Name: "strategy-names",
		Cite: "GEP-713, Reflecting the applied merge strategy in the status stanza of the policy: \"Merge strategies referred in the status message MUST use the same name of strategy as defined in this GEP\" (None, Atomic defaults, Atomic overrides, Patch defaults, Patch overrides, Custom)",
		check: func(e map[string]any, on ruleContext) string {
			// Only the names the implementation's API gives strategies
			// are looked for; a message naming none is let be.
			for _, c := range conditionsOf(e) {
				msg := strings.ToLower(jsonmap.String(c["message"]))
				for _, api := range on.apiStrategyNames {
					if strings.Contains(msg, strings.ToLower(api)) {
						return fmt.Sprintf("%s message %q names the strategy %q, not GEP-713's name", jsonmap.String(c["type"]), jsonmap.String(c["message"]), api)
					}
				}
			}
			return ""
		},
	},
	{
		Name: "accepted-reason",
		Cite: "GEP-2649 and Gateway API PolicyConditionReason: Accepted takes only the reasons of the Go spec (Accepted, Conflicted, Invalid, TargetNotFound; for BackendTLSPolicy also NoValidCACertificate)",
		check: func(e map[string]any, rc ruleContext) string {
			for _, c := range conditionsOf(e) {
				if r := jsonmap.String(c["reason"]); jsonmap.String(c["type"]) == "Accepted" && !slices.Contains(acceptedReasons, r) && !slices.Contains(kindAcceptedReasons[rc.kind], r) {
					return "Accepted with reason " + jsonmap.String(c["reason"])
				}
			}
			return ""
		},
	},
	{
		Name:       "programmed-reason",
		Vocabulary: engine.VocabularyMerged,
		Cite:       "GEP-713 as merged, Status reporting, Status conditions (PolicyConditionProgrammed): \"Possible reasons for this condition to be True are: Programmed, PartiallyProgrammed\"; \"Possible reasons for this condition to be False are: Reconciling, Overridden\"",
		check: func(e map[string]any, _ ruleContext) string {
			for _, c := range conditionsOf(e) {
				// The text lists reasons for True and False only: a
				// Programmed=Unknown (no path reaches an effective target,
				// docs/semantics.md, Status vocabularies) is not judged.
				if jsonmap.String(c["type"]) == "Programmed" && jsonmap.String(c["status"]) != "Unknown" && !slices.Contains(programmedReasons[jsonmap.String(c["status"])], jsonmap.String(c["reason"])) {
					return fmt.Sprintf("Programmed %s with reason %s", jsonmap.String(c["status"]), jsonmap.String(c["reason"]))
				}
			}
			return ""
		},
	},
	{
		Name:       "not-accepted-not-programmed",
		Vocabulary: engine.VocabularyMerged,
		Cite:       "GEP-713 as merged, Status reporting, Status conditions: \"Non-accepted policy objects are also not Programmed and not Overridden\" (the table: Accepted False, Programmed ∅)",
		check: func(e map[string]any, _ ruleContext) string {
			accepted, programmed := "", map[string]any(nil)
			for _, c := range conditionsOf(e) {
				switch jsonmap.String(c["type"]) {
				case "Accepted":
					accepted = jsonmap.String(c["status"])
				case "Programmed":
					programmed = c
				}
			}
			if accepted == "False" && programmed != nil {
				return fmt.Sprintf("Accepted False with Programmed %s/%s", jsonmap.String(programmed["status"]), jsonmap.String(programmed["reason"]))
			}
			return ""
		},
	},
}

// Policies judges the ancestor entries controller wrote on each
// policy: a difference of kind compare.StatusRule per rule broken, and one
// when an ancestor appears twice for the same controller (Gateway API
// PolicyStatus.Ancestors: one entry per ancestor and controller).
//
// others are the Gateways ("namespace/name") of other implementations'
// GatewayClasses, with their controllerName, each of which has an entry
// on every policy that the other implementation (gepcheck playing it)
// wrote. Gateway API PolicyStatus.Ancestors: "implementations MUST ONLY
// populate ancestor status for the Ancestor resources they are
// responsible for" and "MUST use the ControllerName field to uniquely
// identify the entries in this list that they are responsible for": an
// entry of controller for one of them breaks own-ancestors-only, and one of
// theirs gone (when stored) breaks others-entries-kept.
//
// stored says the policies are as an API server stores them; otherwise
// (an offline translator's output) the Stored rules are not judged.
// vocabulary is the status vocabulary the implementation claims: the rules
// of another's text are not judged.
func Policies(policies []*unstructured.Unstructured, controller string, apiStrategyNames []string, stored bool, others map[string]string, vocabulary engine.Vocabulary) []compare.Difference {
	var out []compare.Difference
	for _, p := range policies {
		at := ref(p)
		ancestors, _, _ := unstructured.NestedSlice(p.Object, "status", "ancestors")
		seen := map[string]bool{}
		broken := map[string]string{}
		kept := map[string]bool{} // others' entries: controllerName and Gateway
		for _, a := range ancestors {
			e := jsonmap.Map(a)
			gw := ancestorGateway(e, p.GetNamespace())
			if jsonmap.String(e["controllerName"]) != controller {
				kept[jsonmap.String(e["controllerName"])+" "+gw] = true
				continue
			}
			if ctl, ok := others[gw]; ok && gw != "" {
				broken["own-ancestors-only"] = "an entry for Gateway " + gw + ", whose GatewayClass is " + ctl + "'s"
			}
			key := fmt.Sprint(e["ancestorRef"])
			if seen[key] {
				broken["one-entry-per-ancestor"] = "ancestor " + key + " twice"
			}
			seen[key] = true
			for _, r := range Rules {
				if _, done := broken[r.Name]; done || r.Stored && !stored || r.Vocabulary != "" && r.Vocabulary != vocabulary {
					continue
				}
				if msg := r.check(e, ruleContext{generation: p.GetGeneration(), apiStrategyNames: apiStrategyNames, kind: p.GetKind()}); msg != "" {
					broken[r.Name] = msg
				}
			}
		}
		if stored {
			for _, gw := range slices.Sorted(maps.Keys(others)) {
				if !kept[others[gw]+" "+gw] {
					broken["others-entries-kept"] = "the entry of " + others[gw] + " for Gateway " + gw + " is gone"
					break
				}
			}
		}
		for _, name := range slices.Sorted(maps.Keys(broken)) {
			out = append(out, compare.Difference{Kind: compare.StatusRule, Ref: at, Condition: name, Got: broken[name]})
		}
	}
	return out
}

// ancestorGateway is "namespace/name" of the Gateway an ancestor entry
// names (AncestorRef, a ParentReference: group and kind default to Gateway
// API's Gateway, namespace to the policy's), or "" for another kind.
func ancestorGateway(e map[string]any, policyNamespace string) string {
	r := jsonmap.Map(e["ancestorRef"])
	if g := jsonmap.String(r["group"]); g != "" && g != "gateway.networking.k8s.io" || jsonmap.String(r["kind"]) != "" && jsonmap.String(r["kind"]) != "Gateway" {
		return ""
	}
	ns := jsonmap.String(r["namespace"])
	if ns == "" {
		ns = policyNamespace
	}
	return ns + "/" + jsonmap.String(r["name"])
}

func conditionsOf(e map[string]any) []map[string]any {
	var out []map[string]any
	cs := jsonmap.List(e["conditions"])
	for _, c := range cs {
		if m, ok := c.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// Affected judges the <Kind>Affected conditions on the scenario's
// objects (status.conditions, and the implementation's own route parent
// status).
//
// affected-condition-name: GEP-713, Target object status, says such a
// condition "MUST be named according to the pattern
// <metaresource-kind>Affected" and "MUST be namespaced by the
// implementation's domain"; GEP-2649 names
// gateway.networking.k8s.io/BackendTLSPolicyAffected as the model. A
// condition whose type ends in Affected must be DOMAIN/KINDAffected with
// a DNS subdomain and one of the scenario's policy kinds.
//
// affected-observed-generation: GEP-2649, On targeted resources: the
// condition MUST "have the optional observedGeneration field kept up to
// date when the spec of the Policy-attached object changes" (GEP-713: it
// SHOULD be there). One that is there must equal the object's generation.
func Affected(objects []*unstructured.Unstructured, controller string, policyKinds []string) []compare.Difference {
	var out []compare.Difference
	for _, o := range objects {
		at := ref(o)
		var conds []map[string]any
		top, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
		conds = append(conds, conditionsOf(map[string]any{"conditions": top})...)
		parents, _, _ := unstructured.NestedSlice(o.Object, "status", "parents")
		for _, p := range parents {
			if pm, ok := p.(map[string]any); ok && jsonmap.String(pm["controllerName"]) == controller {
				conds = append(conds, conditionsOf(pm)...)
			}
		}
		broken := map[string]string{}
		for _, c := range conds {
			typ := jsonmap.String(c["type"])
			if !strings.HasSuffix(typ, "Affected") {
				continue
			}
			domain, name, ok := strings.Cut(typ, "/")
			kind := strings.TrimSuffix(name, "Affected")
			if !ok || len(validation.IsDNS1123Subdomain(domain)) > 0 || !slices.Contains(policyKinds, kind) {
				broken["affected-condition-name"] = fmt.Sprintf("condition %q, want DOMAIN/KINDAffected with KIND one of %s", typ, strings.Join(policyKinds, ", "))
			}
			if g, set := c["observedGeneration"]; set && Int(g) != o.GetGeneration() {
				broken["affected-observed-generation"] = fmt.Sprintf("%s with observedGeneration %d, the object's generation is %d", typ, Int(g), o.GetGeneration())
			}
		}
		for _, name := range slices.Sorted(maps.Keys(broken)) {
			out = append(out, compare.Difference{Kind: compare.StatusRule, Ref: at, Condition: name, Got: broken[name]})
		}
	}
	return out
}

// Int reads a JSON number as decoded into an unstructured object (an
// observedGeneration); -1 for anything else.
func Int(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	case int:
		return int64(n)
	}
	return -1
}

// ref is Kind/namespace/name of u (Kind/name when cluster-scoped).
func ref(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetKind() + "/" + u.GetName()
	}
	return u.GetKind() + "/" + u.GetNamespace() + "/" + u.GetName()
}
