package incluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite/compare"
)

// Shrunk is a random case that failed in a cluster, made smaller there
// while it still fails with the same kind of difference.
type Shrunk struct {
	// From is the random case's file; Kind the kind of difference kept
	// (compare.Kinds).
	From, Kind string
	// Scenario is the smallest case found (nil for a case with steps,
	// shrunk as YAML), File where it is written, and Result its outcome in
	// the cluster.
	Scenario *generators.Scenario
	File     string
	Result   Result
	// Steps are the case's steps before and after shrinking (cases with
	// steps).
	StepsFrom, Steps int
	// Rounds and Tried count the rounds and the candidates applied;
	// Stopped says why shrinking ended.
	Rounds, Tried int
	Stopped       string
}

// shrinkBase numbers the candidates' scenarios apart from the run's own
// (the gepcheck.dev/scenario label).
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
					files[i], results[i] = r.tryCandidate(ctx, cands[i].YAML(), dir, deadline)
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

// ShrinkSteps makes a case with steps that failed in the cluster at a step
// with a difference of kind target smaller there, fewest steps first: the
// steps after the failing one go, then, round after round, the earlier
// step whose removal keeps the failure (candidates whose steps no longer
// apply, a deletion of what is not there, are not tried). Its objects are
// not shrunk.
func (r *Runner) ShrinkSteps(ctx context.Context, file string, first Result, target, dir string, parallel int, budget time.Duration) Shrunk {
	out := Shrunk{From: file, Kind: target, Result: first, File: file}
	data, err := os.ReadFile(file)
	if err != nil {
		out.Stopped = err.Error()
		return out
	}
	cur, err := splitSteps(data)
	if err != nil {
		out.Stopped = err.Error()
		return out
	}
	out.StepsFrom, out.Steps = len(cur.steps), len(cur.steps)
	deadline := time.Now().Add(budget)
	for round := 0; ; round++ {
		if time.Now().After(deadline) {
			out.Stopped = fmt.Sprintf("the shrink budget (%s) is spent", budget)
			return out
		}
		failing := stepNumber(out.Result.Step) // 1-based; 0: at creation
		var cands [][]byte
		var counts []int
		if failing < len(cur.steps) {
			cands, counts = append(cands, cur.with(cur.steps[:failing])), append(counts, failing)
		}
		for i := 0; i < failing-1; i++ {
			keep := slices.Concat(cur.steps[:i], cur.steps[i+1:failing])
			cands, counts = append(cands, cur.with(keep)), append(counts, len(keep))
		}
		var valid [][]byte
		var validCounts []int
		for i, c := range cands {
			if c != nil && stepsApply(c) {
				valid, validCounts = append(valid, c), append(validCounts, counts[i])
			}
		}
		if len(valid) == 0 {
			out.Stopped = "no step can go"
			return out
		}
		results := make([]Result, len(valid))
		files := make([]string, len(valid))
		var wg sync.WaitGroup
		sem := make(chan struct{}, max(parallel, 1))
		for i := range valid {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				files[i], results[i] = r.tryCandidate(ctx, valid[i], dir, deadline)
			}()
		}
		wg.Wait()
		out.Rounds, out.Tried = round+1, out.Tried+len(valid)
		best := -1
		for i, res := range results {
			if res.Outcome == Fail && slices.Contains(compare.Kinds(res.Diff), target) && (best < 0 || validCounts[i] < validCounts[best]) {
				best = i
			}
		}
		if best < 0 {
			out.Stopped = "no step can go and keep the difference"
			return out
		}
		next, err := splitSteps(valid[best])
		if err != nil {
			out.Stopped = err.Error()
			return out
		}
		cur, out.Result, out.File, out.Steps = next, results[best], files[best], validCounts[best]
	}
}

// stepped is a scenario file split into its documents and the steps of
// its Scenario document.
type stepped struct {
	docs  []map[string]any
	steps []any
}

func splitSteps(data []byte) (stepped, error) {
	docs, err := load.Read([]string{"-"}, bytes.NewReader(data))
	if err != nil {
		return stepped{}, err
	}
	var s stepped
	for _, d := range docs {
		s.docs = append(s.docs, d.Raw)
		if d.Group == simulator.GepcheckGroup && d.Kind == "Scenario" {
			s.steps, _, _ = unstructured.NestedSlice(d.Raw, "spec", "steps")
		}
	}
	return s, nil
}

// with is the file with steps instead of its own.
func (s stepped) with(steps []any) []byte {
	var b bytes.Buffer
	for _, d := range s.docs {
		if d["kind"] == "Scenario" {
			d = (&unstructured.Unstructured{Object: d}).DeepCopy().Object
			if len(steps) == 0 {
				unstructured.RemoveNestedField(d, "spec", "steps")
			} else if err := unstructured.SetNestedSlice(d, steps, "spec", "steps"); err != nil {
				return nil
			}
		}
		data, err := yaml.Marshal(d)
		if err != nil {
			return nil
		}
		b.WriteString("---\n")
		b.Write(data)
	}
	return b.Bytes()
}

// stepsApply says whether every step of c applies (simulator.States).
func stepsApply(c []byte) bool {
	docs, err := load.Read([]string{"-"}, bytes.NewReader(c))
	if err != nil {
		return false
	}
	m, err := simulator.Build(docs, simulator.Options{})
	if err != nil {
		return false
	}
	_, err = simulator.States(docs, m.Scenario)
	return err == nil
}

// stepNumber reads N of "step N (name)"; 0 for "".
func stepNumber(label string) int {
	var n int
	_, _ = fmt.Sscanf(label, "step %d", &n)
	return n
}
