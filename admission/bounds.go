package admission

import (
	"context"
	"fmt"

	admissionapi "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// DefaultMaxCELCost is the most CEL cost the matchConditions of all the
// hooks of one request may spend in a prediction, by default
// (--max-request-cel-cost; docs/limits.md, Admission and check): 10,000,000, the
// API server's RuntimeCELCostBudget (k8s.io/apiserver/pkg/apis/cel,
// config.go), which bounds a whole ValidatingAdmissionPolicyBinding or a
// custom resource's validation rules.
//
// kube-apiserver itself bounds matchConditions per expression
// (PerCallLimit, 1,000,000) and per webhook (RuntimeCELCostBudgetMatchConditions,
// 2,500,000, the budget webhook/matchconditions/matcher.go gives each
// Match), not per request: a request's webhooks are bounded together only
// by its deadline (--request-timeout, 60 s by default), which interrupts
// CEL (InterruptCheckFrequency, every 100 iterations of a comprehension).
// A prediction keeps the API server's per-expression and per-webhook
// budgets (a hook over them errs as it would) and adds this one, on
// gepcheck's side: past it, the prediction stops with an error instead of
// an answer, so that it never says what the API server would do after a
// deadline gepcheck cannot know.
const DefaultMaxCELCost = celconfig.RuntimeCELCostBudget

// Bounds bound one prediction (PredictBounded).
type Bounds struct {
	// MaxCELCost is the most CEL cost the matchConditions of all the
	// hooks may spend on the request, evaluations of a hook called
	// again included; 0 is no limit.
	MaxCELCost int64
}

// LimitError is a prediction stopped by a bound of Bounds or by its
// context; Msg says which, without naming a flag.
type LimitError struct{ Msg string }

func (e *LimitError) Error() string { return e.Msg }

// budget is what one prediction has spent; a Request carries it to the
// matchConditions of every hook it is matched against.
type budget struct {
	ctx   context.Context
	max   int64
	spent int64
	err   *LimitError
}

type budgetKey struct{}

// over says whether the prediction must stop: its context is done, or its
// CEL cost is past the limit; the reason is kept in b.err.
func (b *budget) over() bool {
	if b == nil {
		return false
	}
	if b.err != nil {
		return true
	}
	switch {
	case b.ctx.Err() != nil:
		b.err = &LimitError{Msg: "the prediction was stopped: " + context.Cause(b.ctx).Error()}
	case b.max > 0 && b.spent > b.max:
		b.err = &LimitError{Msg: fmt.Sprintf("the matchConditions of the request's webhooks cost more than %d in all (the limit; kube-apiserver bounds each webhook's at %d and the request by its timeout)", b.max, celconfig.RuntimeCELCostBudgetMatchConditions)}
	}
	return b.err != nil
}

// context is the context a hook's matchConditions are evaluated in: the
// prediction's, which interrupts CEL when it is done, carrying b.
func (b *budget) context() context.Context {
	if b == nil {
		return context.Background()
	}
	return context.WithValue(b.ctx, budgetKey{}, b)
}

// costed is a ConditionEvaluator that adds the cost of every evaluation
// to the budget its context carries: the API server's matcher keeps the
// budget a Match leaves to itself.
type costed struct{ cel.ConditionEvaluator }

func (c costed) ForInput(ctx context.Context, va *admission.VersionedAttributes, r *admissionapi.AdmissionRequest, vars cel.OptionalVariableBindings, ns *corev1.Namespace, limit int64) ([]cel.EvaluationResult, int64, error) {
	out, left, err := c.ConditionEvaluator.ForInput(ctx, va, r, vars, ns, limit)
	if b, ok := ctx.Value(budgetKey{}).(*budget); ok {
		if left < 0 || left > limit {
			left = 0 // out of budget, or not counted: all of it
		}
		b.spent += limit - left
	}
	return out, left, err
}

// PredictBounded is Predict within b and ctx: it stops between hooks, and
// CEL within a condition, when ctx is done (a signal, a deadline) or the
// request's matchConditions have cost more than b.MaxCELCost, and then
// returns a *LimitError and no prediction.
func PredictBounded(ctx context.Context, b Bounds, chain []*Hook, req Request, res Resources, behave map[string]Behaviour) (Prediction, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	bd := &budget{ctx: ctx, max: b.MaxCELCost}
	req.budget = bd
	p := Predict(chain, req, res, behave)
	if bd.over() {
		return Prediction{}, bd.err
	}
	return p, nil
}
