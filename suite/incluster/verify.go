package incluster

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Verify verifies state a.State of a case, applied, then, while it
// passes, each later state, applied one after the other (Apply): the
// result is that of the first state that did not pass, or of the last. A
// case without steps has one state. A case with faults (Plan.Faults) is
// judged by the fault oracles too, once its last state is verified
// (judgeFaulted; docs/faults.md).
func (r *Runner) Verify(ctx context.Context, a *Applied) Result {
	res := r.verifyApplied(ctx, a)
	faulted := len(a.Case.Faults) > 0
	first := res
	faults, restarts := a.Faults, a.Restarts
	// A faulted case is carried on past a state that fails to its last
	// state, so that the oracles judge an implementation that disagrees
	// with the reference early in its history too (docs/faults.md).
	for i := a.State + 1; i <= len(a.Case.Steps) && (res.Outcome == Pass || faulted && res.Outcome == Fail); i++ {
		a = r.Apply(ctx, a.Case, i)
		res = r.verifyApplied(ctx, a)
		faults, restarts = append(faults, a.Faults...), restarts+a.Restarts
		if first.Outcome == Pass {
			first = res
		}
	}
	if !faulted {
		return res
	}
	res.Faults, res.Restarts = faults, restarts
	res = r.judgeFaulted(ctx, a, res)
	if first.Outcome == Pass || first.State == res.State {
		return res
	}
	return carriedOn(first, res)
}

// carriedOn is the verdict of a faulted case that failed at state
// first.State and was carried on to last.State (Verify): the first
// failure, with what the oracles found at the end added, and what the
// faults and oracles did.
func carriedOn(first, last Result) Result {
	out := first
	for _, d := range last.Diff {
		if compare.OracleKind(d.Kind) {
			out.Diff = append(out.Diff, d)
		}
	}
	out.Notes = append(slices.Clone(first.Notes), fmt.Sprintf("carried on to the last state (%s) for the oracles: %s there", last.Label(), last.Outcome))
	out.Faults, out.Restarts, out.Oracles = last.Faults, last.Restarts, last.Oracles
	out.QuietWrites, out.Flips = last.QuietWrites, last.Flips
	return out
}

// verifyApplied verifies one state, then releases the watches a delay
// fault held during it.
func (r *Runner) verifyApplied(ctx context.Context, a *Applied) Result {
	res := r.verifyState(ctx, a)
	if a.Delayed {
		r.Watches.Release()
	}
	return res
}

// verifyState waits for the implementation's status and compares it with
// the expectation computed from the stored objects. It observes every
// cluster.Timeouts.Poll until the step's timeout, as gateway-api's
// conformance suite polls (wait.PollUntilContextTimeout).
func (r *Runner) verifyState(ctx context.Context, a *Applied) Result {
	p := a.Plan
	v := &verifying{r: r, a: a, p: p, res: Result{Plan: p, Notes: a.Notes, Case: a.Case, State: a.State}}
	if p.Skip != "" {
		v.res.Outcome, v.res.Reason = Skip, p.Skip
		return v.res
	}
	if a.Skip != "" {
		v.res.Outcome, v.res.Reason = Skip, a.Skip
		return v.res
	}
	if a.Err != nil {
		v.res.Outcome, v.res.Reason = Error, p.Unmap(a.Err.Error())
		return v.res
	}
	out, err := a.Expect(p.Profiles)
	if err != nil {
		v.res.Outcome, v.res.Reason = Error, p.Unmap(err.Error())
		return v.res
	}
	v.caps = r.Impl.Capabilities()
	v.want = r.Impl.Expectation(p.Name, out)
	if !v.caps.Effective {
		v.want.Effective = nil
	}
	v.res.Want = v.want
	// A controller that retried through an outage of kube-apiserver with
	// exponential backoff (controller-runtime's default rate limiter)
	// tries next at most about one outage after it ends: the delays
	// double, so the last is about the sum of those before it.
	v.settle = r.settle() + a.Outage
	v.stableSince = time.Now()
	if wait.PollUntilContextTimeout(ctx, cluster.Timeouts.Poll, r.timeout(), true, v.observe) != nil {
		return v.timedOut()
	}
	return v.res
}

// verifying is one Verify's state: what its observations saw so far.
type verifying struct {
	r      *Runner
	a      *Applied
	p      *Plan
	caps   Capabilities
	want   observe.Observation
	settle time.Duration
	res    Result

	// The latest observation's differences and error, and the previous.
	diff, last   []compare.Difference
	err, lastErr error
	statusErr    error
	// lastOK: the differences of the latest observation that disagreed.
	lastOK []compare.Difference
	haveOK bool
	// agreed: some observation agreed with the expectation; changes: how
	// often the differences observed changed; seen: whether a set of
	// differences came back after another.
	agreed      bool
	changes     int
	seen        diffHistory
	stableSince time.Time
	agreeSince  time.Time
}

// observe observes the implementation once; it is done when it has set
// the verdict (Pass, or Fail on a disagreement that held still).
func (v *verifying) observe(ctx context.Context) (bool, error) {
	r, p := v.r, v.p
	got, err := r.Impl.Observe(ctx, r.Kube, p)
	if err != nil && ctx.Err() != nil {
		// The step's time ran out during this observation: it saw
		// nothing, and the verdict is the previous observations'.
		return false, nil
	}
	v.diff, v.err = nil, err
	if err == nil {
		if done := v.judge(ctx, got); done {
			return true, nil
		}
	}
	v.track()
	// A disagreement that held still for settle is final once every
	// policy has status for its generation (read only then: it costs
	// a read of each policy).
	if err == nil && len(v.diff) > 0 && time.Since(v.stableSince) >= v.settle {
		current, stored, serr := r.statusCurrent(ctx, p)
		v.statusErr = serr
		if current {
			v.res.Outcome, v.res.Diff = Fail, append(p.UnmapAll(v.diff), r.statusRuleDiffs(ctx, p, stored)...)
			return true, nil
		}
	}
	return false, nil
}

// judge compares an observation with the expectation; it is done when they
// agree for good.
func (v *verifying) judge(ctx context.Context, got observe.Observation) bool {
	r, p := v.r, v.p
	if !v.caps.Effective {
		got.Effective = nil
	}
	v.diff = compare.Diff(v.want, got, v.caps.Capabilities)
	v.res.Got = got
	if len(v.diff) > 0 {
		v.agreeSince = time.Time{}
		v.lastOK, v.haveOK = v.diff, true
		return false
	}
	v.agreed = true
	if v.agreeSince.IsZero() {
		v.agreeSince = time.Now()
	}
	if !v.stepDone(ctx) {
		return false
	}
	if len(v.want.Policies) > 0 {
		r.sawStatus.Store(true) // it wrote the conditions expected
	}
	if broken := r.statusRuleDiffs(ctx, p, nil); len(broken) > 0 {
		// The conditions agree; the status they are written in breaks
		// a rule of the specs.
		v.res.Outcome, v.res.Diff = Fail, broken
		return true
	}
	v.res.Outcome = Pass
	return true
}

// stepDone says whether an agreement is final. After a step the previous
// state's status may still agree: the agreement must hold for settle, with
// status written for every policy's current generation.
func (v *verifying) stepDone(ctx context.Context) bool {
	if v.a.State == 0 {
		return true
	}
	if time.Since(v.agreeSince) < v.settle {
		return false
	}
	current, _, serr := v.r.statusCurrent(ctx, v.p)
	v.statusErr = serr
	if !current {
		v.lastOK, v.haveOK = nil, true
	}
	return current
}

// track notes when what was observed last changed, and how.
func (v *verifying) track() {
	diff, err := v.diff, v.err
	if !reflect.DeepEqual(diff, v.last) || (err == nil) != (v.lastErr == nil) {
		v.stableSince = time.Now()
		if err == nil && v.lastErr == nil && len(v.last) > 0 {
			v.changes++
		}
		if err == nil && len(diff) > 0 {
			v.seen.observe(diff)
		}
	}
	v.last, v.lastErr = diff, err
}

// timedOut is the verdict when the step's time ran out without one.
func (v *verifying) timedOut() Result {
	r, p, res := v.r, v.p, v.res
	res.Outcome = Error
	if (v.err == nil && v.statusErr == nil) || v.haveOK {
		// Say which policies lack status, if any.
		sctx, cancel := context.WithTimeout(context.Background(), cluster.Timeouts.StatusRead)
		_, _, v.statusErr = r.statusCurrent(sctx, p)
		cancel()
	}
	var none *noStatusError
	if v.haveOK && errors.As(v.statusErr, &none) && (r.sawStatus.Load() || r.serving(p) || v.a.Restarts > 0) {
		// A policy a running implementation never gave status to within
		// the step's time is a difference of its own (GEP-713, Policy
		// status), not a run that failed; so is one a controller that
		// gepcheck restarted during the state (a restart fault,
		// docs/faults.md) left without.
		res.Outcome, res.Reason, res.Diff = Fail, p.Unmap(v.statusErr.Error()), p.UnmapAll(v.lastOK)
		return res
	}
	if v.haveOK && !v.agreed && v.statusErr == nil && v.seen.recurred {
		// Every policy has status for its generation, every observation
		// disagreed with the expectation, and what disagreed flipped: a
		// set of differences came back after another (a status that
		// flips between two writes, as Traefik's per-listener entry when
		// a policy wins on one port and loses on another behind it): a
		// disagreement, not a run that failed. A controller still
		// converging, whose differences changed but never came back, is
		// not judged by it. The last differences observed are the
		// verdict's.
		res.Outcome, res.Diff = Fail, p.UnmapAll(v.lastOK)
		res.Reason = fmt.Sprintf("%s's status did not settle within %s: it changed %d times, never agreeing with the reference; the last differences", r.Impl.Name(), r.timeout(), v.changes)
		return res
	}
	switch {
	case v.err != nil:
		res.Reason = p.Unmap(v.err.Error())
	case v.statusErr != nil:
		res.Reason = p.Unmap(v.statusErr.Error())
	default:
		res.Reason = fmt.Sprintf("%s did not settle within %s", r.Impl.Name(), r.timeout())
		res.unsettled = true
	}
	res.Diff = p.UnmapAll(v.diff)
	return res
}
