package differential

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Changes over time, offline: cases with steps (scenarios/README.md,
// Steps) drawn by generators.Stepped, each state translated whole, as a
// translator would read the objects at that step, and compared with the
// reference's outcome for that state. A case disagrees at its first state
// that differs; a difference first seen after a change is a finding of its
// own (KIND-after-step), as in a cluster.

// StepRun is a differential run of cases with steps.
type StepRun struct {
	Observer observe.Observer
	// Profile the reference reads the cases with; Generate draws case i,
	// a scenario with steps (generators.SteppedCase), in a namespace of
	// its own.
	Profile  string
	Generate func(i int) generators.StepCase
	Checks   int
	// Batch cases go to the implementation at once, state by state (50
	// when zero).
	Batch int
	// Write writes a finding, shrunk for one kind of difference, and
	// returns where; nil: findings are not written.
	Write func(kind compare.Found, d StepDisagreement) (string, error)
	// Shard, when set, runs only its part of the Checks cases.
	Shard suite.Shard
}

// StepDisagreement is a case with steps on which the implementation and
// the reference differ at a state.
type StepDisagreement struct {
	Seed int
	Case generators.StepCase
	// Step is the label of the first state that differs, State its
	// index (0: as created).
	Step  string
	State int
	Diff  []compare.Difference
	Want  observe.Observation
	Got   observe.Observation
}

// Kinds are the kinds of difference d shows, after a step when its state
// is one after a change.
func (d StepDisagreement) Kinds() []compare.Found {
	var fs []compare.Found
	for _, k := range compare.Kinds(d.Diff) {
		fs = append(fs, compare.Found{Kind: k, AfterStep: d.State > 0})
	}
	return fs
}

// StepFinding is a disagreement shrunk for one kind of difference.
type StepFinding struct {
	Kind                   compare.Found
	Case                   int
	File                   string
	Small                  StepDisagreement
	StepsFrom, ObjectsFrom int
	Rounds, Tried          int
}

// StepSummary is what a StepRun found.
type StepSummary struct {
	Checks   int
	Elapsed  time.Duration
	Disagree []StepDisagreement
	Findings []StepFinding
}

// maxShrinkRounds bounds each shrink (each round removes a step or an
// object, so a case has fewer rounds than steps and objects).
const maxShrinkRounds = 40

// FuzzSteps runs r: cases in batches; for each kind of difference, the
// first case that shows it is shrunk for it, fewest steps then fewest
// objects, and written. Progress lines go to log.
func FuzzSteps(ctx context.Context, r StepRun, log io.Writer) (*StepSummary, error) {
	start := time.Now()
	caps := r.Observer.Capabilities()
	batch := r.Batch
	if batch == 0 {
		batch = 50
	}
	all := r.Shard.Indices(r.Checks)
	sum := &StepSummary{Checks: len(all)}
	for first := 0; first < len(all); first += batch {
		var cases []generators.StepCase
		for _, i := range all[first:min(len(all), first+batch)] {
			cases = append(cases, r.Generate(i))
		}
		res, err := judgeSteps(ctx, r.Observer, r.Profile, cases, caps)
		if err != nil {
			return sum, err
		}
		for k, d := range res {
			if len(d.Diff) > 0 || d.Got.Error != "" {
				d.Seed = all[first+k]
				sum.Disagree = append(sum.Disagree, d)
			}
		}
		fmt.Fprintf(log, "  %d/%d cases, %d disagree (%s)\n", min(len(all), first+batch), len(all), len(sum.Disagree), time.Since(start).Round(time.Second))
	}
	sum.Elapsed = time.Since(start)
	fmt.Fprintf(log, "%d cases with steps in %s, %d disagree with the reference\n", sum.Checks, sum.Elapsed.Round(time.Millisecond), len(sum.Disagree))
	covered := map[compare.Found]bool{}
	for _, dis := range sum.Disagree {
		if dis.Got.Error != "" {
			fmt.Fprintf(log, "  case %d: the implementation failed: %s\n", dis.Seed, ref.Printable(dis.Got.Error))
			continue
		}
		for _, kind := range dis.Kinds() {
			if covered[kind] {
				continue
			}
			f := shrinkSteps(ctx, r, dis, caps, kind)
			covered[kind] = true
			if r.Write != nil {
				file, err := r.Write(kind, f.Small)
				if err != nil {
					return sum, err
				}
				f.File = file
			}
			sum.Findings = append(sum.Findings, f)
			fmt.Fprintf(log, "  finding %s (case %d, at %s; shrunk in %d rounds of %d candidates from %d steps and %d objects to %d and %d): %s\n    %s\n",
				kind, dis.Seed, f.Small.Step, f.Rounds, f.Tried, f.StepsFrom, f.ObjectsFrom, len(f.Small.Case.Steps), f.Small.Case.Objects(), f.File,
				strings.Join(compare.Strings(f.Small.Diff), "\n    "))
		}
	}
	return sum, nil
}

// shrinkSteps makes dis smaller while it still shows kind (a difference
// after a change stays after a change): each round judges, side by side
// in namespaces of their own, the cases one step or one object smaller
// (generators.StepCase.Smaller) and keeps the one with the fewest steps,
// then objects.
func shrinkSteps(ctx context.Context, r StepRun, dis StepDisagreement, caps observe.Capabilities, kind compare.Found) StepFinding {
	f := StepFinding{Kind: kind, Case: dis.Seed, Small: dis, StepsFrom: len(dis.Case.Steps), ObjectsFrom: dis.Case.Objects()}
	ns := namespaceOf(dis.Case)
	cur := dis
	for f.Rounds < maxShrinkRounds {
		cands := cur.Case.Smaller(cur.State, "Namespace", "GatewayClass")
		if len(cands) == 0 {
			break
		}
		moved := make([]generators.StepCase, len(cands))
		for i, c := range cands {
			moved[i] = c.InNamespace(ns, fmt.Sprintf("shrink-%d", i))
		}
		res, err := judgeSteps(ctx, r.Observer, r.Profile, moved, caps)
		if err != nil {
			break
		}
		f.Rounds, f.Tried = f.Rounds+1, f.Tried+len(cands)
		best := -1
		for i, d := range res {
			if d.Got.Error != "" || !slices.Contains(d.Kinds(), kind) {
				continue
			}
			if best < 0 || generators.FewerSteps(cands[i], cands[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		cur = res[best]
		cur.Case = cands[best]
	}
	// The smallest case, judged in the case's own namespace.
	if res, err := judgeSteps(ctx, r.Observer, r.Profile, []generators.StepCase{cur.Case}, caps); err == nil && slices.Contains(res[0].Kinds(), kind) {
		cur = res[0]
	}
	cur.Seed = dis.Seed
	f.Small = cur
	return f
}

// namespaceOf is the namespace of a drawn case: its first Namespace.
func namespaceOf(c generators.StepCase) string {
	for _, d := range c.Docs {
		if d["kind"] == "Namespace" {
			if md, ok := d["metadata"].(map[string]any); ok {
				if n, ok := md["name"].(string); ok {
					return n
				}
			}
		}
	}
	return ""
}

// judgeSteps compares, for every case, each state with the reference's
// outcome for it, until the first that differs: one call to the
// implementation per state index, with that state of every case still
// agreeing (each case has namespaces of its own). A case that cannot be
// read is a disagreement with Got.Error set.
func judgeSteps(ctx context.Context, d observe.Observer, profile string, cases []generators.StepCase, caps observe.Capabilities) ([]StepDisagreement, error) {
	out := make([]StepDisagreement, len(cases))
	states := make([][]observe.Case, len(cases))
	labels := make([][]string, len(cases))
	for i, c := range cases {
		out[i].Case = c
		docs, err := load.Read([]string{"-"}, bytes.NewReader(c.YAML()))
		if err != nil {
			out[i].Got.Error = err.Error()
			continue
		}
		sts, _, err := simulator.StateModels(docs, simulator.Options{Profiles: []string{profile}})
		if err != nil {
			out[i].Got.Error = err.Error()
			continue
		}
		for _, st := range sts {
			y, err := load.Marshal(st.Docs)
			if err != nil {
				return nil, err
			}
			label := st.Label(len(sts) - 1)
			if label == "" {
				label = "creation" // a case whose steps are all shrunk away
			}
			states[i] = append(states[i], observe.Case{Name: fmt.Sprintf("%d %s", i, label), YAML: y, Profiles: []string{profile}})
			labels[i] = append(labels[i], label)
		}
	}
	for k := 0; ; k++ {
		var batch []observe.Case
		var idx []int
		for i := range cases {
			if out[i].Got.Error == "" && len(out[i].Diff) == 0 && k < len(states[i]) {
				batch, idx = append(batch, states[i][k]), append(idx, i)
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
			out[i].Step, out[i].State = labels[i][k], k
			out[i].Want, out[i].Got = want[j], got[j]
			out[i].Diff = compare.Diff(want[j], got[j], caps)
		}
	}
}
