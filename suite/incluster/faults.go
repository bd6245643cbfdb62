package incluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/simulator/fault"
)

// Watches delays the controller's watch events by a seeded schedule (the
// delay fault, docs/faults.md): a watch proxy between the controller and
// the API server. Delay starts holding events, at most max each; Release
// delivers what is held and stops holding.
type Watches interface {
	Delay(seed int64, max time.Duration)
	Release()
}

// cannotPerturb says why the faults fs cannot be made in this run, naming
// the fault ("" when they can): the case is then skipped.
func (r *Runner) cannotPerturb(fs []fault.Fault) string {
	for _, f := range fs {
		switch {
		case f.Kind == fault.Restart && r.Controller == nil:
			return fmt.Sprintf("fault %s: the controller is not started by gepcheck (--start-controller=false), so it cannot be restarted", f)
		case f.Kind == fault.APIServer && r.Kube.Cluster.RestartAPIServer == nil:
			return fmt.Sprintf("fault %s: gepcheck does not run this cluster's API server (only --cluster local)", f)
		case f.Kind == fault.Delay && r.Watches == nil:
			return fmt.Sprintf("fault %s: the controller's watches do not pass through gepcheck's watch proxy (only --cluster local, with the controller started by gepcheck)", f)
		}
	}
	return ""
}

// perturbing is the application of one state of a case under its faults
// (docs/faults.md): how it is applied (burst, ties), and the faults that
// happen during it (restart, apiserver), each once, when due.
type perturbing struct {
	r      *Runner
	faults []fault.Fault
	writes *statusWatch
	// total objects the state applies (or deletes), applied so far.
	total, applied int
	fired          []bool
	a              *Applied
}

// burst: no wait between the state's objects.
func (pt *perturbing) burst() bool {
	return pt != nil && slices.ContainsFunc(pt.faults, func(f fault.Fault) bool { return f.Kind == fault.Burst })
}

// ties returns the Ties fault of the state, if any.
func (pt *perturbing) ties() (fault.Fault, bool) {
	if pt == nil {
		return fault.Fault{}, false
	}
	i := slices.IndexFunc(pt.faults, func(f fault.Fault) bool { return f.Kind == fault.Ties })
	if i < 0 {
		return fault.Fault{}, false
	}
	return pt.faults[i], true
}

// tiedWaves are the policy waves of a state under a Ties fault: one wave,
// created within one second, in the order drawn from the fault's seed
// (GEP-713, Conflict resolution: rule 2 ties them, rule 3 decides).
func (pt *perturbing) tiedWaves(waves [][]*unstructured.Unstructured) [][]*unstructured.Unstructured {
	f, ok := pt.ties()
	if !ok {
		return waves
	}
	return [][]*unstructured.Unstructured{shuffled(slices.Concat(waves...), f.Seed)}
}

// tiedApply is a step's objects under a Ties fault: its policies in the
// order drawn from the seed, in the places the policies held.
func (pt *perturbing) tiedApply(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	f, ok := pt.ties()
	if !ok {
		return objs
	}
	var at []int
	var pols []*unstructured.Unstructured
	for i, u := range objs {
		if isPolicy(u) {
			at, pols = append(at, i), append(pols, u)
		}
	}
	out := slices.Clone(objs)
	for k, u := range shuffled(pols, f.Seed) {
		out[at[k]] = u
	}
	return out
}

// shuffled is objs in the order seed draws.
func shuffled(objs []*unstructured.Unstructured, seed int64) []*unstructured.Unstructured {
	out := slices.Clone(objs)
	rnd := rand.New(rand.NewPCG(uint64(seed), 0x713))
	rnd.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func isPolicy(u *unstructured.Unstructured) bool {
	return policyKinds()[u.GroupVersionKind().Group+"/"+u.GetKind()]
}

// afterObject is called once each object of the state is applied: the
// faults due by then happen (mid-apply: after half the state's objects;
// after k status writes).
func (pt *perturbing) afterObject(ctx context.Context) error {
	if pt == nil {
		return nil
	}
	pt.applied++
	return pt.fireDue(ctx, false)
}

// fireDue makes every fault due and not yet made; all makes the
// remaining ones too.
func (pt *perturbing) fireDue(ctx context.Context, all bool) error {
	writes, _, _ := pt.writes.counts()
	for i, f := range pt.faults {
		if pt.fired[i] || (f.Kind != fault.Restart && f.Kind != fault.APIServer) {
			continue
		}
		due := all
		if f.AfterWrites == 0 {
			due = due || 2*pt.applied >= pt.total
		} else {
			due = due || writes >= f.AfterWrites
		}
		if !due {
			continue
		}
		pt.fired[i] = true
		if err := pt.fire(ctx, f, writes); err != nil {
			return err
		}
	}
	return nil
}

// fire makes fault f, writes status writes into the state.
func (pt *perturbing) fire(ctx context.Context, f fault.Fault, writes int) error {
	if f.AfterWrites > 0 && writes < f.AfterWrites {
		pt.a.Notes = append(pt.a.Notes, fmt.Sprintf("%s: made after %d status writes, the controller made no more", f, writes))
	}
	switch f.Kind {
	case fault.Restart:
		if err := pt.r.Controller.Kill(); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if err := pt.r.Controller.Start(ctx); err != nil {
			return fmt.Errorf("%s: starting the controller again: %w", f, err)
		}
		pt.a.Restarts++
	case fault.APIServer:
		start := time.Now()
		if err := pt.r.Kube.Cluster.RestartAPIServer(ctx); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		pt.a.Outage += time.Since(start)
	}
	pt.a.Faults = append(pt.a.Faults, f)
	return nil
}

// finish is called once the state is applied: a fault waiting for status
// writes happens when they are made, or once the controller has made none
// for the settle time (it will not make more), or when the step's time
// runs out (ctx).
func (pt *perturbing) finish(ctx context.Context) error {
	if pt == nil {
		return nil
	}
	last, since := -1, time.Now()
	for slices.Contains(pt.fired, false) {
		if err := pt.fireDue(ctx, false); err != nil {
			return err
		}
		writes, _, _ := pt.writes.counts()
		if writes != last {
			last, since = writes, time.Now()
		}
		if time.Since(since) >= pt.r.settle() {
			return pt.fireDue(ctx, true)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for status writes to make %s: %w", strings.Join(pt.pending(), ", "), ctx.Err())
		case <-time.After(cluster.Timeouts.Poll):
		}
	}
	return nil
}

// pending names the faults not made yet.
func (pt *perturbing) pending() []string {
	var out []string
	for i, f := range pt.faults {
		if !pt.fired[i] {
			out = append(out, f.String())
		}
	}
	return out
}

// applyPerturbed applies state i of case p under its faults fs: the
// objects' status writes counted from the start, the watches delayed for
// a delay fault (released once the state is verified: Verify), the
// objects applied as the faults say, the restarts made when due.
func (r *Runner) applyPerturbed(ctx context.Context, p *Plan, i int, fs []fault.Fault) *Applied {
	st := p.State(i)
	if why := r.cannotPerturb(fs); why != "" {
		return &Applied{Plan: st, Case: p, State: i, Skip: why}
	}
	fired := make([]bool, len(fs))
	for k, f := range fs {
		// Only restarts wait for their moment; the others hold for the
		// whole state.
		fired[k] = f.Kind != fault.Restart && f.Kind != fault.APIServer
	}
	var objs []*unstructured.Unstructured
	for k := 0; k <= i; k++ {
		objs = append(objs, p.State(k).ScenarioObjects()...)
	}
	pt := &perturbing{r: r, faults: fs, fired: fired, writes: r.watchStatus(ctx, objs)}
	defer pt.writes.stop()
	var made []fault.Fault
	for _, f := range fs {
		if f.Kind == fault.Delay {
			r.Watches.Delay(f.Seed, f.Delay())
			made = append(made, f)
		}
	}
	var a *Applied
	if i == 0 {
		pt.total = len(p.NamespaceObjects) + len(p.Objects) + len(p.Endpoints) + len(p.PolicyObjects())
		a = r.create(ctx, p, pt)
	} else {
		s := p.Steps[i-1]
		pt.total = len(s.Delete) + len(s.Apply) + len(s.State.Endpoints) + len(s.State.NamespaceObjects)
		a = r.applyStep(ctx, p.State(i-1), s, p.StateLabel(i), pt)
		a.Case, a.State = p, i
	}
	for _, f := range fs {
		if f.Kind == fault.Burst || f.Kind == fault.Ties || f.Kind == fault.Misop {
			made = append(made, f)
		}
	}
	a.Faults = append(made, a.Faults...)
	a.Delayed = slices.ContainsFunc(made, func(f fault.Fault) bool { return f.Kind == fault.Delay })
	return a
}
