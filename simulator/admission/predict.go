package admission

import (
	"fmt"
	"slices"

	admissionv1 "k8s.io/api/admissionregistration/v1"
)

// Failure is the API server's answer to a request it refuses.
type Failure struct {
	Code    int32  `json:"code"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Prediction is what the API server does with one request: the verdict of
// every hook it considers, in the chain's order.
type Prediction struct {
	// Exempt says why no webhook is considered at all, or is "".
	Exempt string
	// Verdicts are the mutating hooks' verdicts, then the validating
	// hooks'. The mutating phase stops at a hook whose verdict has an
	// Error (later ones are not considered); the validating phase matches
	// every hook first and calls none if one has an Error.
	Verdicts []Verdict
}

// exemptKinds are the kinds no webhook configured through the API is ever
// called on, whatever the operation or subresource
// (predicates/rules/rules.go, IsExemptAdmissionConfigurationResource): so
// that a webhook cannot lock out the objects that configure webhooks.
var exemptKinds = []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration",
	"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"}

// Predict is the API server's admission of req by the hooks of chain
// (Chain's order): which it calls, in what order, and why.
func Predict(chain []*Hook, req Request, res Resources) Prediction {
	var p Prediction
	switch kind := kindOf(req, res); {
	case !slices.Contains([]admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect}, req.Operation):
		p.Exempt = fmt.Sprintf("%s is not admitted: webhooks see CREATE, UPDATE, DELETE and CONNECT", req.Operation)
		return p
	case (kind.Group == "admissionregistration.k8s.io" || kind.Empty() && req.Resource.Group == "admissionregistration.k8s.io") && (slices.Contains(exemptKinds, kind.Kind) || kind.Empty()):
		p.Exempt = "admission configuration objects are never sent to webhooks configured through the API"
		return p
	}
	phases := []Phase{Mutating, Validating}
	if mutant == MutantValidatingFirst {
		phases = []Phase{Validating, Mutating}
	}
	for _, phase := range phases {
		for _, h := range chain {
			if h.Phase != phase {
				continue
			}
			v := Match(h, req, res)
			p.Verdicts = append(p.Verdicts, v)
			if v.Error != nil && phase == Mutating {
				return p // the request fails here
			}
		}
	}
	return p
}

// Behaviour is how a called hook answers.
type Behaviour string

// Behaviours.
const (
	// Allow answers allowed: true.
	Allow Behaviour = "allow"
	// Deny answers allowed: false.
	Deny Behaviour = "deny"
	// Down refuses the connection.
	Down Behaviour = "down"
	// Slow answers after the hook's timeoutSeconds.
	Slow Behaviour = "slow"
	// Error answers HTTP 500.
	Error Behaviour = "error"
)

// Outcome is what becomes of a request.
type Outcome struct {
	Allowed bool `json:"allowed"`
	// Failures are the answers the API server may give when it refuses
	// the request: one, or for validating hooks that fail together, any
	// of theirs (it returns the first that completes).
	Failures []Failure `json:"failures,omitempty"`
	// Mutating lists the mutating hooks called, in order; Validating the
	// validating hooks called, all at once.
	Mutating   []string `json:"mutating"`
	Validating []string `json:"validating"`
	// FailedOpen lists the hooks that failed and were ignored
	// (failurePolicy Ignore).
	FailedOpen []string `json:"failedOpen,omitempty"`
}

// Outcome is what becomes of the request when each hook behaves as
// behave says (Allow when not named; keys are Hook.ID or names): a denial
// always fails it (mutating/dispatcher.go, "denied the request"); a hook
// down, slow or erring fails it under failurePolicy Fail ("failed calling
// webhook") and is ignored under Ignore.
func (p Prediction) Outcome(behave map[string]Behaviour) Outcome {
	o := Outcome{Allowed: true, Mutating: []string{}, Validating: []string{}}
	answer := func(v Verdict) *Failure {
		b, ok := behave[v.Hook.ID()]
		if !ok {
			b = behave[v.Hook.Name]
		}
		switch b {
		case Deny:
			return &Failure{Code: 400, Reason: "BadRequest", Message: fmt.Sprintf("admission webhook %q denied the request", v.Hook.Name)}
		case Down, Slow, Error:
			if v.Hook.FailurePolicy == admissionv1.Ignore && mutant != MutantIgnoreBlocks {
				o.FailedOpen = append(o.FailedOpen, v.Hook.ID())
				return nil
			}
			return &Failure{Code: 500, Reason: "InternalError", Message: fmt.Sprintf("Internal error occurred: failed calling webhook %q", v.Hook.Name)}
		}
		return nil
	}
	var validating []Verdict
	for _, v := range p.Verdicts {
		if v.Hook.Phase == Validating {
			validating = append(validating, v)
			continue
		}
		if v.Error != nil {
			o.Allowed, o.Failures = false, []Failure{*v.Error}
			return o
		}
		if !v.Called {
			continue
		}
		o.Mutating = append(o.Mutating, v.Hook.ID())
		if f := answer(v); f != nil {
			o.Allowed, o.Failures = false, []Failure{*f}
			return o
		}
	}
	for _, v := range validating {
		if v.Error != nil {
			// Matched before any is called: the first error ends it.
			o.Allowed, o.Failures = false, []Failure{*v.Error}
			return o
		}
	}
	for _, v := range validating {
		if !v.Called {
			continue
		}
		o.Validating = append(o.Validating, v.Hook.ID())
		if f := answer(v); f != nil {
			o.Allowed = false
			o.Failures = append(o.Failures, *f)
		}
	}
	slices.Sort(o.Validating)
	return o
}
