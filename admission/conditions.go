package admission

import (
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/cel/environment"
)

// compiler is the API server's compiler of matchConditions: its base CEL
// environment at its default compatibility version (generic/webhook.go).
var compiler = sync.OnceValue(func() cel.ConditionCompiler {
	return cel.NewConditionCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
})

// matchConditions evaluates h's matchConditions on req as the API server
// does, with its own code (webhook/matchconditions): every condition in
// the environment the API server gives them (object, oldObject, request,
// authorizer; no params), within its cost limits (1,000,000 per
// expression, 2,500,000 for a hook's conditions); any false skips the
// hook, even beside an error; errors otherwise fail the request under
// failurePolicy Fail (403) and skip the hook under Ignore. kind is the kind
// the hook is sent: the conditions read the objects as that kind
// (generic/webhook.go, VersionedAttribute), which gepcheck converts by
// their apiVersion and kind only (a conversion of other fields, as
// autoscaling/v2 to v1, is not made). authorizer checks are not
// predicted: no authorizer is given, and a condition that calls one errs.
func matchConditions(h *Hook, req Request, kind schema.GroupVersionKind) (bool, string, *Failure) {
	m := h.matcher()
	obj, old := asKind(req.Object, kind), asKind(req.OldObject, kind)
	u := &user.DefaultInfo{Name: req.UserInfo.Username, UID: req.UserInfo.UID, Groups: req.UserInfo.Groups, Extra: req.UserInfo.Extra}
	attr := admission.NewAttributesRecord(obj, old, kind, req.Namespace, req.Name, req.Resource, req.Subresource, admission.Operation(req.Operation), nil, req.DryRun, u)
	r := m.Match(req.budget.context(), &admission.VersionedAttributes{Attributes: attr, VersionedObject: obj, VersionedOldObject: old, VersionedKind: kind}, nil, nil)
	switch {
	case r.Error != nil:
		return false, "", &Failure{Code: 403, Reason: "Forbidden", Message: fmt.Sprintf("%s %q is forbidden: %v", req.Resource.GroupResource(), req.Name, r.Error)}
	case !r.Matches && r.FailedConditionName != "":
		return false, "condition " + r.FailedConditionName + " is false", nil
	case !r.Matches:
		return false, "a condition errs and failurePolicy is Ignore: skipped", nil
	}
	return true, fmt.Sprintf("all %d conditions true", len(h.MatchConditions)), nil
}

// asKind is u as kind (a copy when its kind differs), or a nil
// runtime.Object for a nil u.
func asKind(u *unstructured.Unstructured, kind schema.GroupVersionKind) runtime.Object {
	switch {
	case u == nil:
		return nil
	case kind.Empty() || u.GroupVersionKind() == kind || mutant == MutantUnconvertedConditions:
		return u
	}
	c := u.DeepCopy()
	c.SetGroupVersionKind(kind)
	return c
}

// matcher is h's matchConditions compiled, once per hook as the API server
// compiles them (its webhook accessor keeps the matcher, sync.Once).
func (h *Hook) matcher() matchconditions.Matcher {
	h.compile.Do(func() {
		exprs := make([]cel.ExpressionAccessor, len(h.MatchConditions))
		for i, c := range h.MatchConditions {
			exprs[i] = &matchconditions.MatchCondition{Name: c.Name, Expression: c.Expression}
		}
		fp := h.FailurePolicy
		h.compiled = matchconditions.NewMatcher(costed{compiler().CompileCondition(exprs, cel.OptionalVariableDeclarations{HasParams: false, HasAuthorizer: true}, environment.StoredExpressions)},
			&fp, "webhook", string(h.Phase), h.Name)
	})
	return h.compiled
}
