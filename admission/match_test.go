package admission

import (
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules"
	"pgregory.net/rapid"
)

// Values the API server's rules can name and requests can carry, with
// wildcards, so that random rules and requests meet often.
var (
	groups      = []string{"", "apps", "batch", "*"}
	versions    = []string{"v1", "v1beta1", "*"}
	resources   = []string{"pods", "deployments", "namespaces", "jobs", "*"}
	subs        = []string{"", "status", "scale", "log", "*"}
	operations  = []admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect, admissionv1.OperationAll}
	scopes      = []admissionv1.ScopeType{admissionv1.AllScopes, admissionv1.NamespacedScope, admissionv1.ClusterScope}
	namespacesR = []string{"", "team-a"}
)

func drawRule(t *rapid.T) admissionv1.RuleWithOperations {
	var res []string
	for _, r := range rapid.SliceOfN(rapid.SampledFrom(resources), 1, 3).Draw(t, "resources") {
		if s := rapid.SampledFrom(subs).Draw(t, "subresource"); s != "" {
			r += "/" + s
		}
		res = append(res, r)
	}
	scope := rapid.SampledFrom(scopes).Draw(t, "scope")
	return admissionv1.RuleWithOperations{
		Operations: rapid.SliceOfN(rapid.SampledFrom(operations), 1, 2).Draw(t, "operations"),
		Rule: admissionv1.Rule{
			APIGroups:   rapid.SliceOfN(rapid.SampledFrom(groups), 1, 2).Draw(t, "apiGroups"),
			APIVersions: rapid.SliceOfN(rapid.SampledFrom(versions), 1, 2).Draw(t, "apiVersions"),
			Resources:   res, Scope: &scope,
		},
	}
}

// RuleMatches decides as the API server's own rule matcher does
// (k8s.io/apiserver predicates/rules, the code kube-apiserver runs), on
// random rules and requests: wildcards in every field, subresources,
// scope, a Namespace as cluster-scoped.
func TestRuleMatchesAsTheAPIServer(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := drawRule(t)
		// The request mostly takes the rule's own values, so that the
		// cases that decide (a subresource "*" against none) come often.
		near := func(label string, all, own []string) string {
			var named []string
			for _, v := range own {
				if v != "*" {
					named = append(named, v)
				}
			}
			if len(named) > 0 && rapid.IntRange(0, 3).Draw(t, label+" from the rule") > 0 {
				return rapid.SampledFrom(named).Draw(t, label)
			}
			return rapid.SampledFrom(all).Draw(t, label)
		}
		var ruleRes, ruleSubs []string
		for _, x := range r.Resources {
			res, sub, _ := strings.Cut(x, "/")
			if sub == "*" {
				sub = "" // the main resource: does "*" name it?
			}
			ruleRes, ruleSubs = append(ruleRes, res), append(ruleSubs, sub)
		}
		var ruleOps []string
		for _, o := range r.Operations {
			ruleOps = append(ruleOps, string(o))
		}
		op := admissionv1.OperationType(near("operation", []string{"CREATE", "UPDATE", "DELETE", "CONNECT"}, ruleOps))
		gvr := schema.GroupVersionResource{
			Group:    near("group", groups[:3], r.APIGroups),
			Version:  near("version", versions[:2], r.APIVersions),
			Resource: near("resource", resources[:4], ruleRes),
		}
		sub := near("request subresource", subs[:4], ruleSubs)
		ns := rapid.SampledFrom(namespacesR).Draw(t, "namespace")
		attr := admission.NewAttributesRecord(nil, nil, schema.GroupVersionKind{}, ns, "x", gvr, sub, admission.Operation(op), nil, false, nil)
		want := (&rules.Matcher{Rule: r, Attr: attr}).Matches()
		if got := RuleMatches(r, op, gvr, sub, ns); got != want {
			t.Fatalf("rule %s on %s in %q: got %v, the API server %v", ruleString(r), describeRequest(op, gvr, sub), ns, got, want)
		}
	})
}
