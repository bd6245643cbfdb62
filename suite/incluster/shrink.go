package incluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite/compare"
)

// Shrunk is a random case that failed in a cluster, made smaller there
// while it still fails with the same kind of difference.
type Shrunk struct {
	// From is the random case's file, Seed the seed it was drawn with;
	// Kind the kind of difference kept (compare.Kinds) and whether it
	// was first seen after a step.
	From string
	Kind compare.Found
	Seed int64
	// Scenario is the smallest case found (nil for a case with steps,
	// which is Case), File where it is written, and Result its outcome in
	// the cluster.
	Scenario *generators.Scenario
	Case     generators.Case
	File     string
	Result   Result
	// Steps and Objects count the case's steps and objects before and
	// after shrinking (cases with steps).
	StepsFrom, Steps     int
	ObjectsFrom, Objects int
	// Rounds and Tried count the rounds and the candidates applied;
	// Stopped says why shrinking ended.
	Rounds, Tried int
	Stopped       string
	// Reruns counts the times a shrunk case with faults was applied again
	// as it was shrunk (Rerun), Failed those that failed, Reproduced those
	// that showed its kind of difference again.
	Reruns, Failed, Reproduced int
}

// Determinism says how the shrunk case's re-runs went (docs/faults.md):
// "" when it was not re-run; "deterministic" when every re-run showed
// its kind of difference; "fails deterministically, its kind flaky" when
// every re-run failed but not always with that kind; else "flaky".
func (s Shrunk) Determinism() string {
	counts := fmt.Sprintf("%d of %d re-runs fail, %d with %s", s.Failed, s.Reruns, s.Reproduced, s.Kind)
	switch {
	case s.Reruns == 0:
		return ""
	case s.Reproduced == s.Reruns:
		return "deterministic (" + counts + ")"
	case s.Failed == s.Reruns:
		return "fails deterministically, its kind flaky (" + counts + ")"
	}
	return "flaky (" + counts + ")"
}

// Reruns is how many times a shrunk case with faults is applied again to
// call it deterministic or flaky (docs/faults.md, issue 33).
const Reruns = 3

// Rerun applies the shrunk case (its file, faults and all) n times, one
// after another, and counts the runs that keep its difference in
// out.Failed and out.Reproduced; within budget, as shrinking is.
func (r *Runner) Rerun(ctx context.Context, out *Shrunk, n int, budget Budget) {
	data, err := os.ReadFile(out.File)
	if err != nil {
		out.Stopped += "; not re-run: " + err.Error()
		return
	}
	deadline := budget.start()
	for range n {
		if ctx.Err() != nil {
			return
		}
		_, res := r.tryCandidate(ctx, data, filepath.Dir(out.File), deadline)
		out.Reruns++
		if res.Outcome == Fail {
			out.Failed++
		}
		if keeps(out.Kind)(res) {
			out.Reproduced++
		}
	}
}

// keeps says whether a result still shows the difference target.
func keeps(target compare.Found) func(Result) bool {
	return func(res Result) bool {
		return res.Outcome == Fail && slices.Contains(compare.Kinds(res.Diff), target.Kind) && (!target.AfterStep || res.State > 0)
	}
}

// Budget bounds shrinking: Time of wall clock, Rounds of candidates
// tried (zero: no bound); whichever is spent first stops it. Bounded by
// rounds only, the result does not depend on the machine's speed (the
// tests); each round removes something, so it ends anyway.
type Budget struct {
	Time   time.Duration
	Rounds int
}

// start is the deadline of a budget started now (zero: none).
func (b Budget) start() time.Time {
	if b.Time <= 0 {
		return time.Time{}
	}
	return time.Now().Add(b.Time)
}

// spent says why rounds done by deadline spend b, "" while they do not.
func (b Budget) spent(rounds int, deadline time.Time) string {
	switch {
	case !deadline.IsZero() && time.Now().After(deadline):
		return fmt.Sprintf("the shrink budget (%s) is spent", b.Time)
	case b.Rounds > 0 && rounds >= b.Rounds:
		return fmt.Sprintf("the shrink budget (%d rounds) is spent", b.Rounds)
	}
	return ""
}

// shrinkBase numbers the candidates' scenarios apart from the run's own
// (the gepcheck.dev/scenario label).
const shrinkBase = 100_000

// Shrink makes a random case that failed in the cluster (first) with a
// difference of kind target smaller there: each round applies every
// candidate one step smaller in its own namespaces, parallel at a time,
// and keeps the best of those still failing with target. It stops when no
// candidate keeps target or budget is spent; each candidate's objects are
// deleted once judged. Candidate files are written in dir.
//
// s is the case as drawn, for a case of one state (oneState); nil reads a
// case with steps from first's file (overTime). A target after a step
// keeps the difference after a change: a candidate that fails at creation
// does not count.
func (r *Runner) Shrink(ctx context.Context, s *generators.Scenario, first Result, target compare.Found, dir string, parallel int, budget Budget) Shrunk {
	out := Shrunk{From: first.Plan.File, Kind: target, Scenario: s, Result: first, File: first.Plan.File}
	var sh shrinking = &oneState{cur: s}
	if s == nil {
		ws, err := readOverTime(first.Plan.File)
		if err != nil {
			out.Stopped = err.Error()
			return out
		}
		sh, out.Case = ws, ws.cur
		out.StepsFrom, out.Steps = len(ws.cur.Steps), len(ws.cur.Steps)
		out.ObjectsFrom, out.Objects = ws.cur.Objects(), ws.cur.Objects()
	}
	// Candidates are judged by the oracles up to the one that finds the
	// target's kind only.
	r.shrinkingFor = compare.Kind(target.Kind)
	defer func() { r.shrinkingFor = "" }()
	deadline := budget.start()
	for round := 0; ; round++ {
		if out.Stopped = budget.spent(round, deadline); out.Stopped != "" {
			return out
		}
		data := sh.candidates(out.Result.State)
		if len(data) == 0 {
			out.Stopped = "nothing left to remove"
			return out
		}
		var first func(Result) bool
		if sh.ordered() {
			first = keeps(target)
		}
		files, results := r.tryAll(ctx, data, dir, parallel, deadline, first)
		out.Rounds, out.Tried = round+1, out.Tried+len(results)
		best := sh.best(results, keeps(target))
		if best < 0 {
			out.Stopped = "no smaller case keeps the difference"
			return out
		}
		out.Result, out.File = results[best], files[best]
		sh.keep(best, &out)
	}
}

// shrinking is the candidates of one kind of case: candidates are the
// cases one step smaller than the current one, failing at state failing,
// as YAML; best picks the best of those whose result keeps the target,
// keep makes it the current one.
//
// ordered says the candidates come best first (the first that keeps the
// target is the one best picks), so that one at a time they are tried
// only until one keeps it.
type shrinking interface {
	candidates(failing int) [][]byte
	best(results []Result, keeps func(Result) bool) int
	keep(best int, out *Shrunk)
	ordered() bool
}

// oneState shrinks a case without steps as offline shrinking does
// (generators.Smaller: a policy, a spec field, an object, section or
// reference removed), keeping the candidate with the fewest kinds of
// difference, then the smallest (generators.Size).
type oneState struct {
	cur   *generators.Scenario
	cands []*generators.Scenario
}

func (o *oneState) candidates(int) [][]byte {
	o.cands = generators.Smaller(o.cur)
	data := make([][]byte, len(o.cands))
	for i, c := range o.cands {
		data[i] = c.YAML()
	}
	return data
}

func (o *oneState) best(results []Result, keeps func(Result) bool) int {
	best, bestKinds := -1, 0
	for i, res := range results {
		if !keeps(res) {
			continue
		}
		ks := compare.Kinds(res.Diff)
		if best < 0 || len(ks) < bestKinds || len(ks) == bestKinds && generators.Size(o.cands[i]) < generators.Size(o.cands[best]) {
			best, bestKinds = i, len(ks)
		}
	}
	return best
}

// ordered: the best of a case without steps has the fewest kinds of
// difference, known only once every candidate ran.
func (o *oneState) ordered() bool { return false }

func (o *oneState) keep(best int, out *Shrunk) {
	o.cur = o.cands[best]
	out.Scenario = o.cur
}

// overTime shrinks a case with steps, fewest steps first, then fewest
// objects (generators.Case.Smaller: the steps after the failing one
// gone, each earlier step gone, each object gone with the steps that name
// it; candidates whose steps no longer apply are not tried).
type overTime struct {
	cur   generators.Case
	cands []generators.Case
}

func readOverTime(file string) (*overTime, error) {
	data, err := load.ReadNamed(file, load.DefaultLimits.MaxBytes)
	if err != nil {
		return nil, err
	}
	cur, err := generators.ParseCase(data)
	if err != nil {
		return nil, err
	}
	return &overTime{cur: cur}, nil
}

// ordered: candidates are sorted by Less, the order best picks by.
func (w *overTime) ordered() bool { return true }

func (w *overTime) candidates(failing int) [][]byte {
	w.cands = w.cur.Smaller(failing)
	slices.SortStableFunc(w.cands, func(a, b generators.Case) int {
		switch {
		case a.Less(b):
			return -1
		case b.Less(a):
			return 1
		}
		return 0
	})
	data := make([][]byte, len(w.cands))
	for i, c := range w.cands {
		data[i] = c.YAML()
	}
	return data
}

func (w *overTime) best(results []Result, keeps func(Result) bool) int {
	best := -1
	for i, res := range results {
		if keeps(res) && (best < 0 || w.cands[i].Less(w.cands[best])) {
			best = i
		}
	}
	return best
}

func (w *overTime) keep(best int, out *Shrunk) {
	w.cur = w.cands[best]
	out.Case = w.cur
	out.Steps, out.Objects = len(w.cur.Steps), w.cur.Objects()
}

// tryAll judges the candidates, parallel at a time (tryCandidate). One
// at a time, with first set, it stops after the first whose result first
// accepts: the results are those of the candidates tried.
func (r *Runner) tryAll(ctx context.Context, cands [][]byte, dir string, parallel int, deadline time.Time, first func(Result) bool) ([]string, []Result) {
	if parallel <= 1 && first != nil {
		var files []string
		var results []Result
		for _, c := range cands {
			f, res := r.tryCandidate(ctx, c, dir, deadline)
			files, results = append(files, f), append(results, res)
			if first(res) || ctx.Err() != nil {
				break
			}
		}
		return files, results
	}
	files, results := make([]string, len(cands)), make([]Result, len(cands))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(parallel, 1))
	for i := range cands {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			files[i], results[i] = r.tryCandidate(ctx, cands[i], dir, deadline)
		}()
	}
	wg.Wait()
	return files, results
}

// tryCandidate writes c in dir, applies it as a scenario of its own (an
// index no other candidate of the run had: the namespaces of one deleted
// may still be terminating), judges it and deletes its objects.
func (r *Runner) tryCandidate(ctx context.Context, c []byte, dir string, deadline time.Time) (string, Result) {
	index := shrinkBase + int(r.candidates.Add(1))
	file := filepath.Join(dir, fmt.Sprintf("shrink-%d.yaml", index))
	if err := os.WriteFile(file, c, 0o644); err != nil {
		return file, Result{Outcome: Error, Reason: err.Error()}
	}
	p, err := NewPlan(file, TargetFor(r.Impl, r.Run, index))
	if err != nil {
		return file, Result{Outcome: Error, Reason: err.Error()}
	}
	if p.Skip != "" {
		return file, Result{Plan: p, Outcome: Skip, Reason: p.Skip}
	}
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(r.timeout()))
		defer cancel()
	}
	res := r.Verify(ctx, r.Apply(ctx, p, 0))
	dctx, dcancel := context.WithTimeout(context.Background(), time.Minute)
	defer dcancel()
	if err := r.Delete(dctx, p, index); err != nil && res.Outcome == Pass {
		res.Outcome, res.Reason = Error, err.Error()
	}
	return file, res
}
