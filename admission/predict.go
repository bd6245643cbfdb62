package admission

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Failure is the API server's answer to a request it refuses.
type Failure struct {
	Code    int32  `json:"code"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Behaviour is how a called hook answers.
type Behaviour string

// Behaviours.
const (
	// Allow answers allowed: true.
	Allow Behaviour = "allow"
	// Patch (mutating hooks) answers allowed: true with a JSON patch that
	// sets the hook's annotation (PatchAnnotation): the object changes on
	// the first call and not on a second, as an idempotent webhook's
	// should.
	Patch Behaviour = "patch"
	// Deny answers allowed: false.
	Deny Behaviour = "deny"
	// Down refuses the connection.
	Down Behaviour = "down"
	// Slow answers after the hook's timeoutSeconds.
	Slow Behaviour = "slow"
	// Error answers HTTP 500.
	Error Behaviour = "error"
)

// PatchAnnotation is the annotation a hook that answers Patch sets, to
// "true": gepcheck.dev/patched- and a hash of its ID (a valid key whatever
// the ID).
func PatchAnnotation(h *Hook) string {
	f := fnv.New32a()
	f.Write([]byte(h.ID()))
	return fmt.Sprintf("gepcheck.dev/patched-%08x", f.Sum32())
}

// Prediction is what the API server does with one request: the verdict of
// every hook it considers, in its order, and what becomes of the request.
type Prediction struct {
	// Exempt says why no webhook is considered at all, or is "".
	Exempt string
	// Verdicts are the mutating hooks' verdicts (Round 0), those of the
	// reinvocation (Round 1: the hooks to reinvoke and any that fails
	// the request), then the validating hooks'. The mutating phase stops
	// where the request fails; the validating phase matches every hook
	// first and calls none if one has an Error. The hooks a refused
	// request never reached follow, each with the one failed check
	// "reached".
	Verdicts []Verdict
	Outcome  Outcome
}

// Outcome is what becomes of a request.
type Outcome struct {
	Allowed bool `json:"allowed"`
	// Failures are the answers the API server may give when it refuses
	// the request: one, or for validating hooks that fail together, any
	// of theirs (it returns the first that completes).
	Failures []Failure `json:"failures,omitempty"`
	// Mutating lists the mutating hooks called, in order, a hook
	// reinvoked twice; Validating the validating hooks called, all at
	// once, sorted.
	Mutating   []string `json:"mutating"`
	Validating []string `json:"validating"`
	// Reinvoked lists the hooks called again (reinvocationPolicy
	// IfNeeded), in order.
	Reinvoked []string `json:"reinvoked,omitempty"`
	// FailedOpen lists the hooks that failed and were ignored
	// (failurePolicy Ignore).
	FailedOpen []string `json:"failedOpen,omitempty"`
}

// Recorded is o as a recording webhook server sees it when hooks answer as
// behave says: the hooks called but those down, which refuse the
// connection and so record no call.
func (o Outcome) Recorded(behave map[string]Behaviour) Outcome {
	down := func(id string) bool { return BehaviourOf(behave, id) == Down }
	o.Mutating, o.Validating = slices.DeleteFunc(slices.Clone(o.Mutating), down), slices.DeleteFunc(slices.Clone(o.Validating), down)
	return o
}

// exemptKinds are the kinds no webhook configured through the API is ever
// called on, whatever the operation or subresource
// (predicates/rules/rules.go, IsExemptAdmissionConfigurationResource): so
// that a webhook cannot lock out the objects that configure webhooks.
var exemptKinds = []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
	"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"}

// Predict is the API server's admission of req by the hooks of chain
// (Chain's order) when each hook answers as behave says (Allow when not
// named; keys are Hook.ID: ResolveBehaviours): which hooks it calls, in what order,
// why, and the outcome.
//
// A denial always fails the request (mutating/dispatcher.go, "denied the
// request"); a hook down, slow or erring fails it under failurePolicy
// Fail ("failed calling webhook") and is ignored under Ignore. A hook
// whose patch changes the object makes every hook with reinvocationPolicy
// IfNeeded called before it due for a second call: when the first pass
// has changed the object, the API server runs the mutating chain once
// more (admission/reinvocation.go), calling only the hooks due, if they
// still match (mutating/dispatcher.go: "a webhook will not be called for
// the first time" then). Later hooks, and the validating ones, see the
// object as patched.
func Predict(chain []*Hook, req Request, res Resources, behave map[string]Behaviour) Prediction {
	p := Prediction{Outcome: Outcome{Allowed: true, Mutating: []string{}, Validating: []string{}}}
	switch kind := kindOf(req, res); {
	case !slices.Contains([]admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect}, req.Operation):
		p.Exempt = fmt.Sprintf("%s is not admitted: webhooks see CREATE, UPDATE, DELETE and CONNECT", req.Operation)
		return p
	case (kind.Group == "admissionregistration.k8s.io" || kind.Empty() && req.Resource.Group == "admissionregistration.k8s.io") && (slices.Contains(exemptKinds, kind.Kind) || kind.Empty()):
		p.Exempt = "admission configuration objects are never sent to webhooks configured through the API"
		return p
	}
	if req.Object != nil {
		req.Object = req.Object.DeepCopy() // patched below
	}
	if mutant == MutantValidatingFirst {
		if p.validate(chain, req, res, behave) {
			p.mutate(chain, &req, res, behave)
		}
	} else if p.mutate(chain, &req, res, behave) {
		p.validate(chain, ForValidation(req, res), res, behave)
	}
	seen := make(map[*Hook]bool, len(chain))
	for _, v := range p.Verdicts {
		seen[v.Hook] = true
	}
	for _, h := range chain {
		if !seen[h] {
			p.Verdicts = append(p.Verdicts, Verdict{Hook: h, Checks: []Check{{Name: "reached", Detail: "the request was refused before the API server came to it"}}})
		}
	}
	return p
}

// answer is the failure a called hook's behaviour b gives, or nil; a
// failure under failurePolicy Ignore is recorded as failed open.
func (p *Prediction) answer(h *Hook, b Behaviour) *Failure {
	switch b {
	case Deny:
		// webhook/errors ToStatusErr: a denial's code is the hook's, 400
		// when it gives none (or one below 400).
		if mutant == MutantDenialForbidden {
			return &Failure{Code: 403, Reason: "Forbidden", Message: fmt.Sprintf("admission webhook %q denied the request", h.Name)}
		}
		return &Failure{Code: 400, Reason: "BadRequest", Message: fmt.Sprintf("admission webhook %q denied the request", h.Name)}
	case Down, Slow, Error:
		if h.FailurePolicy == admissionv1.Ignore && mutant != MutantIgnoreBlocks {
			p.Outcome.FailedOpen = append(p.Outcome.FailedOpen, h.ID())
			return nil
		}
		return &Failure{Code: 500, Reason: "InternalError", Message: fmt.Sprintf("Internal error occurred: failed calling webhook %q", h.Name)}
	}
	return nil
}

func (p *Prediction) fail(f Failure) bool {
	p.Outcome.Allowed, p.Outcome.Failures = false, append(p.Outcome.Failures, f)
	return false
}

// BehaviourOf is how the hook of that ID answers, as behave (keyed by
// hook ID: ResolveBehaviours) says: Allow when behave does not name it.
func BehaviourOf(behave map[string]Behaviour, id string) Behaviour {
	if b, ok := behave[id]; ok {
		return b
	}
	return Allow
}

// mutate is the mutating phase: a first pass over the chain's mutating
// hooks and, if a patch changed the object, the reinvocation pass. It
// patches req's object and says whether the request goes on.
func (p *Prediction) mutate(chain []*Hook, req *Request, res Resources, behave map[string]Behaviour) bool {
	r := reinvocation{due: map[string]string{}}
	for round := range 2 {
		if round == 1 && (!r.changed || mutant == MutantNeverReinvoke) {
			return true
		}
		for _, h := range chain {
			if h.Phase != Mutating {
				continue
			}
			if req.budget.over() {
				return false
			}
			v := Match(h, *req, res)
			v.Round = round
			if v.Error != nil {
				p.Verdicts = append(p.Verdicts, v)
				return p.fail(*v.Error)
			}
			if round == 1 && !r.second(&v, h, p.Verdicts) {
				continue // it does not match: the second pass has nothing to say of it
			}
			p.Verdicts = append(p.Verdicts, v)
			if !v.Called {
				continue
			}
			if f := p.call(h, req, behave, round, &r); f != nil {
				return p.fail(*f)
			}
		}
	}
	return true
}

// reinvocation is webhookReinvokeContext's two sets: the IfNeeded hooks
// called since the last change (previous), and those due for a second
// call (due, with the hook whose change made them due); changed says a
// patch changed the object in the first pass.
type reinvocation struct {
	previous []string
	due      map[string]string
	changed  bool
}

// second judges v, h's verdict in the reinvocation pass (verdicts are
// those before it): a hook due is called again, one that matches but is
// not due is not. It is false for a hook neither matching nor due, of
// which the second pass says nothing.
func (r *reinvocation) second(v *Verdict, h *Hook, verdicts []Verdict) bool {
	changer, isDue := r.due[h.ID()]
	switch {
	case !v.Called && !isDue:
		return false
	case !v.Called:
	case isDue:
		v.Checks = append(v.Checks, Check{Name: "reinvocation", Passed: true, Detail: fmt.Sprintf("reinvocationPolicy IfNeeded, and %s changed the object after its first call", changer)})
	case mutant == MutantReinvokeAll && h.Reinvocation == admissionv1.IfNeededReinvocationPolicy:
	default:
		v.Called = false
		v.Checks = append(v.Checks, Check{Name: "reinvocation", Passed: false, Detail: notDue(h, verdicts)})
	}
	return true
}

// call records h, whose verdict is the last, called in round: its
// answer, and a patch's change of req's object, which makes the IfNeeded
// hooks called before it due (r). The failure is the request's when the
// patch or the answer fails it.
func (p *Prediction) call(h *Hook, req *Request, behave map[string]Behaviour, round int, r *reinvocation) *Failure {
	p.Outcome.Mutating = append(p.Outcome.Mutating, h.ID())
	if round == 1 {
		p.Outcome.Reinvoked = append(p.Outcome.Reinvoked, h.ID())
	}
	b := BehaviourOf(behave, h.ID())
	p.Verdicts[len(p.Verdicts)-1].Answer = b
	changed := false
	if b == Patch {
		var f *Failure
		if changed, f = patch(h, req.Object); f != nil {
			return f
		}
		p.Verdicts[len(p.Verdicts)-1].Changed = changed
	}
	if mutant == MutantOwnChange && h.Reinvocation == admissionv1.IfNeededReinvocationPolicy {
		r.previous = append(r.previous, h.ID())
	}
	if changed {
		for _, id := range r.previous {
			r.due[id] = h.ID()
		}
		r.previous, r.changed = nil, true
	}
	if h.Reinvocation == admissionv1.IfNeededReinvocationPolicy && mutant != MutantOwnChange {
		r.previous = append(r.previous, h.ID())
	}
	return p.answer(h, b)
}

// PatchFor is the JSON patch (RFC 6902) a hook that answers Patch sends
// on object (JSON; none for a DELETE): it sets annotation key
// (PatchAnnotation) to "true", or is nil when the annotation is set (a
// second call changes nothing, as an idempotent webhook's). On an object
// without metadata (a CONNECT's options) it is sent all the same, as a
// careless webhook sends it.
func PatchFor(object []byte, key string) []byte {
	var o struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(object, &o)
	return annotationPatch(o.Metadata.Annotations, key)
}

// annotationPatch is PatchFor of an object whose annotations are
// annotations (nil: none, or no metadata).
func annotationPatch(annotations map[string]string, key string) []byte {
	if _, ok := annotations[key]; ok {
		return nil
	}
	op := map[string]any{"op": "add", "path": "/metadata/annotations", "value": map[string]string{key: "true"}}
	if annotations != nil {
		// RFC 6901: "/" in a key is written "~1".
		op = map[string]any{"op": "add", "path": "/metadata/annotations/" + strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1"), "value": "true"}
	}
	patch, _ := json.Marshal([]any{op})
	return patch
}

// patch applies the patch of h, a hook that answers Patch (PatchFor), to
// obj (the request's object, nil for a DELETE) as mutating/dispatcher.go
// does, with its JSON patch library: whether it changed the object, or
// the failure when it does not apply, which fails the request whatever
// the failurePolicy (it is not an error calling the hook).
func patch(h *Hook, obj *unstructured.Unstructured) (bool, *Failure) {
	internal := func(err error) *Failure {
		return &Failure{Code: 500, Reason: "InternalError", Message: "Internal error occurred: " + err.Error()}
	}
	if obj == nil {
		// "a non-empty patch was provided, and we have no object we
		// can apply it to (e.g. a DELETE admission operation), error".
		return false, internal(fmt.Errorf("admission webhook %q attempted to modify the object, which is not supported for this operation", h.Name))
	}
	p := annotationPatch(obj.GetAnnotations(), PatchAnnotation(h))
	if p == nil {
		return false, nil
	}
	// The patch is applied to the object's metadata alone, which is all
	// it touches (/metadata/annotations): the same result as on the whole
	// object, without writing and reading the whole object again for
	// every hook (200 patching hooks on a 12.8 MB object took over a
	// minute; issue 28).
	doc := obj.Object
	md, isMap := obj.Object["metadata"].(map[string]any)
	if isMap {
		doc = map[string]any{"metadata": md}
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return false, internal(err)
	}
	decoded, err := jsonpatch.DecodePatch(p)
	if err != nil {
		return false, internal(err)
	}
	patched, err := decoded.Apply(js)
	if err != nil {
		return false, internal(err) // a CONNECT's options: no metadata to annotate
	}
	var m map[string]any
	if err := utiljson.Unmarshal(patched, &m); err != nil {
		return false, internal(err)
	}
	changed := !apiequality.Semantic.DeepEqual(doc, m)
	if isMap {
		o := maps.Clone(obj.Object)
		o["metadata"] = m["metadata"]
		obj.Object = o
	} else {
		obj.Object = m
	}
	return changed, nil
}

// notDue says why a hook that matches is not called in the second pass.
func notDue(h *Hook, first []Verdict) string {
	switch {
	case !slices.ContainsFunc(first, func(v Verdict) bool { return v.Round == 0 && v.Hook == h && v.Called }):
		return "not called in the first pass: the second never calls a hook for the first time"
	case h.Reinvocation != admissionv1.IfNeededReinvocationPolicy:
		return "called once: reinvocationPolicy " + string(h.Reinvocation)
	}
	return "reinvocationPolicy IfNeeded, but no other hook changed the object after its first call"
}

// ForValidation is req as its validating hooks are sent it: after the
// mutating hooks, the resource's storage prepares the object and calls the
// validating phase (registry/generic/registry/store.go: rest.BeforeCreate
// and BeforeUpdate, then the validation), and some subresources lose what
// the mutating hooks did to the object's metadata on the way (kube-apiserver
// v1.36.3; only labels and annotations, which gepcheck's objects carry):
//
//   - a scale subresource's validation is sent a Scale made anew from the
//     updated object (toScaleUpdateValidation: scaleFromDeployment and its
//     kin, scaleFromCustomResource): name and namespace, no labels, no
//     annotations;
//   - a custom resource's status keeps only the status of the object sent:
//     the rest is the stored object's (customresource statusStrategy);
//   - pods/ephemeralcontainers and pods/resize reset the metadata to the
//     stored object's (ResetObjectMetaForStatus); deployments/status its
//     labels (deploymentStatusStrategy).
//
// Other subresources, pods/status among them, are assumed to keep it.
func ForValidation(req Request, res Resources) Request {
	if req.Object == nil || req.Subresource == "" {
		return req
	}
	var x Served
	if res != nil {
		x, _ = res.Lookup(req.Resource, req.Subresource)
	}
	old := func(keep ...string) {
		u := req.Object.DeepCopy()
		for _, f := range keep {
			v, _, _ := unstructured.NestedFieldCopy(req.OldObject.Object, "metadata", f)
			if v == nil {
				unstructured.RemoveNestedField(u.Object, "metadata", f)
			} else {
				_ = unstructured.SetNestedField(u.Object, v, "metadata", f)
			}
		}
		req.Object = u
	}
	switch gr, sub := req.Resource.GroupResource().String(), req.Subresource; {
	case mutant == MutantStorageKeepsMetadata:
	case sub == "scale":
		u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{}}}
		u.SetGroupVersionKind(req.Object.GroupVersionKind())
		u.SetName(req.Object.GetName())
		u.SetNamespace(req.Object.GetNamespace())
		req.Object = u
	case req.OldObject == nil:
	case x.Custom && sub == "status", gr == "pods" && (sub == "ephemeralcontainers" || sub == "resize"):
		old("labels", "annotations")
	case gr == "deployments.apps" && sub == "status":
		old("labels")
	}
	return req
}

// validate is the validating phase: every hook matched first, none called
// if one has an Error, then all called at once.
func (p *Prediction) validate(chain []*Hook, req Request, res Resources, behave map[string]Behaviour) bool {
	var called []int // indices in p.Verdicts
	for _, h := range chain {
		if h.Phase != Validating {
			continue
		}
		if req.budget.over() {
			return false
		}
		v := Match(h, req, res)
		p.Verdicts = append(p.Verdicts, v)
		if v.Error != nil {
			// Matched before any is called: the first error ends it.
			return p.fail(*v.Error)
		}
		if v.Called {
			called = append(called, len(p.Verdicts)-1)
		}
	}
	for _, i := range called {
		v := &p.Verdicts[i]
		v.Answer = BehaviourOf(behave, v.Hook.ID())
		p.Outcome.Validating = append(p.Outcome.Validating, v.Hook.ID())
		if f := p.answer(v.Hook, v.Answer); f != nil {
			p.fail(*f)
		}
	}
	slices.Sort(p.Outcome.Validating)
	return p.Outcome.Allowed
}
