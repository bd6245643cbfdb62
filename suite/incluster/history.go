package incluster

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/internal/jsonmap"
	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// historyBase numbers the fresh starts HistoryIndependent applies apart
// from the run's scenarios and the shrinker's candidates (shrinkBase):
// each its own index, so its own namespaces.
const historyBase = 200_000

// historyStarts counts the fresh starts applied in this process.
var historyStarts atomic.Int64

// HistoryIndependent is the oracle of history independence (docs/faults.md;
// Anvil's eventually stable reconciliation, issue 33): the same final
// objects reached by two histories give the same status. The case p's
// final objects (the last state of simulator.States) are created at once
// as a case of their own, in namespaces of their own, without steps or
// faults, and verified as any case is (Apply, Verify); what the
// implementation then shows is compared, in the scenario's names, with
// final.Got, what it showed at the end of p's history. final is the result
// of p's last state, a pass or a failure (VerifyThrough); each difference has Kind
// "history-dependent", Want the fresh start's and Got the history's. An
// error says the fresh start could not be judged (it is skipped, or its
// run is an error). Status rules are not compared: each case's verdict
// judges them. stored are the final objects as the history left them
// (Applied.Stored of the last state): the fresh start creates them in the
// order of their creationTimestamps (finalPlan).
func (r *Runner) HistoryIndependent(ctx context.Context, p *Plan, final Result, stored []*unstructured.Unstructured) ([]compare.Difference, error) {
	if final.State != len(p.Steps) || (final.Outcome != Pass && final.Outcome != Fail) {
		return nil, fmt.Errorf("%s: the history did not reach its last state: %s at state %d of %d", p.Name, final.Outcome, final.State, len(p.Steps))
	}
	index := historyBase + int(historyStarts.Add(1))
	fresh, err := finalPlan(p, stored, TargetFor(r.Impl, r.Run, index))
	if err != nil {
		return nil, err
	}
	if fresh.Skip != "" {
		return nil, fmt.Errorf("the final objects of %s as a case of their own: %s", p.Name, fresh.Skip)
	}
	start := r.Verify(ctx, r.Apply(ctx, fresh, 0))
	if !r.Opts.Keep {
		dctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := r.Delete(dctx, fresh, index); err != nil {
			return nil, err
		}
	}
	if start.Outcome != Pass && start.Outcome != Fail {
		return nil, fmt.Errorf("the final objects of %s as a case of their own: %s: %s", p.Name, start.Outcome, start.Reason)
	}
	return historyDiff(p, fresh, final.Got, start.Got, r.Impl.Capabilities().Conditions), nil
}

// VerifyThrough applies and verifies every state of case p, from its
// creation to its last state, carrying on past a state that fails, so
// that the history reaches its final objects (HistoryIndependent): first
// is what Verify gives (the first state that did not pass, or the last),
// last the result of the last state reached; a state that is an error or
// skipped ends the history there.
func (r *Runner) VerifyThrough(ctx context.Context, p *Plan) (first, last Result) {
	first = r.Verify(ctx, r.Apply(ctx, p, 0))
	last = first
	for last.Outcome == Fail && last.State < len(p.Steps) {
		last = r.Verify(ctx, r.Apply(ctx, p, last.State+1))
	}
	return first, last
}

// finalPlan is the plan, for t, of p's final objects as a case of their
// own: the last state's objects, with the creationTimestamps of their
// objects in stored (the history's, ties, re-creations and misoperations
// included: GEP-713's Conflict resolution orders by them, so the fresh
// start creates the objects in the order the history left them), and the
// Scenario document without its steps and faults.
func finalPlan(p *Plan, stored []*unstructured.Unstructured, t Target) (*Plan, error) {
	m, err := simulator.Build(p.Docs, simulator.Options{})
	if err != nil {
		return nil, err
	}
	states, err := simulator.States(p.Docs, m.Scenario)
	if err != nil {
		return nil, err
	}
	created := make(map[string]string, len(stored))
	for _, u := range stored {
		created[u.GetKind()+" "+u.GetNamespace()+"/"+u.GetName()] = u.GetCreationTimestamp().UTC().Format(time.RFC3339)
	}
	var docs []*load.Doc
	for _, d := range states[len(states)-1].Docs {
		if ts, ok := created[d.Kind+" "+p.key(d)]; ok {
			raw := jsonmap.Clone(d.Raw)
			_ = unstructured.SetNestedField(raw, ts, "metadata", "creationTimestamp")
			d = d.WithRaw(raw)
		}
		docs = append(docs, d)
	}
	for _, d := range p.Docs {
		if d.Group == simulator.GepcheckGroup && d.Kind == "Scenario" {
			raw := jsonmap.Clone(d.Raw)
			unstructured.RemoveNestedField(raw, "spec", "steps")
			unstructured.RemoveNestedField(raw, "spec", "faults")
			docs = append([]*load.Doc{d.WithRaw(raw)}, docs...)
		}
	}
	return PlanOf(scenarios.Loaded{File: p.File, Docs: docs}, t)
}

// historyDiff compares the observation at the end of p's history with the
// fresh start's (in fresh's cluster names), both in the scenario's names,
// on the condition types conditions (all when nil).
func historyDiff(p, fresh *Plan, history, start observe.Observation, conditions []string) []compare.Difference {
	h, s := renamed(history, p.Unmap), renamed(start, fresh.Unmap)
	h.Broken, s.Broken = nil, nil
	h.Normalize()
	s.Normalize()
	ds := compare.Diff(s, h, observe.Capabilities{Conditions: conditions})
	for i := range ds {
		ds[i].Kind = compare.HistoryDependent
	}
	return ds
}

// renamed is o with every name in it (paths, refs, reached and
// unreported objects) passed through name.
func renamed(o observe.Observation, name func(string) string) observe.Observation {
	out := o
	out.Effective = make([]observe.Path, len(o.Effective))
	for i, p := range o.Effective {
		out.Effective[i] = observe.Path{Path: mapped(p.Path, name), Spec: p.Spec}
	}
	out.Policies, out.Targets = renamedStatus(o.Policies, name), renamedStatus(o.Targets, name)
	out.Rejected = make([]observe.Rejection, len(o.Rejected))
	for i, rj := range o.Rejected {
		out.Rejected[i] = observe.Rejection{Ref: name(rj.Ref), Reason: rj.Reason}
	}
	out.Reached, out.Unreported = mapped(o.Reached, name), mapped(o.Unreported, name)
	return out
}

func renamedStatus(ss []observe.Status, name func(string) string) []observe.Status {
	if ss == nil {
		return nil
	}
	out := make([]observe.Status, len(ss))
	for i, s := range ss {
		out[i] = observe.Status{Ref: name(s.Ref), Conditions: s.Conditions, Ancestors: renamedStatus(s.Ancestors, name)}
	}
	return out
}

func mapped(ss []string, name func(string) string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = name(s)
	}
	return out
}
