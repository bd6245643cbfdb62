package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/cluster"
	"github.com/gepcheck/gepcheck/suite/driver"
)

// Implementation is an implementation of policy attachment running in the
// cluster, as the runner sees it.
type Implementation interface {
	Name() string
	// ControllerName is set on every GatewayClass of a scenario.
	ControllerName() string
	// Supports says whether the implementation handles a feature: a
	// policy kind, or "ObjectFields".
	Supports(feature string) bool
	// Conditions lists the policy condition types compared (all: nil).
	Conditions() []string
	// ComparesEffective says whether Observe reports effective settings.
	ComparesEffective() bool
	// Expectation shapes the reference engine's output into what the
	// implementation reports.
	Expectation(name string, out *simulator.Output) driver.Observation
	// Observe reads what the implementation did with the plan's objects.
	Observe(ctx context.Context, k *Kube, p *Plan) (driver.Observation, error)
}

// TargetFor is the Target of scenario i of run for im.
func TargetFor(im Implementation, run string, i int) Target {
	t := Target{Run: run, Index: i, ControllerName: im.ControllerName(), Supports: im.Supports}
	if e, ok := im.(interface{ Endpoints() bool }); ok {
		t.Endpoints = e.Endpoints()
	}
	return t
}

// Kube is a client of the cluster for unstructured objects.
type Kube struct {
	Cluster *cluster.Cluster
	Dyn     dynamic.Interface
	mapper  *restmapper.DeferredDiscoveryRESTMapper
}

// NewKube connects to c.
func NewKube(c *cluster.Cluster) (*Kube, error) {
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(c.Config)
	if err != nil {
		return nil, err
	}
	return &Kube{Cluster: c, Dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}, nil
}

// Resource returns the client for objects of u's kind in u's namespace.
func (k *Kube) Resource(gvk schema.GroupVersionKind, namespace string) (dynamic.ResourceInterface, error) {
	m, err := k.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		k.mapper.Reset()
		m, err = k.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, fmt.Errorf("%s is not served by the cluster (is its CRD installed?): %w", gvk.Kind, err)
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return k.Dyn.Resource(m.Resource).Namespace(namespace), nil
	}
	return k.Dyn.Resource(m.Resource), nil
}

// Get reads one object as stored.
func (k *Kube) Get(ctx context.Context, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	r, err := k.Resource(u.GroupVersionKind(), u.GetNamespace())
	if err != nil {
		return nil, err
	}
	return r.Get(ctx, u.GetName(), metav1.GetOptions{})
}

// List lists objects of a kind in a namespace ("" for all or cluster
// scope) with a label selector.
func (k *Kube) List(ctx context.Context, gvk schema.GroupVersionKind, namespace, selector string) ([]unstructured.Unstructured, error) {
	r, err := k.Resource(gvk, namespace)
	if err != nil {
		return nil, err
	}
	l, err := r.List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

// Options configure a Runner.
type Options struct {
	// StepTimeout bounds each step of a scenario: applying, and waiting
	// for the implementation's status.
	StepTimeout time.Duration
	// Settle is how long an observation must stay unchanged, with status
	// current, before a disagreement is final.
	Settle time.Duration
	// Keep leaves each scenario's objects in the cluster.
	Keep bool
}

// Runner runs plans against one implementation in one cluster.
type Runner struct {
	Kube *Kube
	Impl Implementation
	Run  string
	Opts Options
}

// Outcome of a scenario.
type Outcome string

const (
	Pass  Outcome = "pass"
	Fail  Outcome = "fail"
	Skip  Outcome = "skip"
	Error Outcome = "error"
)

// Result is the outcome of one scenario, in the scenario's own names.
type Result struct {
	Plan    *Plan
	Outcome Outcome
	// Diff lists the disagreements (Fail), or the reason (Skip, Error).
	Diff      []string
	Want, Got driver.Observation
	// Notes say what else was seen (stored creation order differing from
	// the intended one).
	Notes    []string
	Duration time.Duration
}

// Applied is a plan applied to the cluster: the objects as stored.
type Applied struct {
	Plan   *Plan
	Stored []*unstructured.Unstructured
	Notes  []string
	Err    error
}

// Apply creates the plan's objects with server-side apply, group by group,
// waiting for the next second between groups of policies, and reads them
// back as stored.
func (r *Runner) Apply(ctx context.Context, p *Plan) *Applied {
	a := &Applied{Plan: p}
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	var lastCreated time.Time
	groups := slices.Clone(p.Groups)
	if len(groups) > 1 {
		groups[1] = slices.Concat(groups[1], p.Endpoints) // before the policies
	}
	for gi, g := range groups {
		if gi >= 3 && len(g) > 0 {
			// GEP-713 Conflict resolution rule 2 orders by
			// creationTimestamp, which the API server sets to the second.
			next := lastCreated.Truncate(time.Second).Add(time.Second + 50*time.Millisecond)
			select {
			case <-time.After(time.Until(next)):
			case <-ctx.Done():
				a.Err = ctx.Err()
				return a
			}
		}
		for _, u := range g {
			res, err := r.Kube.Resource(u.GroupVersionKind(), u.GetNamespace())
			if err != nil {
				a.Err = err
				return a
			}
			got, err := res.Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: cluster.ManagedBy, Force: true})
			if err != nil {
				a.Err = fmt.Errorf("apply %s %s: %w", u.GetKind(), objName(u), err)
				return a
			}
			if t := got.GetCreationTimestamp().Time; t.After(lastCreated) {
				lastCreated = t
			}
		}
	}
	// Read back, as stored: real creationTimestamps, defaults applied.
	for _, g := range p.Groups {
		for _, u := range g {
			got, err := r.Kube.Get(ctx, u)
			if err != nil {
				a.Err = fmt.Errorf("read back %s %s: %w", u.GetKind(), objName(u), err)
				return a
			}
			a.Stored = append(a.Stored, got)
		}
	}
	a.Notes = orderNotes(p, a.Stored)
	return a
}

// Expect computes the reference engine's outcome from the stored objects.
func (a *Applied) Expect(profiles []string) (*simulator.Output, error) {
	data, err := cluster.SimulatorYAML(a.Stored)
	if err != nil {
		return nil, err
	}
	m, err := simulator.LoadFiles([]string{"-"}, strings.NewReader(data), simulator.Options{Profiles: profiles})
	if err != nil {
		return nil, fmt.Errorf("the stored objects do not load: %w", err)
	}
	return m.Run(engine.StickyOverrides, nil), nil
}

// Verify waits for the implementation's status and compares it with the
// expectation computed from the stored objects.
func (r *Runner) Verify(ctx context.Context, a *Applied) Result {
	p := a.Plan
	res := Result{Plan: p, Notes: a.Notes}
	if p.Skip != "" {
		res.Outcome, res.Diff = Skip, []string{p.Skip}
		return res
	}
	if a.Err != nil {
		res.Outcome, res.Diff = Error, []string{p.Unmap(a.Err.Error())}
		return res
	}
	out, err := a.Expect(p.Profiles)
	if err != nil {
		res.Outcome, res.Diff = Error, []string{p.Unmap(err.Error())}
		return res
	}
	want := r.Impl.Expectation(p.Name, out)
	if !r.Impl.ComparesEffective() {
		want.Effective = nil
	}
	res.Want = want
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	settle := r.Opts.Settle
	if settle == 0 {
		settle = 3 * time.Second
	}
	var last []string
	var lastErr, statusErr error
	stableSince := time.Now()
	for {
		got, err := r.Impl.Observe(ctx, r.Kube, p)
		var diff []string
		if err == nil {
			if !r.Impl.ComparesEffective() {
				got.Effective = nil
			}
			diff = driver.DiffConditions(want, got, r.Impl.Conditions())
			res.Got = got
			if len(diff) == 0 {
				res.Outcome = Pass
				return res
			}
		}
		if !slices.Equal(diff, last) || (err == nil) != (lastErr == nil) {
			stableSince = time.Now()
		}
		last, lastErr = diff, err
		// A disagreement that held still for settle is final once every
		// policy has status for its generation (read only then: it costs
		// a read of each policy).
		if err == nil && time.Since(stableSince) >= settle {
			current, serr := r.statusCurrent(ctx, p)
			statusErr = serr
			if current {
				res.Outcome = Fail
				for _, d := range diff {
					res.Diff = append(res.Diff, p.Unmap(d))
				}
				return res
			}
		}
		select {
		case <-ctx.Done():
			res.Outcome = Error
			if err == nil && statusErr == nil {
				// Say which policies lack status, if any.
				sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				_, statusErr = r.statusCurrent(sctx, p)
				cancel()
			}
			switch {
			case err != nil:
				res.Diff = []string{p.Unmap(err.Error())}
			case statusErr != nil:
				res.Diff = []string{p.Unmap(statusErr.Error())}
			default:
				res.Diff = []string{fmt.Sprintf("%s did not settle within %s", r.Impl.Name(), r.timeout())}
			}
			for _, d := range diff {
				res.Diff = append(res.Diff, p.Unmap(d))
			}
			return res
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// statusCurrent reports whether every policy has status written for its
// current generation (observedGeneration on every condition); the error
// names the policies without.
func (r *Runner) statusCurrent(ctx context.Context, p *Plan) (bool, error) {
	var missing []string
	for _, u := range p.PolicyObjects() {
		got, err := r.Kube.Get(ctx, u)
		if err != nil {
			return false, err
		}
		if !observed(got) {
			missing = append(missing, u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName())
		}
	}
	if len(missing) > 0 {
		return false, fmt.Errorf("no status for the current generation from %s on %s", r.Impl.Name(), strings.Join(missing, ", "))
	}
	return true, nil
}

// observed: the object has conditions, all for its current generation,
// either in status.conditions or in status.ancestors[].conditions
// (GEP-713 PolicyAncestorStatus).
func observed(u *unstructured.Unstructured) bool {
	var conds []any
	c, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	conds = append(conds, c...)
	ancestors, _, _ := unstructured.NestedSlice(u.Object, "status", "ancestors")
	for _, a := range ancestors {
		if am, ok := a.(map[string]any); ok {
			c, _, _ := unstructured.NestedSlice(am, "conditions")
			conds = append(conds, c...)
		}
	}
	if len(conds) == 0 {
		return false
	}
	for _, c := range conds {
		cm, _ := c.(map[string]any)
		g, ok, _ := unstructured.NestedFieldNoCopy(cm, "observedGeneration")
		if !ok || toInt(g) < u.GetGeneration() {
			return false
		}
	}
	return true
}

func toInt(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	case int:
		return int64(n)
	}
	return -1
}

// Delete removes the scenario's objects: its namespaces (and everything
// in them) and its cluster-scoped objects, selected by label.
func (r *Runner) Delete(ctx context.Context, p *Plan, index int) error {
	sel := fmt.Sprintf("%s=%s,%s=%s,%s=%d", cluster.LabelManagedBy, cluster.ManagedBy, cluster.LabelRun, r.Run, cluster.LabelScenario, index)
	return cluster.DeleteLabelled(ctx, r.Kube.Cluster, sel, false)
}

func (r *Runner) timeout() time.Duration {
	if r.Opts.StepTimeout > 0 {
		return r.Opts.StepTimeout
	}
	return 30 * time.Second
}

// orderNotes says where the stored creationTimestamps of the policies do
// not keep the intended order of their groups (a clock of the API server
// behind gepcheck's, say): the expectation follows the stored order, so
// the scenario still means something, just not quite what was written.
func orderNotes(p *Plan, stored []*unstructured.Unstructured) []string {
	at := map[string]time.Time{}
	for _, u := range stored {
		at[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()] = u.GetCreationTimestamp().Time
	}
	var notes []string
	var prevMax time.Time
	var prevName string
	for gi := 2; gi < len(p.Groups); gi++ {
		var lo, hi time.Time
		var loName string
		for i, u := range p.Groups[gi] {
			t := at[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()]
			if i == 0 || t.Before(lo) {
				lo, loName = t, u.GetName()
			}
			if i == 0 || t.After(hi) {
				hi = t
			}
		}
		if gi > 2 && !lo.After(prevMax) {
			notes = append(notes, p.Unmap(fmt.Sprintf("stored creationTimestamps do not keep the intended order: %s (%s) is not newer than %s (%s); the expectation follows the stored order",
				loName, lo.Format(time.RFC3339), prevName, prevMax.Format(time.RFC3339))))
		}
		prevMax, prevName = hi, p.Groups[gi][len(p.Groups[gi])-1].GetName()
	}
	return notes
}

func objName(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetName()
	}
	return u.GetNamespace() + "/" + u.GetName()
}

// Pipeline applies plans ahead of the one being verified, up to Parallel
// at once, since scenarios live in their own namespaces.
type Pipeline struct {
	Runner   *Runner
	Plans    []*Plan
	Parallel int
	// Want says whether a plan will be verified (label filters).
	Want func(i int) bool

	mu      sync.Mutex
	started map[int]chan *Applied
}

// Applied returns plan i applied, starting it and the next ones.
func (pl *Pipeline) Applied(ctx context.Context, i int) *Applied {
	pl.mu.Lock()
	if pl.started == nil {
		pl.started = map[int]chan *Applied{}
	}
	n := max(pl.Parallel, 1)
	for j := i; j < len(pl.Plans) && n > 0; j++ {
		if pl.Want != nil && !pl.Want(j) {
			continue
		}
		n--
		if _, ok := pl.started[j]; ok {
			continue
		}
		ch := make(chan *Applied, 1)
		pl.started[j] = ch
		p := pl.Plans[j]
		go func() {
			if p.Skip != "" {
				ch <- &Applied{Plan: p}
				return
			}
			ch <- pl.Runner.Apply(ctx, p)
		}()
	}
	ch := pl.started[i]
	pl.mu.Unlock()
	if ch == nil {
		return &Applied{Plan: pl.Plans[i], Err: errors.New("not started")}
	}
	return <-ch
}

var namespaceGVK = schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}
