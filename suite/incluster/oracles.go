package incluster

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// The fault oracles (docs/faults.md; issue 33, item 2).
const (
	OracleStability   = "stability"
	OracleConvergence = "convergence"
	OracleHistory     = "history"
)

// judgeFaulted judges a faulted case whose last state a was verified
// (res), beyond the comparison with the reference, which stays: (b)
// stability, nothing flips during a quiet period; then (a) convergence,
// the controller restarted on the final objects reaches what it showed;
// then (c) history independence (HistoryIndependent). The oracles compare
// the implementation with itself, so they judge a case that disagrees
// with the reference at its last state too: their differences are added
// to the reference's (an implementation with known findings everywhere
// is still judged under faults). A case that failed at an earlier state,
// or erred, is judged as it was, but for one whose status did not
// settle: its flips are a finding (flapping), not an error.
func (r *Runner) judgeFaulted(ctx context.Context, a *Applied, res Result) Result {
	last := res.Outcome == Fail && res.State == len(a.Case.Steps)
	if res.Outcome != Pass && !last && !res.unsettled {
		return res
	}
	p := a.Plan
	flips, err := r.stability(ctx, p, &res)
	if err != nil {
		res.Outcome, res.Reason = Error, p.Unmap(err.Error())
		return res
	}
	if len(flips) > 0 {
		res.Outcome, res.Diff = Fail, append(res.Diff, p.UnmapAll(flips)...)
		return res
	}
	if res.Outcome != Pass && !last || !r.oracleNeeded(compare.NotConvergent) {
		return res
	}
	if r.Controller == nil {
		res.Notes = append(res.Notes, "convergence not judged: gepcheck did not start the controller, so it cannot restart it (docs/faults.md)")
		return res
	}
	diffs, err := r.convergence(ctx, p, res.Got, &res)
	if err != nil {
		res.Outcome, res.Reason = Error, p.Unmap(err.Error())
		return res
	}
	if len(diffs) > 0 {
		res.Outcome, res.Diff = Fail, append(res.Diff, p.UnmapAll(diffs)...)
		return res
	}
	// (c) history independence: the final objects created at once, as a
	// case of their own, give what the history gave.
	if !r.oracleNeeded(compare.HistoryDependent) {
		return res
	}
	diffs, err = r.HistoryIndependent(ctx, a.Case, res, a.Stored)
	if err != nil {
		res.Outcome, res.Reason = Error, p.Unmap(err.Error())
		return res
	}
	res.Oracles = append(res.Oracles, Oracle{Name: OracleHistory, Compared: len(res.Got.Policies) + len(res.Got.Targets) + len(res.Got.Effective)})
	if len(diffs) > 0 {
		res.Outcome, res.Diff = Fail, append(res.Diff, diffs...)
	}
	return res
}

// quietStarted, when set (tests), is called as a quiet period starts.
var quietStarted func(p *Plan)

// stability watches the status of the state's objects for the quiet
// period: a write that flips no condition is counted (res.QuietWrites),
// one that flips one is a Flapping difference (res.Flips counts them).
// An oracle that watched no object is an error: it compared nothing.
func (r *Runner) stability(ctx context.Context, p *Plan, res *Result) ([]compare.Difference, error) {
	w := r.watchStatus(ctx, p.ScenarioObjects())
	if quietStarted != nil {
		quietStarted(p)
	}
	select {
	case <-ctx.Done():
		w.stop()
		return nil, ctx.Err()
	case <-time.After(r.quiet()):
	}
	w.stop()
	writes, flipped, objects := w.counts()
	res.QuietWrites, res.Flips = writes-flipped, flipped
	res.Oracles = append(res.Oracles, Oracle{Name: OracleStability, Compared: objects})
	if objects == 0 {
		return nil, fmt.Errorf("the stability oracle saw none of the case's objects during the quiet period")
	}
	return w.flipDiffs(), nil
}

// convergence kills the controller, removes the status it wrote on the
// state's policies (its conditions, and its own ancestor entries: other
// controllers' stay), starts it again and waits until it shows what it
// showed before (before), with status for every policy's generation, or
// until what it shows holds still for the settle time, or the step's time
// runs out: whatever then differs from before is a NotConvergent
// difference. With its status gone, what it shows after is what it
// reaches from the final objects alone (Anvil's eventually stable
// reconciliation), not what an earlier history left behind.
func (r *Runner) convergence(ctx context.Context, p *Plan, before observe.Observation, res *Result) ([]compare.Difference, error) {
	if err := r.Controller.Kill(); err != nil {
		return nil, fmt.Errorf("convergence: %w", err)
	}
	if err := r.removeOwnStatus(ctx, p); err != nil {
		_ = r.Controller.Start(ctx)
		return nil, fmt.Errorf("convergence: %w", err)
	}
	if err := r.Controller.Start(ctx); err != nil {
		return nil, fmt.Errorf("convergence: starting the controller again: %w", err)
	}
	res.Restarts++
	caps := r.Impl.Capabilities()
	if !caps.Effective {
		before.Effective = nil
	}
	var diff, last []compare.Difference
	var compared int
	stableSince := time.Now()
	done := func(ctx context.Context) (bool, error) {
		got, err := r.Impl.Observe(ctx, r.Kube, p)
		if err != nil {
			return false, nil
		}
		if !caps.Effective {
			got.Effective = nil
		}
		diff = compare.Diff(before, got, caps.Capabilities)
		compared = len(got.Policies) + len(got.Targets) + len(got.Effective)
		if !reflect.DeepEqual(diff, last) {
			last, stableSince = diff, time.Now()
		}
		if len(diff) > 0 && time.Since(stableSince) < r.settle() {
			return false, nil
		}
		current, _, _ := r.statusCurrent(ctx, p)
		return current, nil
	}
	_ = wait.PollUntilContextTimeout(ctx, cluster.Timeouts.Poll, r.timeout(), true, done)
	res.Oracles = append(res.Oracles, Oracle{Name: OracleConvergence, Compared: max(compared, len(before.Policies)+len(before.Targets)+len(before.Effective))})
	return notConvergent(diff), nil
}

// notConvergent are the differences between the observations before and
// after the restart, as NotConvergent differences (status rules are
// judged elsewhere).
func notConvergent(ds []compare.Difference) []compare.Difference {
	var out []compare.Difference
	for _, d := range ds {
		switch d.Kind {
		case compare.StatusRule:
			continue
		case compare.Error:
			out = append(out, compare.Difference{Kind: compare.NotConvergent, Condition: "error", Want: d.Want, Got: d.Got})
			continue
		}
		out = append(out, compare.Difference{Kind: compare.NotConvergent, Path: d.Path, Fields: d.Fields, Ref: d.Ref, Condition: d.Condition, Want: d.Want, Got: d.Got})
	}
	return out
}

// removeOwnStatus removes the implementation's status from the plan's
// policies: status.conditions, and the ancestor entries of its
// controllerName (GEP-713 PolicyAncestorStatus; others' are kept).
func (r *Runner) removeOwnStatus(ctx context.Context, p *Plan) error {
	own := r.Impl.ControllerName()
	for _, u := range p.PolicyObjects() {
		err := r.updateStatus(ctx, u, func(got *unstructured.Unstructured) error {
			unstructured.RemoveNestedField(got.Object, "status", "conditions")
			stored, ok, _ := unstructured.NestedSlice(got.Object, "status", "ancestors")
			if !ok {
				return nil
			}
			kept := []any{} // a list still: PolicyStatus.Ancestors is required
			for _, e := range stored {
				if em, _ := e.(map[string]any); em["controllerName"] != own {
					kept = append(kept, e)
				}
			}
			return unstructured.SetNestedSlice(got.Object, kept, "status", "ancestors")
		})
		if err != nil {
			return fmt.Errorf("remove the status of %s %s: %w", u.GetKind(), objName(u), err)
		}
	}
	return nil
}
