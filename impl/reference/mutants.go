package reference

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/fault"
)

// Mutant is gepcheck-reference with a planted fault that an orderly run
// (objects applied a wave at a time, status awaited) does not show and
// one perturbation does (docs/faults.md, Mutant controllers): gepcheck's
// own tests run them to show that its oracles catch what they are for
// (issue 33; Sieve, OSDI '22, plants such faults in the same way). The
// empty Mutant is the correct controller.
type Mutant string

const (
	// ForgetOnRestart does not reconcile what exists when it starts (its
	// first reconcile, of the objects its caches synced, writes nothing),
	// only the changes that arrive after: what changed while it was down
	// stays unwritten.
	ForgetOnRestart Mutant = "forget-on-restart"
	// MissedEvent drops a change to an object it has seen before (an
	// update or a deletion) that arrives while a reconcile runs, instead
	// of reconciling again after it: the last changes of a burst stay
	// unseen until some later change. Creations always get through, so an
	// orderly run, which creates a state's objects wave by wave with no
	// wait for status, is judged the same however long a reconcile takes.
	MissedEvent Mutant = "missed-event"
	// StaleRead computes each object that changed or went away since the
	// previous reconcile as the previous reconcile read it (one read
	// behind; an object it had not read is read as stored): its status
	// describes the second-to-last state until some later change.
	StaleRead Mutant = "stale-read"
	// ArrivalTies orders policies that share a creation second by the
	// order it first saw them, not by name (GEP-713, Conflict resolution,
	// rule 3): it gives the engine sub-second creation times in arrival
	// order; the objects are not written.
	ArrivalTies Mutant = "arrival-ties"
	// Flap, once settled, now and then writes one policy's Accepted
	// condition with the wrong status; the reconcile that write causes
	// writes it back: a condition flips while nothing changes.
	Flap Mutant = "flap"
)

// MutantDoc says what a mutant is for: the oracle of issue 33 that must
// catch it, and the perturbation that shows it (docs/faults.md).
type MutantDoc struct {
	Name   Mutant
	Oracle string
	// Shows is the perturbation that shows it; none for Flap, which shows
	// in any quiet period.
	Shows []fault.Kind
	Doc   string
}

// Mutants lists the mutants, one line each.
func Mutants() []MutantDoc {
	return []MutantDoc{
		{ForgetOnRestart, "convergence", []fault.Kind{fault.Restart}, "does not reconcile what exists when it starts: a change made while it was down is never written"},
		{MissedEvent, "convergence", []fault.Kind{fault.Burst, fault.Delay}, "drops a change to a known object that arrives while a reconcile runs: the last changes of a burst stay unseen"},
		{StaleRead, "convergence", []fault.Kind{fault.Burst, fault.Delay}, "computes a changed object as the previous reconcile read it: status of the second-to-last state"},
		{ArrivalTies, "history independence", []fault.Kind{fault.Ties}, "orders policies of one creation second by arrival, not by name (GEP-713, Conflict resolution rule 3)"},
		{Flap, "stability", nil, "once settled, flips a policy's Accepted condition and back now and then"},
	}
}

// ParseMutant reads the value of --mutant ("" is the correct controller).
func ParseMutant(s string) (Mutant, error) {
	if s == "" {
		return "", nil
	}
	var names []string
	for _, m := range Mutants() {
		if string(m.Name) == s {
			return m.Name, nil
		}
		names = append(names, string(m.Name))
	}
	return "", fmt.Errorf("unknown mutant %q; one of %s", s, strings.Join(names, ", "))
}

// MutantFlags is a hidden flag that plants a fault, for gepcheck's own
// tests: --mutant of gepcheck controller reference, or Flag
// (--reference-mutant of the commands that run the reference in a
// cluster, as run).
type MutantFlags struct {
	Flag string // the flag's name; "mutant" when empty
	name string
}

func (f *MutantFlags) flag() string {
	if f.Flag == "" {
		return "mutant"
	}
	return f.Flag
}

// AddFlags adds the flag, hidden.
func (f *MutantFlags) AddFlags(fs *pflag.FlagSet) {
	var names []string
	for _, m := range Mutants() {
		names = append(names, string(m.Name))
	}
	fs.StringVar(&f.name, f.flag(), "", "run with a planted fault, for gepcheck's own tests: "+strings.Join(names, ", ")+" (docs/faults.md)")
	_ = fs.MarkHidden(f.flag())
}

// Mutant is the mutant named, validated into an exitcode.Input naming
// the flag.
func (f *MutantFlags) Mutant() (Mutant, error) {
	m, err := ParseMutant(f.name)
	if err != nil {
		return "", exitcode.Input{Err: fmt.Errorf("--%s: %w", f.flag(), err)}
	}
	return m, nil
}

// mutantState is what the mutants keep between events and reconciles;
// the correct controller never touches it.
type mutantState struct {
	started     atomic.Bool // ForgetOnRestart: the first reconcile is done
	reconciling atomic.Bool // MissedEvent

	mu       sync.Mutex
	arrivals int64               // ArrivalTies: policies seen, in order
	arrival  map[types.UID]int64 // ArrivalTies: when each was first seen
	// seen is every object MissedEvent has had an event of: as many as
	// the watched kinds hold in the cluster.
	seen     map[types.UID]bool
	previous map[string]*unstructured.Unstructured
	policies []*unstructured.Unstructured // Flap: the policies last computed
	flips    int
}

// flapEvery is how often Flap, settled, flips a condition.
const flapEvery = time.Second

// maxArrivals bounds ArrivalTies' sub-second offsets (nanoseconds) below
// a second.
const maxArrivals = 999_999_999

// events is the map of the watches' events to the one request, with the
// mutants' planted faults in it: ArrivalTies records when a policy is
// first seen, MissedEvent drops a change to a known object that arrives
// while a reconcile runs.
func (c *Controller) events(world handler.MapFunc) handler.MapFunc {
	if c.Mutant != MissedEvent && c.Mutant != ArrivalTies {
		return world
	}
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		if c.Mutant == ArrivalTies {
			c.arrived(o)
		}
		if c.Mutant == MissedEvent && c.known(o) && c.mutant.reconciling.Load() {
			return nil
		}
		return world(ctx, o)
	}
}

// known (MissedEvent) says whether o had an event before this one.
func (c *Controller) known(o client.Object) bool {
	c.mutant.mu.Lock()
	defer c.mutant.mu.Unlock()
	if c.mutant.seen == nil {
		c.mutant.seen = map[types.UID]bool{}
	}
	seen := c.mutant.seen[o.GetUID()]
	c.mutant.seen[o.GetUID()] = true
	return seen
}

func (c *Controller) arrived(o client.Object) {
	u, ok := o.(*unstructured.Unstructured)
	if !ok || !c.isPolicy(u) {
		return
	}
	c.mutant.mu.Lock()
	defer c.mutant.mu.Unlock()
	if c.mutant.arrival == nil {
		c.mutant.arrival = map[types.UID]int64{}
	}
	if _, seen := c.mutant.arrival[o.GetUID()]; !seen && c.mutant.arrivals < maxArrivals {
		c.mutant.arrivals++
		c.mutant.arrival[o.GetUID()] = c.mutant.arrivals
	}
}

// byArrival (ArrivalTies) gives the engine a policy's creation time with
// its arrival as the nanoseconds: of policies of one second, the first
// seen is the oldest.
func (c *Controller) byArrival(raw map[string]any, o *unstructured.Unstructured) {
	if c.Mutant != ArrivalTies || !c.isPolicy(o) {
		return
	}
	c.mutant.mu.Lock()
	n, ok := c.mutant.arrival[o.GetUID()]
	c.mutant.mu.Unlock()
	if md, isMap := raw["metadata"].(map[string]any); ok && isMap {
		md["creationTimestamp"] = o.GetCreationTimestamp().UTC().Add(time.Duration(n)).Format(time.RFC3339Nano)
	}
}

// reconciler is the reconcile the controller runs: c.reconcile, or with
// a mutant set, wrapped with ForgetOnRestart's skip of the first
// reconcile (of what exists when the controller starts) and MissedEvent's
// mark of a reconcile under way.
func (c *Controller) reconciler() reconcile.Func {
	switch c.Mutant {
	case ForgetOnRestart:
		return func(ctx context.Context, r reconcile.Request) (reconcile.Result, error) {
			if !c.mutant.started.Swap(true) {
				c.logf("mutant %s: what exists at start is not reconciled", c.Mutant)
				return reconcile.Result{}, nil
			}
			return c.reconcile(ctx, r)
		}
	case MissedEvent:
		return func(ctx context.Context, r reconcile.Request) (reconcile.Result, error) {
			c.mutant.reconciling.Store(true)
			defer c.mutant.reconciling.Store(false)
			return c.reconcile(ctx, r)
		}
	}
	return c.reconcile
}

// mutate applies the planted faults that change what a reconcile read:
// StaleRead's read one behind, and Flap's record of the policies; nothing
// without a mutant.
func (c *Controller) mutate(groups, groupOf map[string]*group) {
	switch c.Mutant {
	case StaleRead:
		c.behind(groups, groupOf)
	case Flap:
		var pols []*unstructured.Unstructured
		for _, key := range slices.Sorted(maps.Keys(groups)) {
			for _, o := range groups[key].objects {
				if c.isPolicy(o) {
					pols = append(pols, o)
				}
			}
		}
		c.mutant.mu.Lock()
		c.mutant.policies = pols
		c.mutant.mu.Unlock()
	}
}

// behind (StaleRead) replaces each object the previous reconcile read
// with what it read then (resourceVersion and status as stored now, so
// that writes go through), and puts back, in their namespaces' groups,
// the objects gone since.
func (c *Controller) behind(groups, groupOf map[string]*group) {
	now := map[string]*unstructured.Unstructured{}
	prev := c.mutant.previous
	for _, key := range slices.Sorted(maps.Keys(groups)) {
		g := groups[key]
		for i, o := range g.objects {
			ref := refOf(o)
			now[ref] = o.DeepCopy()
			if p := prev[ref]; p != nil && p.GetUID() == o.GetUID() {
				s := p.DeepCopy()
				s.SetResourceVersion(o.GetResourceVersion())
				if st, ok := o.Object["status"]; ok {
					s.Object["status"] = st
				}
				g.objects[i] = s
			}
		}
	}
	for _, ref := range slices.Sorted(maps.Keys(prev)) {
		if p := prev[ref]; now[ref] == nil && groupOf[p.GetNamespace()] != nil {
			g := groupOf[p.GetNamespace()]
			g.objects = append(g.objects, p)
		}
	}
	c.mutant.previous = now
}

// flap (Flap) flips a condition every flapEvery once the last reconcile
// wrote nothing, until ctx is done.
func (c *Controller) flap(ctx context.Context) error {
	t := time.NewTicker(flapEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if last := c.LastReconciled(); last != nil && last.Writes == 0 {
			c.flipOne(ctx)
		}
	}
}

// flipOne writes the Accepted condition of the next policy last computed
// with the other status; the reconcile of that write writes it back.
func (c *Controller) flipOne(ctx context.Context) {
	c.mutant.mu.Lock()
	pols := c.mutant.policies
	var o *unstructured.Unstructured
	if len(pols) > 0 {
		o = pols[c.mutant.flips%len(pols)]
		c.mutant.flips++
	}
	c.mutant.mu.Unlock()
	if o == nil {
		return
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(o.GroupVersionKind())
	if err := c.client.Get(ctx, client.ObjectKeyFromObject(o), u); err != nil {
		return
	}
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, x := range conds {
		if m, ok := x.(map[string]any); ok && m["type"] == "Accepted" {
			if m["status"] == "True" {
				m["status"] = "False"
			} else {
				m["status"] = "True"
			}
			_ = unstructured.SetNestedSlice(u.Object, conds, "status", "conditions")
			if err := c.client.Status().Update(ctx, u); err == nil {
				c.logf("mutant %s: %s Accepted written %s", c.Mutant, refOf(u), m["status"])
			}
			return
		}
	}
}
