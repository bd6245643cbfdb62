package admission

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"
)

// Validate checks a hook as the API server checks a webhook configuration
// it is asked to create (kubernetes pkg/apis/admissionregistration/
// validation, ValidateMutatingWebhookConfiguration and
// ValidateValidatingWebhookConfiguration), but for clientConfig, which a
// prediction does not use: a qualified name, unique in its configuration;
// rules (operations, apiGroups, apiVersions, resources with their wildcard
// rules, in the same order-dependent way, scope); the policies' values;
// sideEffects None or NoneOnDryRun; timeoutSeconds 1 to 30; label
// selectors; admissionReviewVersions; at most 64 matchConditions, named
// uniquely, that compile to bool. fld is the webhook's path
// (webhooks[i]).
func validateWebhook(w admissionv1.MutatingWebhook, mutating bool, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, utilvalidation.IsFullyQualifiedName(fld.Child("name"), w.Name)...)
	for i, r := range w.Rules {
		errs = append(errs, validateRule(r, fld.Child("rules").Index(i))...)
	}
	enum := func(name string, v *string, allowed ...string) {
		if v != nil && !slices.Contains(allowed, *v) {
			errs = append(errs, field.NotSupported(fld.Child(name), *v, allowed))
		}
	}
	enum("failurePolicy", (*string)(w.FailurePolicy), "Fail", "Ignore")
	enum("matchPolicy", (*string)(w.MatchPolicy), "Equivalent", "Exact")
	if mutating {
		enum("reinvocationPolicy", (*string)(w.ReinvocationPolicy), "IfNeeded", "Never")
	}
	if w.SideEffects == nil {
		errs = append(errs, field.Required(fld.Child("sideEffects"), "must specify one of None, NoneOnDryRun"))
	}
	enum("sideEffects", (*string)(w.SideEffects), "None", "NoneOnDryRun")
	if t := w.TimeoutSeconds; t != nil && (*t > 30 || *t < 1) {
		errs = append(errs, field.Invalid(fld.Child("timeoutSeconds"), *t, "the timeout value must be between 1 and 30 seconds"))
	}
	for _, s := range []struct {
		name string
		sel  *metav1.LabelSelector
	}{{"namespaceSelector", w.NamespaceSelector}, {"objectSelector", w.ObjectSelector}} {
		if s.sel != nil {
			errs = append(errs, metav1validation.ValidateLabelSelector(s.sel, metav1validation.LabelSelectorValidationOptions{}, fld.Child(s.name))...)
		}
	}
	errs = append(errs, validateReviewVersions(w.AdmissionReviewVersions, fld.Child("admissionReviewVersions"))...)
	errs = append(errs, validateMatchConditions(w.MatchConditions, fld.Child("matchConditions"))...)
	return errs
}

func validateRule(r admissionv1.RuleWithOperations, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	ops := fld.Child("operations")
	if len(r.Operations) == 0 {
		errs = append(errs, field.Required(ops, ""))
	}
	if len(r.Operations) > 1 && slices.Contains(r.Operations, admissionv1.OperationAll) {
		errs = append(errs, field.Invalid(ops, r.Operations, "if '*' is present, must not specify other operations"))
	}
	for i, o := range r.Operations {
		if !slices.Contains([]admissionv1.OperationType{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}, o) {
			errs = append(errs, field.NotSupported(ops.Index(i), o, []string{"*", "CONNECT", "CREATE", "DELETE", "UPDATE"}))
		}
	}
	list := func(name string, items []string, what string, noEmpty bool) {
		if len(items) == 0 {
			errs = append(errs, field.Required(fld.Child(name), ""))
		}
		if len(items) > 1 && slices.Contains(items, "*") {
			errs = append(errs, field.Invalid(fld.Child(name), items, "if '*' is present, must not specify other "+what))
		}
		for i, v := range items {
			if noEmpty && v == "" {
				errs = append(errs, field.Required(fld.Child(name).Index(i), ""))
			}
		}
	}
	list("apiGroups", r.APIGroups, "API groups", false) // "" is the core group
	list("apiVersions", r.APIVersions, "API versions", true)
	errs = append(errs, validateResources(r.Resources, fld.Child("resources"))...)
	if r.Scope != nil && !slices.Contains([]admissionv1.ScopeType{"*", "Cluster", "Namespaced"}, *r.Scope) {
		errs = append(errs, field.NotSupported(fld.Child("scope"), *r.Scope, []string{"*", "Cluster", "Namespaced"}))
	}
	return errs
}

// validateResources follows the API server's checks as they are, order
// dependence included: "x/*" refuses a later "x/y", "*/y" a later "x/y",
// and "*" refuses a plain resource only when the last plain entry is not
// "*" ("pods", "*" passes; "*", "pods" does not).
func validateResources(resources []string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(resources) == 0 {
		errs = append(errs, field.Required(fld, ""))
	}
	wildSub, wildRes := map[string]bool{}, map[string]bool{}
	double, single, plain := false, false, false
	for i, rs := range resources {
		if rs == "" {
			errs = append(errs, field.Required(fld.Index(i), ""))
			continue
		}
		double = double || rs == "*/*"
		single = single || rs == "*"
		res, sub, ok := strings.Cut(rs, "/")
		if !ok {
			plain = rs != "*"
			continue
		}
		if wildSub[res] {
			errs = append(errs, field.Invalid(fld.Index(i), rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs)))
		}
		if wildRes[sub] {
			errs = append(errs, field.Invalid(fld.Index(i), rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs)))
		}
		if sub == "*" {
			wildSub[res] = true
		}
		if res == "*" {
			wildRes[sub] = true
		}
	}
	if len(resources) > 1 && double {
		errs = append(errs, field.Invalid(fld, resources, "if '*/*' is present, must not specify other resources"))
	}
	if single && plain {
		errs = append(errs, field.Invalid(fld, resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

func validateReviewVersions(versions []string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(versions) == 0 {
		return append(errs, field.Required(fld, "must specify one of v1, v1beta1"))
	}
	seen, known := map[string]bool{}, false
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, field.Invalid(fld.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		for _, e := range utilvalidation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(fld.Index(i), v, e))
		}
		known = known || v == "v1" || v == "v1beta1"
	}
	if !known {
		errs = append(errs, field.Invalid(fld, versions, "must include at least one of v1, v1beta1"))
	}
	return errs
}

func validateMatchConditions(cs []admissionv1.MatchCondition, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(cs) > 64 {
		errs = append(errs, field.TooMany(fld, len(cs), 64))
	}
	names := map[string]bool{}
	for i, c := range cs {
		f := fld.Index(i)
		if strings.TrimSpace(c.Expression) == "" {
			errs = append(errs, field.Required(f.Child("expression"), ""))
		} else {
			// Compiled as a new expression must (NewExpressions), to bool.
			r := compiler().CompileCondition([]cel.ExpressionAccessor{&matchconditions.MatchCondition{Name: c.Name, Expression: strings.TrimSpace(c.Expression)}},
				cel.OptionalVariableDeclarations{HasAuthorizer: true}, environment.NewExpressions)
			if e := r.CompilationErrors(); len(e) > 0 {
				errs = append(errs, field.Invalid(f.Child("expression"), c.Expression, e[0].Error()))
			}
		}
		if c.Name == "" {
			errs = append(errs, field.Required(f.Child("name"), ""))
		} else {
			for _, e := range utilvalidation.IsQualifiedName(c.Name) {
				errs = append(errs, field.Invalid(f.Child("name"), c.Name, e))
			}
			if names[c.Name] {
				errs = append(errs, field.Duplicate(f.Child("name"), c.Name))
			}
			names[c.Name] = true
		}
	}
	return errs
}
