package admission

import (
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Check is one test the API server makes of a hook against a request.
type Check struct {
	// Name is namespaceSelector, objectSelector, rules, equivalent rules
	// or matchConditions.
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	// Detail says why, in words a person reads (which rule, which labels).
	Detail string `json:"detail"`
}

// Verdict says whether the API server calls a hook on a request, and why:
// the checks it made, in its order (generic/webhook.go, ShouldCallHook):
// namespaceSelector, objectSelector, the rules as the request names its
// resource, under matchPolicy Equivalent the rules against each equivalent
// resource, then matchConditions. The first check that fails ends it.
type Verdict struct {
	Hook   *Hook
	Called bool
	Checks []Check
	// Resource and Kind are what the hook is sent as kind and resource:
	// the request's, or under Equivalent the equivalent resource a rule
	// names and its kind (requestResource and requestKind stay the
	// request's).
	Resource schema.GroupVersionResource
	Kind     schema.GroupVersionKind
	// Error, when set, fails the request at this hook, whatever its
	// failurePolicy, before it is called: its namespaceSelector could not
	// be read (a namespace that does not exist: 404).
	Error *Failure
	// Round is 0 for the first pass, 1 for the reinvocation pass
	// (reinvocationPolicy IfNeeded).
	Round int
	// Changed says the hook's patch changed the object.
	Changed bool
	// Answer is how a called hook answered (Allow, Patch, Deny, Down,
	// Slow or Error).
	Answer Behaviour
}

// Match is the API server's ShouldCallHook: whether it calls h on req, and
// why. res gives the kinds and equivalent resources (nil: none are
// equivalent, the request's kind is req.Kind).
func Match(h *Hook, req Request, res Resources) Verdict {
	v := Verdict{Hook: h}
	// A selector's error is kept until the rules have matched: a hook
	// whose rules do not apply never fails a request.
	nsSel, objSel, nsErr, objErr := h.selectors()
	deferred, ok := v.namespaceSelector(req, nsSel, nsErr)
	if !ok {
		return v
	}
	if deferred, ok = v.objectSelector(req, objSel, objErr, deferred); !ok {
		return v
	}
	// Rules, as the request names its resource.
	for i, r := range h.Rules {
		if mutant == MutantEquivalentOnly && h.MatchPolicy == admissionv1.Equivalent {
			break
		}
		if RuleMatches(r, req.Operation, req.Resource, req.Subresource, req.Namespace) {
			v.check("rules", true, "rule %d (%s) matches %s", i, ruleString(r), describeRequest(req.Operation, req.Resource, req.Subresource))
			v.Resource, v.Kind = req.Resource, kindOf(req, res)
			return conditions(v, h, req, deferred)
		}
	}
	v.check("rules", false, "no rule matches %s", describeRequest(req.Operation, req.Resource, req.Subresource))
	if h.MatchPolicy == admissionv1.Equivalent && res != nil && mutant != MutantNoEquivalent {
		return v.equivalentRules(h, req, res, deferred)
	}
	return v
}

// check records a check of v and says whether it passed.
func (v *Verdict) check(name string, passed bool, format string, a ...any) bool {
	v.Checks = append(v.Checks, Check{Name: name, Passed: passed, Detail: fmt.Sprintf(format, a...)})
	return passed
}

// namespaceSelector is the namespaceSelector's check
// (predicates/namespace/matcher.go) of sel, parsed with err: false when it
// does not match; deferred is the failure a hook whose rules match meets
// (a selector that does not parse, a namespace that does not exist).
func (v *Verdict) namespaceSelector(req Request, sel labels.Selector, err error) (deferred *Failure, ok bool) {
	switch {
	case req.Namespace == "" && req.Resource.Resource != "namespaces":
		v.check("namespaceSelector", true, "a cluster-scoped resource passes any namespaceSelector")
	case err != nil:
		deferred = &Failure{Code: 500, Reason: "InternalError", Message: fmt.Sprintf("Internal error occurred: %v", err)}
		v.check("namespaceSelector", true, "does not parse: %v", err)
	case sel.Empty():
		v.check("namespaceSelector", true, "empty: every namespace")
	default:
		nsLabels, from := req.NamespaceLabels, "namespace "+req.Namespace
		if req.Resource.Resource == "namespaces" && req.Subresource == "" && (req.Operation == admissionv1.Create || req.Operation == admissionv1.Update) {
			// A Namespace created or updated is judged by its new labels.
			nsLabels, from = labelsOf(req.Object), "the Namespace's new labels"
		} else if nsLabels == nil {
			v.check("namespaceSelector", true, "namespace %s does not exist", req.Namespace)
			return &Failure{Code: 404, Reason: "NotFound", Message: fmt.Sprintf("namespaces %q not found", req.Namespace)}, true
		}
		return nil, v.check("namespaceSelector", sel.Matches(labels.Set(nsLabels)), "%s against %s %s", sel, from, labels.Set(nsLabels))
	}
	return deferred, true
}

// objectSelector is the objectSelector's check (predicates/object/matcher.go)
// of sel, parsed with err, against the new object or the old one: false
// when it does not match; deferred, the namespaceSelector's failure, is
// kept, or else one for a selector that does not parse.
func (v *Verdict) objectSelector(req Request, sel labels.Selector, err error, deferred *Failure) (*Failure, bool) {
	switch {
	case err != nil:
		if deferred == nil {
			deferred = &Failure{Code: 500, Reason: "InternalError", Message: fmt.Sprintf("Internal error occurred: %v", err)}
		}
		v.check("objectSelector", true, "does not parse: %v", err)
	case sel.Empty():
		v.check("objectSelector", true, "empty: every object")
	default:
		matched := matchObject(req.Object, sel) || matchObject(req.OldObject, sel)
		return deferred, v.check("objectSelector", matched, "%s against the object %s and the old object %s", sel, describeLabels(req.Object), describeLabels(req.OldObject))
	}
	return deferred, true
}

// equivalentRules matches h's rules against the resources equivalent to
// req's, earlier rules first (matchPolicy Equivalent): the first match
// sends the hook that resource and its kind.
func (v Verdict) equivalentRules(h *Hook, req Request, res Resources, deferred *Failure) Verdict {
	equivalents := res.Equivalents(req.Resource, req.Subresource)
	for i, r := range h.Rules {
		for _, e := range equivalents {
			if e == req.Resource || !RuleMatches(r, req.Operation, e, req.Subresource, req.Namespace) {
				continue
			}
			x, ok := res.Lookup(e, req.Subresource)
			kind := x.GVK()
			if !ok {
				v.Error = &Failure{Code: 500, Reason: "InternalError", Message: fmt.Sprintf("Internal error occurred: unable to convert to %v: unknown kind", e)}
				return v
			}
			v.check("equivalent rules", true, "rule %d (%s) matches %s, equivalent to the request's", i, ruleString(r), describeRequest(req.Operation, e, req.Subresource))
			v.Resource, v.Kind = e, kind
			if mutant == MutantRequestKind {
				v.Resource, v.Kind = req.Resource, kindOf(req, res)
			}
			return conditions(v, h, req, deferred)
		}
	}
	v.check("equivalent rules", false, "no rule matches a resource equivalent to %s", describeRequest(req.Operation, req.Resource, req.Subresource))
	return v
}

// selectors are h's namespaceSelector and objectSelector parsed, once per
// hook as the API server parses them (its webhook accessor keeps them:
// GetParsedNamespaceSelector, GetParsedObjectSelector).
func (h *Hook) selectors() (ns, obj labels.Selector, nsErr, objErr error) {
	h.parse.Do(func() {
		h.nsSelector, h.nsErr = metav1.LabelSelectorAsSelector(&h.NamespaceSelector)
		h.objSelector, h.objErr = metav1.LabelSelectorAsSelector(&h.ObjectSelector)
	})
	return h.nsSelector, h.objSelector, h.nsErr, h.objErr
}

// conditions finishes a verdict whose rules matched: the selector errors
// kept, then matchConditions.
func conditions(v Verdict, h *Hook, req Request, deferred *Failure) Verdict {
	if deferred != nil {
		v.Error = deferred
		return v
	}
	if len(h.MatchConditions) > 0 {
		ok, why, f := matchConditions(h, req, v.Kind)
		if f != nil {
			v.Error = f
			v.Checks = append(v.Checks, Check{Name: "matchConditions", Passed: false, Detail: "a condition errs and failurePolicy is Fail: the request fails"})
			return v
		}
		v.Checks = append(v.Checks, Check{Name: "matchConditions", Passed: ok, Detail: why})
		if !ok {
			return v
		}
	}
	v.Called = true
	return v
}

// RuleMatches is predicates/rules/rules.go: a rule matches a request when
// its scope, operations, apiGroups, apiVersions and resources all do.
// Resources: "*" is every resource but no subresource, "pods/*" pods and
// every subresource of pods (the pods resource too: a subresource "*"
// matches none), "*/scale" every scale subresource, "*/*" everything. A
// Namespace is cluster-scoped for scope, though a request on one carries
// its name as namespace.
func RuleMatches(r admissionv1.RuleWithOperations, op admissionv1.OperationType, gvr schema.GroupVersionResource, sub, namespace string) bool {
	isNamespace := gvr == namespaces
	switch deref(r.Scope, admissionv1.AllScopes) {
	case admissionv1.AllScopes:
	case admissionv1.NamespacedScope:
		if isNamespace || namespace == "" {
			return false
		}
	case admissionv1.ClusterScope:
		if !isNamespace && namespace != "" {
			return false
		}
	default:
		return false
	}
	return anyOf(r.Operations, op, admissionv1.OperationAll) &&
		anyOf(r.APIGroups, gvr.Group, "*") && anyOf(r.APIVersions, gvr.Version, "*") &&
		resourceMatches(r.Resources, gvr.Resource, sub)
}

func anyOf[T comparable](items []T, want, all T) bool {
	for _, it := range items {
		if it == all || it == want {
			return true
		}
	}
	return false
}

func resourceMatches(items []string, res, sub string) bool {
	for _, it := range items {
		r, s, _ := strings.Cut(it, "/")
		if (r == "*" || r == res) && (s == "*" || s == sub || mutant == MutantStarSubresources && r == "*" && s == "") {
			return true
		}
	}
	return false
}

// kindOf is the request's kind: as given, else the one res serves.
func kindOf(req Request, res Resources) schema.GroupVersionKind {
	if !req.Kind.Empty() || res == nil {
		return req.Kind
	}
	x, _ := res.Lookup(req.Resource, req.Subresource)
	return x.GVK()
}

func labelsOf(u *unstructured.Unstructured) map[string]string {
	if u == nil {
		return nil
	}
	return u.GetLabels()
}

// matchObject is predicates/object/matcher.go's: an object matches sel
// by its labels; none (nil), or one without metadata (a CONNECT's
// options: meta.Accessor fails), matches no selector.
func matchObject(u *unstructured.Unstructured, sel labels.Selector) bool {
	return (hasMetadata(u) || u != nil && mutant == MutantOptionsLabels) && sel.Matches(labels.Set(u.GetLabels()))
}

// hasMetadata says whether u is an object with metadata: not nil, and not
// a CONNECT's options.
func hasMetadata(u *unstructured.Unstructured) bool {
	if u == nil {
		return false
	}
	_, ok := u.Object["metadata"]
	return ok
}

func describeLabels(u *unstructured.Unstructured) string {
	switch {
	case u == nil:
		return "(none)"
	case !hasMetadata(u):
		return "(no metadata: " + u.GetKind() + ")"
	}
	return "{" + labels.Set(u.GetLabels()).String() + "}"
}

func describeRequest(op admissionv1.OperationType, r schema.GroupVersionResource, sub string) string {
	s := string(op) + " " + r.GroupVersion().String() + " " + r.Resource
	if sub != "" {
		s += "/" + sub
	}
	return s
}

func ruleString(r admissionv1.RuleWithOperations) string {
	ops := make([]string, len(r.Operations))
	for i, o := range r.Operations {
		ops[i] = string(o)
	}
	return fmt.Sprintf("operations %s, apiGroups %s, apiVersions %s, resources %s, scope %s",
		strings.Join(ops, ","), quoteAll(r.APIGroups), strings.Join(r.APIVersions, ","), strings.Join(r.Resources, ","), deref(r.Scope, admissionv1.AllScopes))
}

func quoteAll(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ",")
}
