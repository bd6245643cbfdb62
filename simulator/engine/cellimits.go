package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/interpreter"
)

// CEL limits (docs/limits.md). A Kuadrant `when` condition is a CEL
// expression evaluated on every path a policy's block meets, so each one is
// bounded as Kubernetes bounds CEL validation rules: a worst-case cost
// estimated when it is compiled, an actual cost counted as it runs, and a
// wall-clock limit per evaluation.
const (
	// DefaultCELMaxCost is the default most cost of one condition, estimated
	// and actual (Kubernetes' per-call limit of validation rules).
	DefaultCELMaxCost = 1_000_000
	// DefaultCELTimeout is the default wall-clock limit of one evaluation.
	DefaultCELTimeout = 100 * time.Millisecond
	// CELListSize is the most elements the cost estimate assumes for each
	// list or map in `self`: an estimate needs a size, and `self` is
	// dynamic. Evaluation counts the real cost, whatever the size.
	CELListSize = 1000
	// CELMaxLength is the most code points of one expression.
	CELMaxLength = 10_000
)

// CELLimits bound the evaluation of `when` conditions. Zero fields take the
// defaults.
type CELLimits struct {
	// MaxCost bounds a condition's worst-case estimated cost when it is
	// compiled (a condition over it makes the policy Invalid) and its
	// actual cost each time it is evaluated.
	MaxCost uint64
	// Timeout bounds the wall-clock time of one evaluation.
	Timeout time.Duration
}

// OrDefault fills the zero fields of l.
func (l CELLimits) OrDefault() CELLimits {
	if l.MaxCost == 0 {
		l.MaxCost = DefaultCELMaxCost
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultCELTimeout
	}
	return l
}

// LimitError says which limit a policy's condition went over: the policy is
// Invalid with Error as its message, in the CLI's error and in a
// controller's status condition alike.
type LimitError struct {
	Policy string // ref of the policy
	Field  string // e.g. spec.defaults.when
	Limit  string // flag that raises the limit, e.g. --max-cel-cost
	Msg    string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: %s (raise with %s)", e.Field, e.Msg, e.Limit)
}

// sizeBound is the cost estimator of `self`: every list, map and string of
// unknown size holds at most CELListSize elements; calls cost what cel-go
// says they cost.
type sizeBound struct{}

func (sizeBound) EstimateSize(checker.AstNode) *checker.SizeEstimate {
	return &checker.SizeEstimate{Min: 0, Max: CELListSize}
}

func (sizeBound) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// celEnvironment is the environment of `when` conditions: `self` is the
// effective policy so far (Kuadrant RFC, "Merging a block with conditions").
func celEnvironment() (*cel.Env, error) {
	return cel.NewEnv(cel.Variable("self", cel.DynType), cel.ParserExpressionSizeLimit(CELMaxLength))
}

// estimate refuses an expression whose worst-case cost is over the limit.
func estimate(env *cel.Env, ast *cel.Ast, lim CELLimits) error {
	c, err := env.EstimateCost(ast, sizeBound{})
	if err != nil {
		return err
	}
	if c.Max > lim.MaxCost {
		return fmt.Errorf("estimated worst-case CEL cost %d is over the limit of %d (with up to %d elements in each list of self)", c.Max, lim.MaxCost, CELListSize)
	}
	return nil
}

// evaluate runs a compiled condition within the cost and time limits. A
// limit hit is a *LimitError without its policy and field; any other
// evaluation error is returned as it is ("conditions do not match").
func evaluate(prg cel.Program, self any, lim CELLimits) (bool, *LimitError, error) {
	ctx, cancel := context.WithTimeout(context.Background(), lim.Timeout)
	defer cancel()
	out, _, err := prg.ContextEval(ctx, map[string]any{"self": self})
	var ec interpreter.EvalCancelledError
	switch {
	case err == nil:
	case errors.As(err, &ec) && ec.Cause == interpreter.CostLimitExceeded:
		return false, &LimitError{Limit: "--max-cel-cost", Msg: fmt.Sprintf("actual CEL cost is over the limit of %d", lim.MaxCost)}, nil
	case ctx.Err() != nil:
		return false, &LimitError{Limit: "--cel-timeout", Msg: fmt.Sprintf("CEL evaluation took longer than the limit of %s", lim.Timeout)}, nil
	default:
		return false, nil, err
	}
	b, ok := out.Value().(bool)
	return ok && b, nil, nil
}
