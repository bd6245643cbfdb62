// Package gen draws random admission cases (pgregory.net/rapid): webhook
// configurations, the resources they name and requests on them, for the
// predictor's properties (package admission) and its check against a real
// kube-apiserver (admission/check; docs/admission.md).
package gen

import (
	"fmt"
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/admission"
)

// WebhookConfigurations are the configurations Configurations
// draws.
type WebhookConfigurations struct {
	Mutating   []admissionv1.MutatingWebhookConfiguration
	Validating []admissionv1.ValidatingWebhookConfiguration
}

// CRDs are the CustomResourceDefinitions whose resources rules
// name and requests are made on: widgets.gepcheck.dev, served as v1 (the
// storage version) and v1beta1, which are equivalent (matchPolicy
// Equivalent), namespaced, any fields kept.
func CRDs() []apiextensionsv1.CustomResourceDefinition {
	preserve := true
	schema := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &preserve}}
	status := &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}
	return []apiextensionsv1.CustomResourceDefinition{{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.gepcheck.dev"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "gepcheck.dev", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schema, Subresources: status},
				{Name: "v1beta1", Served: true, Schema: schema, Subresources: status},
			}},
	}}
}

// Resources are the resources of kube-apiserver (admission.Builtin)
// and of CRDs: what requests drawn by Requests are
// predicted against.
func Resources() *admission.Snapshot {
	return admission.Builtin().WithCRDs(CRDs())
}

// admissionResources are the resources rules name and requests are made
// on: served by kube-apiserver v1.36 (admission.Builtin) or by
// CRDs, main resources and subresources, namespaced and not, with
// equivalents (autoscaling v1 and v2, core and events.k8s.io events, the
// CRD's two versions).
var admissionResources = []struct {
	gvr schema.GroupVersionResource
	sub string
}{
	{schema.GroupVersionResource{Version: "v1", Resource: "pods"}, ""},
	{schema.GroupVersionResource{Version: "v1", Resource: "pods"}, "status"},
	{schema.GroupVersionResource{Version: "v1", Resource: "pods"}, "exec"},
	{schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, ""},
	{schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, ""},
	{schema.GroupVersionResource{Version: "v1", Resource: "events"}, ""},
	{schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}, ""},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, ""},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, "scale"},
	{schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, "status"},
	{schema.GroupVersionResource{Group: "autoscaling", Version: "v1", Resource: "horizontalpodautoscalers"}, ""},
	{schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}, ""},
	{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}, ""},
	{schema.GroupVersionResource{Group: "gepcheck.dev", Version: "v1", Resource: "widgets"}, ""},
	{schema.GroupVersionResource{Group: "gepcheck.dev", Version: "v1beta1", Resource: "widgets"}, ""},
	{schema.GroupVersionResource{Group: "gepcheck.dev", Version: "v1", Resource: "widgets"}, "status"},
}

// Configurations draws one to three mutating and zero to three
// validating webhook configurations, named so that their order by name
// and the order drawn differ, each with one to three webhooks whose rules
// name the resources above, their versions, groups and subresources, or
// wildcards ("*", "x/*", "*/x", "*/*", "*" groups and versions), with
// every scope, operation and policy, namespace and object selectors on
// labels requests carry one time in three, and, one time in five, a
// matchCondition on the user or on the object's annotations (which hooks
// that patch set: PatchAnnotation). One time in three every hook also
// matches every request.
func Configurations() *rapid.Generator[WebhookConfigurations] {
	return rapid.Custom(func(t *rapid.T) WebhookConfigurations {
		var out WebhookConfigurations
		// Byte-wise order, not a person's: "10-x" < "9-x" < "gamma-1" <
		// "gamma.1" < "gamma0".
		names := rapid.Permutation([]string{"alpha", "10-x", "9-x", "gamma-1", "gamma.1", "gamma0", "zeta"}).Draw(t, "configuration names")
		name := func() string {
			n := names[0]
			names = names[1:]
			return n
		}
		nm := rapid.IntRange(1, 3).Draw(t, "mutating configurations")
		nv := rapid.IntRange(0, 3).Draw(t, "validating configurations")
		for range nm {
			c := admissionv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name()}}
			for i := range rapid.IntRange(1, 3).Draw(t, "webhooks") {
				w := drawWebhook(t, fmt.Sprintf("m%d.%s.example.com", i, c.Name))
				w.ReinvocationPolicy = new(rapid.SampledFrom([]admissionv1.ReinvocationPolicyType{admissionv1.NeverReinvocationPolicy, admissionv1.IfNeededReinvocationPolicy}).Draw(t, "reinvocationPolicy"))
				c.Webhooks = append(c.Webhooks, w)
			}
			out.Mutating = append(out.Mutating, c)
		}
		for range nv {
			c := admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name()}}
			for i := range rapid.IntRange(1, 3).Draw(t, "webhooks") {
				c.Webhooks = append(c.Webhooks, admission.ValidatingForm(drawWebhook(t, fmt.Sprintf("v%d.%s.example.com", i, c.Name))))
			}
			out.Validating = append(out.Validating, c)
		}
		if rapid.IntRange(0, 2).Draw(t, "every hook matches every request") == 0 {
			// So that several hooks are called, in an order to see: one
			// rule more each, for everything ("*/*": resources and
			// subresources), as a cluster-wide audit hook has.
			all := EveryRequestRule()
			for i := range out.Mutating {
				for j := range out.Mutating[i].Webhooks {
					out.Mutating[i].Webhooks[j].Rules = append([]admissionv1.RuleWithOperations{all}, out.Mutating[i].Webhooks[j].Rules...)
				}
			}
			for i := range out.Validating {
				for j := range out.Validating[i].Webhooks {
					out.Validating[i].Webhooks[j].Rules = append([]admissionv1.RuleWithOperations{all}, out.Validating[i].Webhooks[j].Rules...)
				}
			}
		}
		return out
	})
}

func drawWebhook(t *rapid.T, name string) admissionv1.MutatingWebhook {
	none := admissionv1.SideEffectClassNone
	w := admissionv1.MutatingWebhook{Name: name, SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		ClientConfig:  admissionv1.WebhookClientConfig{URL: new("https://127.0.0.1:9443/" + name)},
		FailurePolicy: new(rapid.SampledFrom([]admissionv1.FailurePolicyType{admissionv1.Fail, admissionv1.Ignore}).Draw(t, "failurePolicy")),
		MatchPolicy:   new(rapid.SampledFrom([]admissionv1.MatchPolicyType{admissionv1.Exact, admissionv1.Equivalent}).Draw(t, "matchPolicy")),
	}
	for range rapid.IntRange(1, 2).Draw(t, "rules") {
		w.Rules = append(w.Rules, drawRule(t))
	}
	if rapid.IntRange(0, 2).Draw(t, "namespaceSelector") == 0 {
		w.NamespaceSelector = rapid.SampledFrom(namespaceSelectors).Draw(t, "namespace selector")
	}
	if rapid.IntRange(0, 2).Draw(t, "objectSelector") == 0 {
		w.ObjectSelector = rapid.SampledFrom(objectSelectors).Draw(t, "object selector")
	}
	if rapid.IntRange(0, 4).Draw(t, "matchCondition") == 0 {
		w.MatchConditions = []admissionv1.MatchCondition{{Name: "not-system", Expression: "!request.userInfo.username.startsWith('system:')"}}
	}
	if rapid.IntRange(0, 4).Draw(t, "matchCondition on the kind sent") == 0 {
		// Always true in the API server, which converts the object to the
		// kind the hook is sent (request.kind) before the conditions read
		// it: under matchPolicy Equivalent, another version's.
		w.MatchConditions = append(w.MatchConditions, admissionv1.MatchCondition{Name: SentKindCondition,
			Expression: "object == null || object.apiVersion == (request.kind.group == '' ? '' : request.kind.group + '/') + request.kind.version"})
	}
	if rapid.IntRange(0, 4).Draw(t, "matchCondition on annotations") == 0 {
		// Only an object an earlier hook has patched: a hook the first
		// pass skips, which a reinvocation would find matching.
		w.MatchConditions = append(w.MatchConditions, admissionv1.MatchCondition{Name: PatchedCondition, Expression: "object != null && has(object.metadata.annotations)"})
	}
	return w
}

// namespaceSelectors and objectSelectors are the selectors hooks draw:
// on the labels requests carry (team=a on namespace team-a, app=web on
// objects), with every operator, and on kubernetes.io/metadata.name, which
// the API server gives every Namespace (a selector a Namespace's own
// request is judged by). NotIn and DoesNotExist match an object without
// the label, and so tell an object without labels from one without
// metadata (a CONNECT's options, which match no selector).
var (
	namespaceSelectors = []*metav1.LabelSelector{
		{MatchLabels: map[string]string{"team": "a"}},
		{MatchLabels: map[string]string{"team": "b"}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"a"}}}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "team", Operator: metav1.LabelSelectorOpDoesNotExist}}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: []string{"team-a"}}}},
	}
	objectSelectors = []*metav1.LabelSelector{
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web"}}}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"web"}}}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpDoesNotExist}}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpIn, Values: []string{"team-a"}}}},
		{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: corev1.LabelMetadataName, Operator: metav1.LabelSelectorOpExists}}},
	}
)

// PatchedCondition names the matchCondition Configurations draws
// that holds of an object with annotations: here, one a hook has patched.
const PatchedCondition = "patched"

// SentKindCondition names the matchCondition Configurations draws
// that holds of every object the API server converts to the kind it sends.
const SentKindCondition = "sent-kind"

// EveryRequestRule is a rule that matches every request: every operation,
// group, version, resource and subresource ("*/*").
func EveryRequestRule() admissionv1.RuleWithOperations {
	return admissionv1.RuleWithOperations{Operations: []admissionv1.OperationType{admissionv1.OperationAll},
		Rule: admissionv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"}}}
}

// drawRule draws a rule the API server accepts: '*' alone where it must
// be, resources in an order validation allows.
func drawRule(t *rapid.T) admissionv1.RuleWithOperations {
	r := admissionv1.RuleWithOperations{}
	if rapid.IntRange(0, 3).Draw(t, "all operations") == 0 {
		r.Operations = []admissionv1.OperationType{admissionv1.OperationAll}
	} else {
		ops := []admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect}
		r.Operations = rapid.SliceOfNDistinct(rapid.SampledFrom(ops), 1, 2, func(o admissionv1.OperationType) admissionv1.OperationType { return o }).Draw(t, "operations")
	}
	x := rapid.SampledFrom(admissionResources).Draw(t, "resource")
	wild := func(label, v string) []string {
		if rapid.IntRange(0, 3).Draw(t, label) == 0 {
			return []string{"*"}
		}
		return []string{v}
	}
	r.APIGroups = wild("all groups", x.gvr.Group)
	r.APIVersions = wild("all versions", x.gvr.Version)
	if rapid.Bool().Draw(t, "other version") && x.gvr.Group == "autoscaling" {
		r.APIVersions = []string{"v1"} // an equivalent of v2
	}
	if rapid.Bool().Draw(t, "other version") && x.gvr.Group == "gepcheck.dev" {
		r.APIVersions = []string{"v1beta1"} // an equivalent of v1
	}
	res, sub := x.gvr.Resource, x.sub
	switch rapid.IntRange(0, 5).Draw(t, "resource form") {
	case 0:
		res = "*"
	case 1:
		sub = "*"
	case 2:
		res, sub = "*", "*"
	}
	entry := res
	if sub != "" {
		entry += "/" + sub
	}
	r.Resources = []string{entry}
	r.Scope = new(rapid.SampledFrom([]admissionv1.ScopeType{admissionv1.AllScopes, admissionv1.NamespacedScope, admissionv1.ClusterScope}).Draw(t, "scope"))
	return r
}

// Requests draws requests on the resources above: an operation
// the resource takes (res's verbs: a CONNECT on pods/exec, an UPDATE on a
// status or scale subresource), a namespace (team-a, labelled team=a, or
// team-b; none for a cluster-scoped resource), the app=web label on the
// object, the old object, both or neither (none on a Scale or a CONNECT's
// options), a user (alice, or system:admin).
func Requests(res admission.Resources) *rapid.Generator[admission.Request] {
	return rapid.Custom(func(t *rapid.T) admission.Request {
		x := rapid.SampledFrom(admissionResources).Draw(t, "resource")
		served, _ := res.Lookup(x.gvr, x.sub)
		op := rapid.SampledFrom(served.Operations()).Draw(t, "operation")
		line := fmt.Sprintf("%s %s %s", op, x.gvr.GroupVersion(), x.gvr.Resource)
		if x.sub != "" {
			line += "/" + x.sub
		}
		if slices.Contains([]string{"namespaces", "clusterroles"}, x.gvr.Resource) {
			line += " name=" + rapid.SampledFrom([]string{"team-a", "x"}).Draw(t, "name")
		} else {
			ns := rapid.SampledFrom([]string{"team-a", "team-b"}).Draw(t, "namespace")
			line += " ns=" + ns + " name=x"
			if ns == "team-a" {
				line += " nslabels=team=a"
			}
		}
		if x.sub != "scale" && op != admissionv1.Connect { // a Scale, a CONNECT's options have no labels
			// The object's and the old object's app=web label: on both,
			// neither, or only one (an UPDATE that adds or removes it).
			line += rapid.SampledFrom([]string{"", " labels=app=web oldlabels=app=web", " labels=app=web", " oldlabels=app=web"}).Draw(t, "app label")
		}
		line += " user=" + rapid.SampledFrom([]string{"alice", "system:admin"}).Draw(t, "user")
		req, err := admission.ParseRequest(line, res)
		if err != nil {
			panic(fmt.Sprintf("gen: drawn request %q: %v", line, err))
		}
		return req
	})
}
