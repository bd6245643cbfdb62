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
	"github.com/gepcheck/gepcheck/suite/compare"
)

// Shrunk is a random case that failed in a cluster, made smaller there
// while it still fails with the same kind of difference.
type Shrunk struct {
	// From is the random case's file; Kind the kind of difference kept
	// (compare.Kinds).
	From, Kind string
	// Scenario is the smallest case found, File where it is written, and
	// Result its outcome in the cluster.
	Scenario *generators.Scenario
	File     string
	Result   Result
	// Rounds and Tried count the rounds and the candidates applied;
	// Stopped says why shrinking ended.
	Rounds, Tried int
	Stopped       string
}

// shrinkBase numbers the candidates' scenarios apart from the run's own
// (the gepcheck.dev/scenario label), round by round.
const shrinkBase = 100_000

// Shrink makes s, a case that failed in the cluster with a difference of
// kind target, smaller in the cluster: each round applies every candidate
// one step smaller (differential.Candidates: a policy, a spec field, an
// object, section or reference removed) in its own namespaces, parallel at
// a time, and keeps, of those still failing with target, the one with the
// fewest kinds of difference, then the smallest (differential.Size), as
// offline shrinking does. It stops when no candidate keeps target or
// budget is spent; each candidate's objects are deleted once judged.
// Candidate files are written in dir.
func (r *Runner) Shrink(ctx context.Context, s *generators.Scenario, first Result, target, dir string, parallel int, budget time.Duration) Shrunk {
	out := Shrunk{From: first.Plan.File, Kind: target, Scenario: s, Result: first, File: first.Plan.File}
	deadline := time.Now().Add(budget)
	parallel = max(parallel, 1)
	for round := 0; ; round++ {
		if time.Now().After(deadline) {
			out.Stopped = fmt.Sprintf("the shrink budget (%s) is spent", budget)
			return out
		}
		cands := generators.Smaller(out.Scenario)
		if len(cands) == 0 {
			out.Stopped = "nothing left to remove"
			return out
		}
		results := make([]Result, len(cands))
		files := make([]string, len(cands))
		next := make(chan int)
		var wg sync.WaitGroup
		for w := 0; w < parallel; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					files[i], results[i] = r.tryCandidate(ctx, cands[i], dir, shrinkBase+round*1000+i, deadline)
				}
			}()
		}
		for i := range cands {
			next <- i
		}
		close(next)
		wg.Wait()
		out.Rounds, out.Tried = round+1, out.Tried+len(cands)
		best, bestKinds := -1, 0
		for i, res := range results {
			if res.Outcome != Fail {
				continue
			}
			ks := compare.Kinds(res.Diff)
			if slices.Contains(ks, target) && (best < 0 || len(ks) < bestKinds ||
				len(ks) == bestKinds && generators.Size(cands[i]) < generators.Size(cands[best])) {
				best, bestKinds = i, len(ks)
			}
		}
		if best < 0 {
			out.Stopped = "no smaller case keeps the difference"
			return out
		}
		out.Scenario, out.Result, out.File = cands[best], results[best], files[best]
	}
}

// tryCandidate writes c in dir, applies it as scenario index, judges it
// and deletes its objects.
func (r *Runner) tryCandidate(ctx context.Context, c *generators.Scenario, dir string, index int, deadline time.Time) (string, Result) {
	file := filepath.Join(dir, fmt.Sprintf("shrink-%d.yaml", index))
	if err := os.WriteFile(file, c.YAML(), 0o644); err != nil {
		return file, Result{Outcome: Error, Reason: err.Error()}
	}
	p, err := NewPlan(file, TargetFor(r.Impl, r.Run, index))
	if err != nil {
		return file, Result{Outcome: Error, Reason: err.Error()}
	}
	if p.Skip != "" {
		return file, Result{Plan: p, Outcome: Skip, Reason: p.Skip}
	}
	ctx, cancel := context.WithDeadline(ctx, deadline.Add(r.timeout()))
	defer cancel()
	res := r.VerifySteps(ctx, r.Apply(ctx, p))
	dctx, dcancel := context.WithTimeout(context.Background(), time.Minute)
	defer dcancel()
	if err := r.Delete(dctx, p, index); err != nil && res.Outcome == Pass {
		res.Outcome, res.Reason = Error, err.Error()
	}
	return file, res
}
