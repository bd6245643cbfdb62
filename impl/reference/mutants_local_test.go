package reference

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/incluster"
)

// mutantsFile is the case the mutants run on: p1 and p2 in conflict on
// b1, p3 to p6 alone; its step deletes p1.
const mutantsFile = "testdata/mutants.yaml"

// mutantRig runs gepcheck-reference as a process (InCluster.Start, this
// test binary as gepcheck: TestMain) on one local control plane, so that
// cluster.Kill crashes it as the restart fault does.
type mutantRig struct {
	c *cluster.Cluster
	k *cluster.Kube
}

// start starts gepcheck-reference with mutant m, logging in logDir; the
// caller stops it.
func (g *mutantRig) start(t *testing.T, m Mutant, logDir string) func() {
	t.Helper()
	stop, err := InCluster{Mutant: m}.Start(context.Background(), g.c, logDir, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	return stop
}

// runner judges the case's states; settle is how long a disagreement
// must hold with status current, timeout how long a state may take.
func (g *mutantRig) runner(run string, settle, timeout time.Duration) *incluster.Runner {
	return &incluster.Runner{Kube: g.k, Impl: InCluster{}, Run: run, Opts: incluster.Options{StepTimeout: timeout, Settle: settle}}
}

// orderly applies the case's first state as a run does (a wave at a
// time) and verifies that state only.
func (g *mutantRig) orderly(t *testing.T, r *incluster.Runner, file string) (*incluster.Plan, incluster.Result) {
	t.Helper()
	p := plan(t, file, r.Run, 0, InCluster{})
	a := r.Apply(context.Background(), p, 0)
	first := *p
	first.Steps = nil
	a.Case = &first
	return p, r.Verify(context.Background(), a)
}

// storedState is the case p's objects as stored now, as state 1 (an
// agreement must hold for the runner's settle, with status current).
func (g *mutantRig) storedState(t *testing.T, p *incluster.Plan) *incluster.Applied {
	t.Helper()
	first := *p
	first.Steps = nil
	a := &incluster.Applied{Plan: p, Case: &first, State: 1}
	for _, u := range p.ScenarioObjects() {
		got, err := g.k.Get(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		a.Stored = append(a.Stored, got)
	}
	return a
}

// verdict is what one controller did with the case: under an orderly run,
// and under the perturbation.
type verdict struct {
	orderly, perturbed incluster.Result
	took               time.Duration
}

func (v verdict) String() string {
	return fmt.Sprintf("orderly %s, perturbed %s %s in %s", v.orderly.Outcome, v.perturbed.Outcome, strings.Join(compare.Strings(v.perturbed.Diff), "; "), v.took.Round(100*time.Millisecond))
}

// restart: the case created in order; the controller killed; the step
// (p1 deleted) applied while it is down; the controller started again
// (logging below logDir). ForgetOnRestart is given the case only once its
// first reconcile has passed, and judged only once its restart's has: it
// has had its chance.
func (g *mutantRig) restart(t *testing.T, m Mutant, run string) verdict {
	logDir := t.TempDir()
	defer g.start(t, m, logDir)()
	firstReconcile(t, m, logDir)
	r := g.runner(run, 6*time.Second, 30*time.Second)
	p, first := g.orderly(t, r, mutantsFile)
	start := time.Now()
	if n := cluster.Kill(logDir); n != 1 {
		t.Fatalf("cluster.Kill killed %d processes, want gepcheck-reference", n)
	}
	a := r.Apply(context.Background(), p, 1)
	again := filepath.Join(logDir, "restart")
	if err := os.Mkdir(again, 0o755); err != nil {
		t.Fatal(err)
	}
	defer g.start(t, m, again)()
	firstReconcile(t, m, again)
	return verdict{first, r.Verify(context.Background(), a), time.Since(start)}
}

// firstReconcile waits until ForgetOnRestart, logging in logDir, has
// skipped its first reconcile (nothing for another controller).
func firstReconcile(t *testing.T, m Mutant, logDir string) {
	t.Helper()
	if m != ForgetOnRestart {
		return
	}
	log := filepath.Join(logDir, "gepcheck-reference.log")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if data, _ := os.ReadFile(log); strings.Contains(string(data), "what exists at start is not reconciled") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no first reconcile in a minute", log)
		}
	}
}

// step: the case created in order; then its step (p1 deleted) as the
// last change of a burst, with nothing after it.
func (g *mutantRig) step(t *testing.T, m Mutant, run string) verdict {
	defer g.start(t, m, t.TempDir())()
	r := g.runner(run, 3*time.Second, 30*time.Second)
	p, first := g.orderly(t, r, mutantsFile)
	start := time.Now()
	return verdict{first, r.Verify(context.Background(), r.Apply(context.Background(), p, 1)), time.Since(start)}
}

// burst: the case created in order; then, with no wait, p3 to p6 change
// color and p1 moves from b1 to b2 (p2 takes effect), or back; up to
// rounds rounds, until one ends in a disagreement (a controller that drops
// events drops the last ones only when they arrive during a reconcile).
func (g *mutantRig) burst(t *testing.T, m Mutant, run string, rounds int) (v verdict, ran int) {
	defer g.start(t, m, t.TempDir())()
	r := g.runner(run, 3*time.Second, 8*time.Second)
	p, first := g.orderly(t, r, mutantsFile)
	start := time.Now()
	var res incluster.Result
	for round := range rounds {
		for _, u := range p.PolicyObjects() {
			u = u.DeepCopy()
			switch u.GetName() {
			case "p1":
				target := []string{"b2", "b1"}[round%2]
				_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"group": "", "kind": "Service", "name": target}}, "spec", "targetRefs")
			case "p2":
				continue
			default:
				_ = unstructured.SetNestedField(u.Object, []string{"yellow", "purple", "orange"}[round%3], "spec", "color")
			}
			res, err := g.k.Resource(u.GroupVersionKind(), u.GetNamespace())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := res.Apply(context.Background(), u.GetName(), u, metav1.ApplyOptions{FieldManager: cluster.ManagedBy, Force: true}); err != nil {
				t.Fatal(err)
			}
		}
		ran = round + 1
		if res = r.Verify(context.Background(), g.storedState(t, p)); res.Outcome != incluster.Pass {
			break
		}
	}
	return verdict{first, res, time.Since(start)}, ran
}

// ties: a case whose step creates pa and pb, in conflict on b1, within one
// second, pa first or pb first: GEP-713's rule 2 ties them and rule 3
// (by name) makes pa the established one either way.
func (g *mutantRig) ties(t *testing.T, m Mutant, run string, bFirst bool) verdict {
	defer g.start(t, m, t.TempDir())()
	file := filepath.Join(t.TempDir(), "ties.yaml")
	pa := `{apiVersion: policies.controller.io/v1, kind: ColorPolicy, metadata: {name: pa}, spec: {targetRefs: [{group: "", kind: Service, name: b1}], color: red}}`
	pb := strings.ReplaceAll(strings.ReplaceAll(pa, "pa", "pb"), "red", "blue")
	if bFirst {
		pa, pb = pb, pa
	}
	if err := os.WriteFile(file, []byte(fmt.Sprintf(tiesScenario, pa, pb)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := g.runner(run, 3*time.Second, 30*time.Second)
	p, first := g.orderly(t, r, file)
	start := time.Now()
	a := r.Apply(context.Background(), p, 1)
	created := map[string]bool{}
	for _, u := range a.Stored {
		if u.GetName() == "pa" || u.GetName() == "pb" {
			created[u.GetCreationTimestamp().String()] = true
		}
	}
	if len(created) != 1 {
		// The runner creates them early in a second; a machine so loaded
		// that they straddle two is no tie.
		t.Skipf("pa and pb were created in different seconds: %v", created)
	}
	return verdict{first, r.Verify(context.Background(), a), time.Since(start)}
}

const tiesScenario = `apiVersion: gepcheck.dev/v1alpha1
kind: Scenario
metadata: {name: ties}
spec:
  profiles: [color-direct]
  steps:
  - name: tie
    apply:
    - %s
    - %s
---
apiVersion: v1
kind: Service
metadata: {name: b1}
spec: {ports: [{port: 80}]}
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p0}
spec:
  targetRefs: [{group: "", kind: Service, name: b0}]
  color: green
---
apiVersion: v1
kind: Service
metadata: {name: b0}
spec: {ports: [{port: 80}]}
`

// flaps: the case created in order; then the flips of a condition of any
// ColorPolicy in the cluster during quiet, watched from the stored version
// on.
func (g *mutantRig) flaps(t *testing.T, m Mutant, run string, quiet time.Duration) (incluster.Result, []string) {
	defer g.start(t, m, t.TempDir())()
	r := g.runner(run, 3*time.Second, 30*time.Second)
	p, first := g.orderly(t, r, mutantsFile)
	ctx, cancel := context.WithTimeout(context.Background(), quiet)
	defer cancel()
	res, err := g.k.Resource(p.PolicyObjects()[0].GroupVersionKind(), "")
	if err != nil {
		t.Fatal(err)
	}
	l, err := res.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	was := map[string]any{}
	conds := func(u *unstructured.Unstructured) map[string]any {
		out := map[string]any{}
		cs, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range cs {
			if cm, ok := c.(map[string]any); ok {
				out[u.GetName()+" "+fmt.Sprint(cm["type"])] = cm["status"]
			}
		}
		return out
	}
	for i := range l.Items {
		for k, v := range conds(&l.Items[i]) {
			was[k] = v
		}
	}
	w, err := res.Watch(ctx, metav1.ListOptions{ResourceVersion: l.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var flips []string
	for ev := range w.ResultChan() {
		u, ok := ev.Object.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		for k, v := range conds(u) {
			if was[k] != nil && was[k] != v {
				flips = append(flips, fmt.Sprintf("%s %v→%v", k, was[k], v))
			}
			was[k] = v
		}
	}
	return first, flips
}

// Each mutant of gepcheck-reference writes what the correct controller
// writes under an orderly run, and differs from it under its
// perturbation, under which the correct controller converges (docs/faults.md,
// Mutant controllers): the perturbations show what orderly runs cannot.
func TestPerturbedMutants(t *testing.T) {
	c := startLocal(t)
	k, err := cluster.NewKube(c)
	if err != nil {
		t.Fatal(err)
	}
	g := &mutantRig{c: c, k: k}
	orderlyPass := func(t *testing.T, name string, v verdict) {
		t.Helper()
		if v.orderly.Outcome != incluster.Pass {
			t.Errorf("%s, orderly: %s %v, want a pass", name, v.orderly.Outcome, compare.Strings(v.orderly.Diff))
		}
	}
	// judge: the correct controller converges under the perturbation and
	// the mutant does not (a Fail: status current, or a policy without
	// it, and a difference that holds).
	judge := func(t *testing.T, m Mutant, correct, mutant verdict) {
		t.Helper()
		orderlyPass(t, "correct", correct)
		orderlyPass(t, string(m), mutant)
		if correct.perturbed.Outcome != incluster.Pass {
			t.Errorf("correct controller, perturbed: %s, want a pass", correct)
		}
		if mutant.perturbed.Outcome != incluster.Fail || len(mutant.perturbed.Diff) == 0 {
			t.Errorf("mutant %s, perturbed: %s, want a failure", m, mutant)
		}
		t.Logf("correct: %s\nmutant %s: %s", correct, m, mutant)
	}
	// Flap first: it flips the policies it computed, of every case the
	// cluster holds, so it has the fewest.
	t.Run(string(Flap), func(t *testing.T) {
		const quiet = 3 * time.Second
		first, flips := g.flaps(t, "", "fc", quiet)
		orderlyPass(t, "correct", verdict{orderly: first})
		if len(flips) > 0 {
			t.Errorf("correct controller: conditions flipped in %s of quiet: %v", quiet, flips)
		}
		first, flips = g.flaps(t, Flap, "fm", quiet)
		orderlyPass(t, string(Flap), verdict{orderly: first})
		if len(flips) == 0 {
			t.Errorf("mutant %s: no condition flipped in %s of quiet", Flap, quiet)
		}
		t.Logf("mutant %s: %d flips in %s: %v", Flap, len(flips), quiet, flips)
	})
	t.Run(string(ForgetOnRestart), func(t *testing.T) {
		judge(t, ForgetOnRestart, g.restart(t, "", "rc"), g.restart(t, ForgetOnRestart, "rm"))
	})
	t.Run(string(StaleRead), func(t *testing.T) {
		judge(t, StaleRead, g.step(t, "", "sc"), g.step(t, StaleRead, "sm"))
	})
	t.Run(string(MissedEvent), func(t *testing.T) {
		// The mutant first: the correct controller meets as many bursts.
		mutant, rounds := g.burst(t, MissedEvent, "mm", 3)
		correct, _ := g.burst(t, "", "mc", rounds)
		judge(t, MissedEvent, correct, mutant)
		t.Logf("%d burst(s)", rounds)
	})
	// Ties: the mutant agrees when arrival is name order, and differs when
	// it is not; the correct controller agrees in both orders.
	t.Run(string(ArrivalTies), func(t *testing.T) {
		judge(t, ArrivalTies, g.ties(t, "", "tc", true), g.ties(t, ArrivalTies, "tm", true))
		v := g.ties(t, ArrivalTies, "ta", false)
		orderlyPass(t, string(ArrivalTies), v)
		if v.perturbed.Outcome != incluster.Pass {
			t.Errorf("mutant %s, pa created first: %s, want a pass", ArrivalTies, v)
		}
	})
}
