package differential

import (
	"context"
	"fmt"
	"slices"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// A batched differential run: many independent cases, one namespace
// each, observed by the implementation in few calls (one translator
// process per batch costs about a second before it does any work),
// compared with the reference; each disagreement is shrunk, also in
// batches, to a minimal case.
//
// A case's states are a list (generators.Case.States): one for a
// scenario, the objects as created and after each step for a case that
// changes over time (scenarios/README.md, Steps), each state translated
// whole, as a translator would read the objects at that step. A case
// disagrees at its first state that differs; a difference first seen
// after a change is a finding of its own (KIND-after-step), as in a
// cluster.

// Disagreement is a case on which an implementation and the reference
// differ, at a state.
type Disagreement struct {
	Seed int
	Case generators.Case
	// State is the index of the state that differs (0: as created;
	// Label names it).
	State int
	Diff  []compare.Difference
	Want  observe.Observation
	Got   observe.Observation
}

// Label names the state that differs in reports: "" for a case without
// steps (generators.Case.StateLabel).
func (d Disagreement) Label() string { return d.Case.StateLabel(d.State) }

// Kinds are the kinds of difference d shows, after a step when its state
// is one after a change.
func (d Disagreement) Kinds() []compare.Found {
	var fs []compare.Found
	for _, k := range compare.Kinds(d.Diff) {
		fs = append(fs, compare.Found{Kind: k, AfterStep: d.State > 0})
	}
	return fs
}

// disagrees says whether d is a disagreement: a difference, or a case
// the implementation failed on or that could not be read.
func (d Disagreement) disagrees() bool { return len(d.Diff) > 0 || d.Got.Error != "" }

// judge compares, for every case, each state with the reference's
// outcome for it, until the first that differs: one call to the
// implementation per state index, with that state of every case still
// agreeing (each case has namespaces of its own). A case that cannot be
// read is a disagreement with Got.Error set.
func judge(ctx context.Context, d observe.Observer, profile string, cases []generators.Case, caps observe.Capabilities) ([]Disagreement, error) {
	out := make([]Disagreement, len(cases))
	states := make([][]generators.State, len(cases))
	for i, c := range cases {
		out[i].Case = c
		sts, err := c.States(profile)
		if err != nil {
			out[i].Got.Error = err.Error()
		}
		states[i] = sts
	}
	for k := 0; ; k++ {
		var batch []observe.Case
		var idx []int
		for i, c := range cases {
			if out[i].Got.Error == "" && len(out[i].Diff) == 0 && k < len(states[i]) {
				batch = append(batch, observe.Case{Name: stateName(c, i, states[i][k]), YAML: states[i][k].YAML, Profiles: []string{profile}})
				idx = append(idx, i)
			}
		}
		if len(batch) == 0 {
			return out, nil
		}
		want := observe.Reference(batch, caps)
		got, err := d.Observe(ctx, batch)
		if err != nil {
			return nil, err
		}
		for j, i := range idx {
			out[i].State = k
			out[i].Want, out[i].Got = want[j], got[j]
			out[i].Diff = compare.Diff(want[j], got[j], caps)
		}
	}
}

// stateName names state st of case i of a batch for the implementation:
// the namespace of a case without steps, else its index and the label.
func stateName(c generators.Case, i int, st generators.State) string {
	if !c.Changes() {
		return c.Namespace()
	}
	return fmt.Sprintf("%d %s", i, st.Label)
}

// maxShrinkRounds bounds each shrink (each round removes a policy, a
// field, a step or an object).
const maxShrinkRounds = 40

// Shrink makes a disagreement smaller while it still shows kind (a
// difference after a change stays after a change): each round judges, in
// one batch, side by side in namespaces of their own, the cases one step
// smaller (generators.Case.Smaller: for a scenario, one policy, spec
// field, object, section or reference removed; for a case with steps,
// one step, then one object, the frame of Namespaces and GatewayClasses
// kept), and keeps, of those still showing kind, the smallest
// (generators.Case.Less): for a scenario, the one with the fewest kinds
// of difference first, so that other behaviours fall away. The smallest
// case is judged again in its own namespace.
func Shrink(ctx context.Context, r Run, dis Disagreement, kind compare.Found) Finding {
	caps := r.Observer.Capabilities()
	f := Finding{Kind: kind, Case: dis.Seed, Small: dis, StepsFrom: len(dis.Case.Steps), ObjectsFrom: dis.Case.Objects()}
	ns := dis.Case.Namespace()
	cur := dis
	for f.Rounds < maxShrinkRounds {
		cands := cur.Case.Smaller(cur.State, "Namespace", "GatewayClass")
		if len(cands) == 0 {
			break
		}
		moved := make([]generators.Case, len(cands))
		for i, c := range cands {
			moved[i] = c.InNamespace(ns, fmt.Sprintf("shrink-%d", i))
		}
		res, err := judge(ctx, r.Observer, r.Profile, moved, caps)
		if err != nil {
			break
		}
		f.Rounds, f.Tried = f.Rounds+1, f.Tried+len(cands)
		best := -1
		for i, d := range res {
			if d.Got.Error != "" || !slices.Contains(d.Kinds(), kind) {
				continue
			}
			if best < 0 || smaller(d, res[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		cur = res[best]
		cur.Case = cands[best]
	}
	if res, err := judge(ctx, r.Observer, r.Profile, []generators.Case{cur.Case}, caps); err == nil && slices.Contains(res[0].Kinds(), kind) {
		cur = res[0]
	}
	cur.Seed = dis.Seed
	f.Small = cur
	return f
}

// smaller orders shrink candidates that show the kind: a scenario with
// fewer kinds of difference, then the smaller case (generators.Case.Less).
func smaller(a, b Disagreement) bool {
	if !a.Case.Changes() {
		if ka, kb := len(compare.Kinds(a.Diff)), len(compare.Kinds(b.Diff)); ka != kb {
			return ka < kb
		}
	}
	return a.Case.Less(b.Case)
}
