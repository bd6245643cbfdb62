package incluster

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/fault"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/observe"
	"github.com/gepcheck/gepcheck/suite/statusrules"
)

// Implementation is an implementation of policy attachment running in a
// cluster, as the runner sees it. Implementations are plug-ins (package
// impl); the runner never names one.
type Implementation interface {
	Name() string
	Capabilities() Capabilities
	// ControllerName is set on every GatewayClass of a scenario.
	ControllerName() string
	// CRDs are the CustomResourceDefinitions the implementation needs
	// besides Gateway API's, installed where missing.
	CRDs(ctx context.Context) ([]*unstructured.Unstructured, error)
	// Start runs the implementation's controller as a local process
	// against c, logging into logDir; stop ends it.
	Start(ctx context.Context, c *cluster.Cluster, logDir string, log func(string)) (stop func(), err error)
	// NamespaceAnnotations are set on every namespace of a scenario with
	// these profiles, in its own partition of the cluster (nil: none).
	NamespaceAnnotations(profiles []string, partition string) map[string]string
	// Expectation shapes the reference engine's output into what the
	// implementation reports.
	Expectation(name string, out *simulator.Output) observe.Observation
	// Observe reads what the implementation did with the plan's objects.
	Observe(ctx context.Context, k *cluster.Kube, p *Plan) (observe.Observation, error)
}

// Capabilities say what an implementation in a cluster reports.
type Capabilities struct {
	observe.Capabilities
	// Effective: Observe reports effective settings.
	Effective bool
	// Endpoints: the implementation programs a backend only when it has
	// endpoints, so each Service gets an EndpointSlice (Plan.Endpoints).
	Endpoints bool
}

// TargetFor is the Target of scenario i of run for im.
func TargetFor(im Implementation, run string, i int) Target {
	caps := im.Capabilities()
	return Target{Run: run, Index: i, ControllerName: im.ControllerName(), Features: caps.Features,
		Endpoints: caps.Endpoints, Annotations: im.NamespaceAnnotations, Semantics: caps.Semantics, Vocabulary: caps.Vocabulary, AncestorEntries: caps.AncestorEntries, Profiles: caps.Profiles}
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
	// Quiet is the quiet period of the stability oracle after a faulted
	// case's last state (docs/faults.md); DefaultQuiet when 0.
	Quiet time.Duration
}

// DefaultQuiet is the stability oracle's quiet period by default.
const DefaultQuiet = 3 * time.Second

// Runner runs plans against one implementation in one cluster.
type Runner struct {
	Kube *cluster.Kube
	Impl Implementation
	Run  string
	Opts Options
	// Controller is the implementation's controller when the run started
	// it (restart faults and the convergence oracle; nil: a restart
	// fault's case is skipped, and convergence is not judged).
	Controller Controller
	// Watches delays the controller's watch events (delay faults; nil: a
	// delay fault's case is skipped).
	Watches Watches

	// sawStatus: the implementation has given some policy of this run
	// status for its generation, so it is running; from then on a policy
	// it leaves without status is a difference, not a run that failed.
	sawStatus atomic.Bool
	// candidates counts the shrinking candidates applied (tryCandidate).
	candidates atomic.Int64
	// shrinkingFor is the kind of difference the candidates applied now
	// are shrunk for ("": not shrinking): the oracles of faulted cases
	// after the one that finds it are not run (oracleNeeded).
	shrinkingFor compare.Kind
}

// oracleNeeded says whether the oracle that finds differences of kind k
// (compare.NotConvergent: convergence; compare.HistoryDependent: history
// independence) runs on a faulted case: always, but while shrinking only
// up to the one that finds the kind shrunk for. Stability always runs: it
// settles a verdict.
func (r *Runner) oracleNeeded(k compare.Kind) bool {
	switch r.shrinkingFor {
	case "", compare.HistoryDependent:
		return true
	case compare.NotConvergent:
		return k == compare.NotConvergent
	}
	return false
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
	// Diff lists the disagreements (Fail, and Error when the
	// implementation did not settle), in the scenario's own names.
	Diff []compare.Difference
	// Reason says why the scenario was skipped or is an error.
	Reason    string
	Want, Got observe.Observation
	// Notes say what else was seen (stored creation order differing from
	// the intended one).
	Notes []string
	// Case is the case's plan (Plan is that of the state judged); State
	// is the state the outcome is of, for a scenario with steps the first
	// that did not pass, or the last: its index among the scenario's
	// states (simulator.States; 0: the objects as created).
	Case  *Plan
	State int
	// Offline says, for a failure, what the implementation's offline form
	// does with the same case (Replay): whose the difference is.
	Offline  string
	Duration time.Duration

	// Faults are the perturbations made while the case was applied
	// (docs/faults.md), in the order made; nil for a case without.
	Faults []fault.Fault
	// Restarts counts the controller's restarts the case made (its
	// faults' and the convergence oracle's).
	Restarts int
	// QuietWrites counts the status writes during the stability oracle's
	// quiet period that flipped no condition, Flips those that did.
	QuietWrites, Flips int
	// Oracles are the fault oracles run on the case, and what each
	// compared.
	Oracles []Oracle

	// unsettled: the step's time ran out with the status still changing
	// (timedOut), which the stability oracle judges for a faulted case.
	unsettled bool
}

// Oracle is a fault oracle run on a case (docs/faults.md): its name
// (stability, convergence, history) and how many things it compared
// (objects watched, conditions and paths observed).
type Oracle struct {
	Name     string
	Compared int
}

// Applied is a plan applied to the cluster: the objects as stored.
type Applied struct {
	Plan   *Plan
	Stored []*unstructured.Unstructured
	Notes  []string
	Err    error
	// Case is the case's plan, Plan that of its state State (0: the
	// objects as first created).
	Case  *Plan
	State int
	// Skip, when set, says why the state's faults cannot be made in this
	// run: the case is skipped.
	Skip string
	// Faults are the faults made while the state was applied, Restarts
	// the controller's restarts among them; Delayed says the watches are
	// delayed until the state is verified (Watches.Release).
	Faults   []fault.Fault
	Restarts int
	Delayed  bool
	// Outage is how long kube-apiserver was down under the state's
	// apiserver faults (Verify waits that much longer for a disagreement
	// to hold).
	Outage time.Duration
}

// casePlan is the plan of the whole case the result is of (its steps and
// faults): Case, or Plan for a case of one state.
func (r Result) casePlan() *Plan {
	if r.Case != nil {
		return r.Case
	}
	return r.Plan
}

// Label names the state the result is of, for a case with steps: "step N
// (name)" (Plan.StateLabel); "" otherwise.
func (r Result) Label() string {
	if r.Case == nil {
		return ""
	}
	return r.Case.StateLabel(r.State)
}

// Apply applies state i of case p: for 0, its objects as created (create);
// after, step i on the objects of state i-1, which must be applied
// (applyStep). The objects of the state are read back as stored.
func (r *Runner) Apply(ctx context.Context, p *Plan, i int) *Applied {
	if fs := fault.At(p.Faults, i); len(fs) > 0 {
		return r.applyPerturbed(ctx, p, i, fs)
	}
	if i == 0 {
		return r.create(ctx, p, nil)
	}
	a := r.applyStep(ctx, p.State(i-1), p.Steps[i-1], p.StateLabel(i), nil)
	a.Case, a.State = p, i
	return a
}

// create creates the plan's objects with server-side apply, group by group,
// waiting for the next second between groups of policies, and reads them
// back as stored; under faults (pt, nil for none) as they say.
func (r *Runner) create(ctx context.Context, p *Plan, pt *perturbing) *Applied {
	a := &Applied{Plan: p, Case: p}
	if pt != nil {
		pt.a = a
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	var lastCreated time.Time
	// Namespaces, then every other object (with the EndpointSlices), then
	// the policies wave by wave.
	waves := slices.Concat([][]*unstructured.Unstructured{p.NamespaceObjects, slices.Concat(p.Objects, p.Endpoints)}, pt.tiedWaves(p.PolicyWaves))
	for wi, wave := range waves {
		if wi >= 2 && len(wave) > 0 && !pt.burst() {
			// GEP-713 Conflict resolution rule 2 orders by
			// creationTimestamp, which the API server sets to the second:
			// a wave is created after the previous wave's second, and
			// early in a second, so that the policies of one wave share
			// their creationTimestamp (rule 3 then orders them by name)
			// rather than straddle two seconds.
			var next time.Time
			if wi >= 3 {
				next = lastCreated.Truncate(time.Second).Add(time.Second + 50*time.Millisecond)
			}
			if now := time.Now(); now.After(next) && now.Sub(now.Truncate(time.Second)) > waveStart {
				next = now.Truncate(time.Second).Add(time.Second + 50*time.Millisecond)
			}
			select {
			case <-time.After(time.Until(next)):
			case <-ctx.Done():
				a.Err = ctx.Err()
				return a
			}
		}
		for _, u := range wave {
			got, err := r.apply(ctx, u)
			if err != nil {
				a.Err = err
				return a
			}
			if t := got.GetCreationTimestamp().Time; t.After(lastCreated) {
				lastCreated = t
			}
			if wi >= 2 {
				if a.Err = r.writeOthers(ctx, p, u); a.Err != nil {
					return a
				}
			}
			if a.Err = pt.afterObject(ctx); a.Err != nil {
				return a
			}
		}
	}
	if a.Err = pt.finish(ctx); a.Err != nil {
		return a
	}
	// Read back, as stored: real creationTimestamps, defaults applied.
	if a.Stored, a.Err = r.readBack(ctx, p); a.Err == nil {
		if _, tied := pt.ties(); !tied {
			a.Notes = append(a.Notes, orderNotes(p, a.Stored)...)
		}
	}
	return a
}

// apply creates or replaces u with server-side apply, as gepcheck.
func (r *Runner) apply(ctx context.Context, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	res, err := r.Kube.Resource(u.GroupVersionKind(), u.GetNamespace())
	if err != nil {
		return nil, err
	}
	got, err := res.Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: cluster.ManagedBy, Force: true})
	if err != nil {
		return nil, fmt.Errorf("apply %s %s: %w", u.GetKind(), objName(u), err)
	}
	return got, nil
}

// writeOthers writes on policy u, as the implementations of p.Others
// would, an ancestor entry for each of their Gateways (Accepted), keeping
// every entry there: read, add, update the status, again on a conflict.
// The implementation under test must leave them (statusrules.Policies,
// others-entries-kept). Written right after the policy is created, before
// the implementation under test is likely to have written its own.
func (r *Runner) writeOthers(ctx context.Context, p *Plan, u *unstructured.Unstructured) error {
	if len(p.Others) == 0 {
		return nil
	}
	err := r.updateStatus(ctx, u, func(got *unstructured.Unstructured) error {
		stored, _, _ := unstructured.NestedSlice(got.Object, "status", "ancestors")
		return unstructured.SetNestedSlice(got.Object, withOthers(p, stored, got.GetGeneration()), "status", "ancestors")
	})
	if err != nil {
		return fmt.Errorf("write the status of another implementation on %s %s: %w", u.GetKind(), objName(u), err)
	}
	return nil
}

// updateStatus changes u's status as stored with change, as gepcheck:
// read, change, update the status, again on a conflict.
func (r *Runner) updateStatus(ctx context.Context, u *unstructured.Unstructured, change func(got *unstructured.Unstructured) error) error {
	res, err := r.Kube.Resource(u.GroupVersionKind(), u.GetNamespace())
	if err != nil {
		return err
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		got, err := res.Get(ctx, u.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := change(got); err != nil {
			return err
		}
		_, err = res.UpdateStatus(ctx, got, metav1.UpdateOptions{FieldManager: cluster.ManagedBy})
		return err
	})
}

// withOthers is stored with the entries of the implementations of
// p.Others (an Accepted condition for generation) in place of theirs.
func withOthers(p *Plan, stored []any, generation int64) []any {
	var ancestors []any
	for _, a := range stored { // their earlier entries are replaced
		am, _ := a.(map[string]any)
		ar, _ := am["ancestorRef"].(map[string]any)
		if ctl, ok := p.Others[fmt.Sprint(ar["namespace"], "/", ar["name"])]; !ok || am["controllerName"] != ctl {
			ancestors = append(ancestors, a)
		}
	}
	now := time.Now().UTC().Format(time.RFC3339)
	for _, gw := range slices.Sorted(maps.Keys(p.Others)) {
		ns, name, _ := strings.Cut(gw, "/")
		ancestors = append(ancestors, map[string]any{
			"ancestorRef":    map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "namespace": ns, "name": name},
			"controllerName": p.Others[gw],
			"conditions": []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted", "observedGeneration": generation,
				"lastTransitionTime": now, "message": "written by gepcheck as another implementation"}},
		})
	}
	return ancestors
}

// readBack reads p's scenario objects as stored.
func (r *Runner) readBack(ctx context.Context, p *Plan) ([]*unstructured.Unstructured, error) {
	var stored []*unstructured.Unstructured
	for _, u := range p.ScenarioObjects() {
		got, err := r.Kube.Get(ctx, u)
		if err != nil {
			return nil, fmt.Errorf("read back %s %s: %w", u.GetKind(), objName(u), err)
		}
		stored = append(stored, got)
	}
	return stored, nil
}

// waveStart is how late in a second a wave of policies may still start:
// one that starts later waits for the next second.
const waveStart = 400 * time.Millisecond

// Expect computes the reference engine's outcome from the stored objects,
// under the semantics and in the status vocabulary of the plan (the
// implementation's claim).
func (a *Applied) Expect(profiles []string) (*simulator.Output, error) {
	data, err := cluster.SimulatorYAML(a.Stored)
	if err != nil {
		return nil, err
	}
	m, err := simulator.LoadFiles([]string{"-"}, strings.NewReader(data), simulator.Options{Profiles: profiles, Vocabulary: a.Plan.Vocabulary, AncestorEntries: a.Plan.AncestorEntries})
	if err != nil {
		return nil, fmt.Errorf("the stored objects do not load: %w", err)
	}
	return m.Run(a.Plan.Semantics, nil), nil
}

// Claiming is im claiming sem instead of its own semantics (run
// --semantics); im is returned as it is when sem is empty.
func Claiming(im Implementation, sem engine.Semantics) Implementation {
	if sem == "" {
		return im
	}
	return claiming{im, sem}
}

type claiming struct {
	Implementation
	sem engine.Semantics
}

func (c claiming) Capabilities() Capabilities {
	caps := c.Implementation.Capabilities()
	caps.Semantics = c.sem
	return caps
}

// ClaimingVocabulary is im claiming the status vocabulary v instead of its
// own (run --status-vocabulary); im is returned as it is when v is empty.
func ClaimingVocabulary(im Implementation, v engine.Vocabulary) Implementation {
	if v == "" {
		return im
	}
	return claimingVocabulary{im, v}
}

type claimingVocabulary struct {
	Implementation
	v engine.Vocabulary
}

func (c claimingVocabulary) Capabilities() Capabilities {
	caps := c.Implementation.Capabilities()
	caps.Vocabulary = c.v
	return caps
}

// statusCurrent reports whether every policy has status written for its
// current generation (observedGeneration on every condition); the error
// names the policies without.
// It returns the policies as read, for the status rules.
func (r *Runner) statusCurrent(ctx context.Context, p *Plan) (bool, []*unstructured.Unstructured, error) {
	stored, err := r.storedPolicies(ctx, p)
	if err != nil {
		return false, nil, err
	}
	var missing []string
	for _, got := range stored {
		if !observed(got) {
			missing = append(missing, got.GetKind()+"/"+objName(got))
		} else {
			r.sawStatus.Store(true)
		}
	}
	if len(missing) > 0 {
		return false, stored, &noStatusError{impl: r.Impl.Name(), missing: missing}
	}
	return true, stored, nil
}

// storedPolicies reads the plan's policies as stored.
func (r *Runner) storedPolicies(ctx context.Context, p *Plan) ([]*unstructured.Unstructured, error) {
	var stored []*unstructured.Unstructured
	for _, u := range p.PolicyObjects() {
		got, err := r.Kube.Get(ctx, u)
		if err != nil {
			return nil, err
		}
		stored = append(stored, got)
	}
	return stored, nil
}

// serving reports whether the implementation has decided on a
// GatewayClass or Gateway of p (a condition True or False, not the API
// server's default Unknown): it is running and serving the scenario.
func (r *Runner) serving(p *Plan) bool {
	ctx, cancel := context.WithTimeout(context.Background(), cluster.Timeouts.StatusRead)
	defer cancel()
	for _, u := range p.Objects {
		if u.GetKind() != "GatewayClass" && u.GetKind() != "Gateway" {
			continue
		}
		got, err := r.Kube.Get(ctx, u)
		if err != nil {
			continue
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conds {
			if cm, ok := c.(map[string]any); ok && (cm["status"] == "True" || cm["status"] == "False") {
				return true
			}
		}
	}
	return false
}

// noStatusError names the policies without status for their current
// generation.
type noStatusError struct {
	impl    string
	missing []string
}

func (e *noStatusError) Error() string {
	return fmt.Sprintf("no status for the current generation from %s on %s", e.impl, strings.Join(e.missing, ", "))
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
		if !ok || statusrules.Int(g) < u.GetGeneration() {
			return false
		}
	}
	return true
}

// Delete removes the scenario's objects: its namespaces (and everything
// in them) and its cluster-scoped objects, selected by label.
func (r *Runner) Delete(ctx context.Context, p *Plan, index int) error {
	sel := fmt.Sprintf("%s=%s,%s=%s,%s=%d", cluster.LabelManagedBy, cluster.ManagedBy, cluster.LabelRun, r.Run, cluster.LabelScenario, index)
	return cluster.DeleteLabelled(ctx, r.Kube.Cluster, sel, false)
}

// settle is how long an observation must hold still (Options.Settle).
func (r *Runner) settle() time.Duration {
	if r.Opts.Settle > 0 {
		return r.Opts.Settle
	}
	return cluster.Timeouts.Settle
}

// quiet is the stability oracle's quiet period (Options.Quiet).
func (r *Runner) quiet() time.Duration {
	if r.Opts.Quiet > 0 {
		return r.Opts.Quiet
	}
	return DefaultQuiet
}

func (r *Runner) timeout() time.Duration {
	if r.Opts.StepTimeout > 0 {
		return r.Opts.StepTimeout
	}
	return cluster.Timeouts.Step
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
	for wi, wave := range p.PolicyWaves {
		var lo, hi time.Time
		var loName string
		for i, u := range wave {
			t := at[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()]
			if i == 0 || t.Before(lo) {
				lo, loName = t, u.GetName()
			}
			if i == 0 || t.After(hi) {
				hi = t
			}
		}
		if !lo.Truncate(time.Second).Equal(hi.Truncate(time.Second)) {
			notes = append(notes, p.Unmap(fmt.Sprintf("stored creationTimestamps do not keep the intended order: %s and the policies created with it were meant to share a creationTimestamp but got %s and %s; the expectation follows the stored order",
				loName, lo.Format(time.RFC3339), hi.Format(time.RFC3339))))
		}
		if wi > 0 && !lo.After(prevMax) {
			notes = append(notes, p.Unmap(fmt.Sprintf("stored creationTimestamps do not keep the intended order: %s (%s) is not newer than %s (%s); the expectation follows the stored order",
				loName, lo.Format(time.RFC3339), prevName, prevMax.Format(time.RFC3339))))
		}
		prevMax, prevName = hi, wave[len(wave)-1].GetName()
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
				ch <- &Applied{Plan: p, Case: p}
				return
			}
			ch <- pl.Runner.Apply(ctx, p, 0)
		}()
	}
	ch := pl.started[i]
	pl.mu.Unlock()
	if ch == nil {
		return &Applied{Plan: pl.Plans[i], Case: pl.Plans[i], Err: errors.New("not started")}
	}
	return <-ch
}

// applyStep applies step st (labelled label) to the objects of prev, its
// previous state:
// the objects it deletes are deleted (and their deletion awaited), then
// the namespaces and EndpointSlices the new state adds, then the objects
// it applies; a policy it creates is created in a later second than every
// object before it (GEP-713, Conflict resolution rule 2). The objects of
// the new state are read back as stored.
func (r *Runner) applyStep(ctx context.Context, prev *Plan, st *Step, label string, pt *perturbing) *Applied {
	next := st.State
	a := &Applied{Plan: next}
	if pt != nil {
		pt.a = a
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout())
	defer cancel()
	if a.Err = r.deleteGone(ctx, prev, st, label, pt); a.Err != nil {
		return a
	}
	var created []*unstructured.Unstructured
	for _, u := range next.NamespaceObjects {
		if !slices.ContainsFunc(prev.NamespaceObjects, func(o *unstructured.Unstructured) bool { return sameObject(u, o) }) {
			created = append(created, u)
		}
	}
	newPolicy := addsPolicy(prev, st)
	for wi, wave := range [][]*unstructured.Unstructured{created, next.Endpoints, pt.tiedApply(st.Apply)} {
		if wi == 2 && newPolicy && !pt.burst() {
			// Every object before was created in an earlier second.
			select {
			case <-time.After(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 50*time.Millisecond))):
			case <-ctx.Done():
				a.Err = ctx.Err()
				return a
			}
		}
		for _, u := range wave {
			if _, err := r.apply(ctx, u); err != nil {
				a.Err = fmt.Errorf("%s: %w", label, err)
				return a
			}
			if policyKinds()[u.GroupVersionKind().Group+"/"+u.GetKind()] {
				if err := r.writeOthers(ctx, next, u); err != nil {
					a.Err = fmt.Errorf("%s: %w", label, err)
					return a
				}
			}
			if err := pt.afterObject(ctx); err != nil {
				a.Err = fmt.Errorf("%s: %w", label, err)
				return a
			}
		}
	}
	if err := pt.finish(ctx); err != nil {
		a.Err = fmt.Errorf("%s: %w", label, err)
		return a
	}
	if a.Stored, a.Err = r.readBack(ctx, next); a.Err != nil {
		a.Err = fmt.Errorf("%s: %w", label, a.Err)
	}
	return a
}

// addsPolicy says whether step st creates a policy prev does not have.
func addsPolicy(prev *Plan, st *Step) bool {
	return slices.ContainsFunc(st.Apply, func(u *unstructured.Unstructured) bool {
		return isPolicy(u) && !slices.ContainsFunc(prev.PolicyObjects(), func(o *unstructured.Unstructured) bool { return sameObject(u, o) })
	})
}

// deleteGone deletes what step st deletes from prev, and the
// EndpointSlices its state no longer has, each awaited.
func (r *Runner) deleteGone(ctx context.Context, prev *Plan, st *Step, label string, pt *perturbing) error {
	gone := slices.Clone(st.Delete)
	for _, e := range prev.Endpoints {
		if !slices.ContainsFunc(st.State.Endpoints, func(u *unstructured.Unstructured) bool { return sameObject(u, e) }) {
			gone = append(gone, e)
		}
	}
	for _, u := range gone {
		if err := r.deleteAndWait(ctx, u); err != nil {
			return fmt.Errorf("%s: delete %s %s: %w", label, u.GetKind(), objName(u), err)
		}
		if err := pt.afterObject(ctx); err != nil {
			return fmt.Errorf("%s: %w", label, err)
		}
	}
	return nil
}

// deleteAndWait deletes u and waits until it is gone (finalizers run), so
// that the step's state is the cluster's.
func (r *Runner) deleteAndWait(ctx context.Context, u *unstructured.Unstructured) error {
	res, err := r.Kube.Resource(u.GroupVersionKind(), u.GetNamespace())
	if err != nil {
		return err
	}
	if err := res.Delete(ctx, u.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	for {
		if _, err := res.Get(ctx, u.GetName(), metav1.GetOptions{}); apierrors.IsNotFound(err) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not gone: %w", ctx.Err())
		case <-time.After(cluster.Timeouts.Poll):
		}
	}
}

func sameObject(a, b *unstructured.Unstructured) bool {
	return a.GetKind() == b.GetKind() && a.GetNamespace() == b.GetNamespace() && a.GetName() == b.GetName()
}

// diffHistory remembers the distinct sets of differences one step
// observed, to tell a status that flips (a set comes back after another)
// from one that is still converging. It keeps at most maxDiffHistory sets:
// the step's timeout bounds the observations, this bounds the memory.
type diffHistory struct {
	sets     [][]compare.Difference
	recurred bool
}

const maxDiffHistory = 32

// observe records diff, observed after a different set: recurred is set
// when diff was observed before.
func (h *diffHistory) observe(diff []compare.Difference) {
	for _, s := range h.sets {
		if reflect.DeepEqual(s, diff) {
			h.recurred = true
			return
		}
	}
	if len(h.sets) < maxDiffHistory {
		h.sets = append(h.sets, diff)
	}
}
