package reference

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/cluster/local/localtest"
	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/features"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// stepTimeout bounds a step that should pass or fail, not error: it only
// ends a wait for status that does not come, so it is generous for a
// loaded 2-core machine (a step's verdict comes as soon as status agrees,
// or disagrees for Settle).
const stepTimeout = time.Minute

// startLocal starts a local control plane with the CRDs gepcheck-reference
// needs, or skips when its tools are not built (make tools; make ci builds
// them and runs these tests).
func startLocal(t *testing.T) *cluster.Cluster {
	t.Helper()
	return localtest.Start(t, CRDs(), gotool.KubeControllerManager)
}

// startReference runs gepcheck-reference in this process until the test
// (or stop) ends it.
func startReference(t *testing.T, c *cluster.Cluster, mutant engine.Mutant) (ctl *Controller, stop func()) {
	var simulate func(m *simulator.Model, sem engine.Semantics) *simulator.Output
	if mutant != "" {
		simulate = func(m *simulator.Model, sem engine.Semantics) *simulator.Output { return m.RunMutant(sem, mutant) }
	}
	return startSimulating(t, c, simulate)
}

// keepsRejections is a broken engine that is right about every state it
// starts from but keeps a rejection once made: a policy once Conflicted
// stays so.
func keepsRejections() func(*simulator.Model, engine.Semantics) *simulator.Output {
	var mu sync.Mutex
	rejected := map[string]engine.Condition{}
	return func(m *simulator.Model, sem engine.Semantics) *simulator.Output {
		mu.Lock()
		defer mu.Unlock()
		out := m.Run(sem, nil)
		for i, p := range out.Policies {
			c, ok := engine.FindCondition(p.Conditions, engine.TypeAccepted)
			if ok && c.Reason == engine.ReasonConflicted {
				rejected[p.Ref] = c
				continue
			}
			if was, ok := rejected[p.Ref]; ok {
				out.Policies[i].Conditions = []engine.Condition{was}
				for j := range p.Targets {
					out.Policies[i].Targets[j].Conditions = []engine.Condition{was}
				}
			}
		}
		return out
	}
}

// startSimulating starts gepcheck-reference computing with simulate (the
// reference engine when nil).
func startSimulating(t *testing.T, c *cluster.Cluster, simulate func(*simulator.Model, engine.Semantics) *simulator.Output) (ctl *Controller, stop func()) {
	return startController(t, &Controller{Config: c.Config, Simulate: simulate})
}

// startController runs ctl in this process until the test (or stop) ends
// it.
func startController(t *testing.T, ctl *Controller) (*Controller, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := ctl.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return ctl, stop
}

// apiList lists through the API server.
func apiList(k *cluster.Kube) lister {
	return func(ctx context.Context, gvk schema.GroupVersionKind) ([]unstructured.Unstructured, error) {
		return k.List(ctx, gvk, "", "")
	}
}

// apiProbe is settled's probe in the API server, deleted when the test
// ends.
func apiProbe(t *testing.T, k *cluster.Kube) func(context.Context) error {
	cms, err := k.Resource(gvkConfigMap, "default")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cms.Delete(context.Background(), "gepcheck-fanout-probe", metav1.DeleteOptions{}) })
	return probeConfigMap(k.Get, func(ctx context.Context, u *unstructured.Unstructured) error {
		_, err := cms.Create(ctx, u, metav1.CreateOptions{})
		return err
	}, func(ctx context.Context, u *unstructured.Unstructured) error {
		_, err := cms.Update(ctx, u, metav1.UpdateOptions{})
		return err
	})
}

func plan(t *testing.T, file, run string, i int, im incluster.Implementation) *incluster.Plan {
	t.Helper()
	p, err := incluster.NewPlan(file, incluster.TargetFor(im, run, i))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func runOne(t *testing.T, r *incluster.Runner, p *incluster.Plan, i int) incluster.Result {
	t.Helper()
	ctx := context.Background()
	a := &incluster.Applied{Plan: p, Case: p}
	if p.Skip == "" {
		a = r.Apply(ctx, p, 0)
	}
	res := r.Verify(ctx, a)
	if err := r.Delete(ctx, p, i); err != nil {
		t.Error(err)
	}
	return res
}

// The catalogue in a real API server, against gepcheck-reference: every
// applicable scenario passes, a broken controller is caught, a missing
// controller or CRD is a per-scenario error, the controller does not
// write what has not changed, and nothing labelled is left behind.
func TestLocalReference(t *testing.T) {
	c := startLocal(t)
	k, err := cluster.NewKube(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	files, _ := filepath.Glob("../../scenarios/*/*.yaml")
	// Envoy Gateway's catalogue needs its plug-in's profiles (cluster-test
	// runs it against Envoy Gateway); admission scenarios are not policy
	// scenarios (admission/check sends them to kube-apiserver).
	files = slices.DeleteFunc(files, func(f string) bool {
		return strings.Contains(f, "/envoy-gateway/") || strings.Contains(f, "/admission/")
	})

	t.Run("catalogue", func(t *testing.T) {
		ctl, stop := startReference(t, c, "")
		defer stop()
		r := &incluster.Runner{Kube: k, Impl: InCluster{}, Run: "cat", Opts: incluster.Options{StepTimeout: stepTimeout}}
		var ran []incluster.Ran
		for i, f := range files {
			res := runOne(t, r, plan(t, f, "cat", i, InCluster{}), i)
			if res.Outcome == incluster.Fail || res.Outcome == incluster.Error {
				t.Errorf("%s: %s\n  %s", f, res.Outcome, strings.Join(append([]string{res.Reason}, compare.Strings(res.Diff)...), "\n  "))
			}
			ran = append(ran, incluster.Ran{File: f, Outcome: res.Outcome, Reason: res.Reason})
		}
		// Every file the catalogue applies to gepcheck-reference passes;
		// each skip has a reason incluster.SkipReasons names.
		skipped := localtest.ExpectCatalogue(t, files, ran, incluster.TargetFor(InCluster{}, "cat", 0))
		t.Logf("%d of %d scenarios passed, %d skipped; the controller made %d writes", len(files)-skipped, len(files), skipped, ctl.Writes())
	})

	// The MUST checks of Gateway API's API reference (incluster.Musts):
	// gepcheck-reference keeps another writer's conditions in its own
	// entry and the other controller's entry, in order, after it writes
	// for a new generation, and has at most 16 entries; a broken status
	// writer that replaces its entry's conditions instead of merging them
	// is caught (foreign-conditions-own-entry), and only it.
	for _, tc := range []struct {
		name    string
		replace bool
		want    map[string]incluster.Outcome
	}{
		{"musts", false, map[string]incluster.Outcome{"foreign-conditions-own-entry": incluster.Pass, "foreign-conditions-others-entry": incluster.Pass, "ancestors-limit": incluster.Pass,
			// Entries per ancestor Gateway: 16 of them, the 17th Gateway
			// signalled; ResolvedRefs=False on a policy rejected whole.
			"ancestors-full-signalled": incluster.Pass, "resolvedrefs-invalid-ca-ref": incluster.Pass, "resolvedrefs-invalid-kind": incluster.Pass}},
		{"musts-mutant", true, map[string]incluster.Outcome{"foreign-conditions-own-entry": incluster.Fail, "foreign-conditions-others-entry": incluster.Pass, "ancestors-limit": incluster.Pass}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stop := startController(t, &Controller{Config: c.Config, replaceConditions: tc.replace})
			defer stop()
			r := &incluster.Runner{Kube: k, Impl: InCluster{}, Run: tc.name, Opts: incluster.Options{StepTimeout: stepTimeout}}
			for _, m := range r.Musts(ctx, 0) {
				if want, ok := tc.want[m.Name]; ok && m.Outcome != want {
					t.Errorf("%s: %s, want %s: %s", m.Name, m.Outcome, want, m.Detail)
				}
				t.Log(incluster.MustsLine(m))
			}
		})
	}

	// A status with a 17th ancestor entry is refused by the API server
	// (PolicyStatus.Ancestors, MaxItems=16), and the runner counts the
	// refusal (ancestors-limit: a write of a 17th entry leaves nothing
	// stored).
	t.Run("refused-writes", func(t *testing.T) {
		r := &incluster.Runner{Kube: k, Impl: InCluster{}, Run: "refused"}
		before, err := r.RefusedWrites(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pol := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "BackendTLSPolicy",
			"metadata": map[string]any{"name": "seventeen", "namespace": "default"},
			"spec": map[string]any{"targetRefs": []any{map[string]any{"group": "", "kind": "Service", "name": "svc"}},
				"validation": map[string]any{"hostname": "svc.example.com", "wellKnownCACertificates": "System"}}}}
		res, err := k.Resource(pol.GroupVersionKind(), "default")
		if err != nil {
			t.Fatal(err)
		}
		got, err := res.Create(ctx, pol, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = res.Delete(context.Background(), "seventeen", metav1.DeleteOptions{}) }()
		var as []any
		for i := range 17 {
			as = append(as, map[string]any{"ancestorRef": map[string]any{"name": fmt.Sprintf("gw-%d", i)}, "controllerName": ControllerName,
				"conditions": []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted", "message": "m", "lastTransitionTime": "2026-01-01T00:00:00Z"}}})
		}
		_ = unstructured.SetNestedSlice(got.Object, as, "status", "ancestors")
		if _, err := res.UpdateStatus(ctx, got, metav1.UpdateOptions{}); err == nil {
			t.Fatal("the API server stored 17 ancestor entries")
		}
		after, err := r.RefusedWrites(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if after != before+1 {
			t.Errorf("refused status writes: %v before, %v after one refused", before, after)
		}
	})

	t.Run("fanout", func(t *testing.T) {
		// Other scenarios' namespaces going away are changes too.
		if err := cluster.DeleteLabelled(ctx, c, cluster.LabelManagedBy+"="+cluster.ManagedBy, true); err != nil {
			t.Fatal(err)
		}
		ctl, stop := startReference(t, c, "")
		defer stop()
		r := &incluster.Runner{Kube: k, Impl: InCluster{}, Run: "fan", Opts: incluster.Options{StepTimeout: stepTimeout}}
		p := plan(t, "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml", "fan", 0, InCluster{})
		defer func() {
			if err := r.Delete(ctx, p, 0); err != nil {
				t.Error(err)
			}
		}()
		a := r.Apply(ctx, p, 0)
		if res := r.Verify(ctx, a); res.Outcome != incluster.Pass {
			t.Fatalf("%s: %v", res.Outcome, res.Diff)
		}
		if err := settled(ctx, ctl, apiList(k), apiProbe(t, k), 2*time.Minute); err != nil {
			t.Errorf("nothing changed, yet the controller writes: %v (%d writes in all)", err, ctl.Writes())
		}
	})

	// A controller that rewrites its EffectivePolicies on every reconcile
	// fails that check.
	t.Run("fanout-mutant", func(t *testing.T) {
		ctl, stop := startSimulating(t, c, rewritesEffective())
		defer stop()
		r := &incluster.Runner{Kube: k, Impl: InCluster{}, Run: "fam", Opts: incluster.Options{StepTimeout: stepTimeout}}
		p := plan(t, "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml", "fam", 0, InCluster{})
		defer func() {
			if err := r.Delete(ctx, p, 0); err != nil {
				t.Error(err)
			}
		}()
		if res := r.Verify(ctx, r.Apply(ctx, p, 0)); res.Outcome != incluster.Pass {
			t.Fatalf("%s: %v", res.Outcome, res.Diff)
		}
		err := settled(ctx, ctl, apiList(k), apiProbe(t, k), 2*time.Minute)
		if err == nil || !strings.Contains(err.Error(), "wrote") {
			t.Errorf("a controller that rewrites its EffectivePolicies: %v, want a write after the probe", err)
		}
	})

	// gepcheck-reference writes either status vocabulary (GEP-713 as
	// merged upstream, "Status reporting", or its draft's Policy status):
	// configured with one and claiming it, it passes GEP-713 Example 2,
	// every model computed in it; one that writes the other vocabulary
	// than it claims fails.
	t.Run("vocabularies", func(t *testing.T) {
		const file = "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml"
		for i, tc := range []struct {
			v      engine.Vocabulary
			broken bool
		}{{engine.VocabularyMerged, false}, {engine.VocabularyDraft, false}, {engine.VocabularyMerged, true}} {
			var mu sync.Mutex
			var seen []engine.Vocabulary
			simulate := func(m *simulator.Model, sem engine.Semantics) *simulator.Output {
				mu.Lock()
				seen = append(seen, m.Vocabulary)
				mu.Unlock()
				return m.Run(sem, nil)
			}
			if tc.broken {
				simulate = otherVocabulary(simulate)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			ctl := &Controller{Config: c.Config, Vocabulary: tc.v, Simulate: simulate}
			go func() {
				defer close(done)
				if err := ctl.Run(ctx); err != nil {
					t.Error(err)
				}
			}()
			im := InCluster{Vocabulary: tc.v}
			r := &incluster.Runner{Kube: k, Impl: im, Run: "voc", Opts: incluster.Options{StepTimeout: stepTimeout, Settle: 2 * time.Second}}
			res := runOne(t, r, plan(t, file, "voc", i, im), i)
			cancel()
			<-done
			second := 0
			for _, d := range res.Diff {
				if d.Condition == "Programmed" || d.Condition == "Enforced" {
					second++
				}
			}
			switch {
			case !tc.broken && res.Outcome != incluster.Pass:
				t.Errorf("%s: %s %v", tc.v, res.Outcome, compare.Strings(res.Diff))
			case tc.broken && (res.Outcome != incluster.Fail || second == 0):
				t.Errorf("claiming %s, writing the other vocabulary: %s %v, want a failure on Programmed or Enforced", tc.v, res.Outcome, compare.Strings(res.Diff))
			}
			mu.Lock()
			for _, got := range seen {
				if got != tc.v {
					t.Errorf("configured with %s, a model was computed in %q", tc.v, got)
				}
			}
			if len(seen) == 0 {
				t.Errorf("%s: the controller computed nothing", tc.v)
			}
			mu.Unlock()
		}
	})

	// A deliberately broken controller fails the scenarios whose outcome
	// the mutation changes (GEP-713, Conflict resolution rule 2).
	t.Run("mutant", func(t *testing.T) {
		_, stop := startReference(t, c, engine.MutantNewerWins)
		defer stop()
		r := &incluster.Runner{Kube: k, Impl: InCluster{}, Run: "mut", Opts: incluster.Options{StepTimeout: stepTimeout, Settle: 2 * time.Second}}
		for i, f := range []string{"../../scenarios/gep-713/example-1-direct.yaml", "../../scenarios/gep-713/conflict-resolution-rules.yaml"} {
			res := runOne(t, r, plan(t, f, "mut", i, InCluster{}), i)
			if res.Outcome != incluster.Fail || len(res.Diff) == 0 {
				t.Errorf("%s against mutant %s: %s %v, want a failure", f, engine.MutantNewerWins, res.Outcome, res.Diff)
			}
		}
	})

	// A broken controller that writes a BackendTLSPolicy's status per
	// target (per targetRef when it is rejected whole), as this one once
	// did, instead of per ancestor Gateway (Gateway API v1,
	// PolicyAncestorStatus; upstream's conformance tests check conditions
	// per ancestor Gateway) fails upstream's conformance scenarios: the
	// expectation holds the engine's entry per Gateway, and every entry is
	// compared, those of a policy rejected whole too.
	t.Run("ancestors-mutant", func(t *testing.T) {
		_, stop := startController(t, &Controller{Config: c.Config, perTargetAncestors: true})
		defer stop()
		r := &incluster.Runner{Kube: k, Impl: InCluster{}, Run: "anc", Opts: incluster.Options{StepTimeout: stepTimeout, Settle: 2 * time.Second}}
		for i, f := range []string{"../../scenarios/gateway-api/backendtlspolicy-conformance-backendtlspolicy.yaml", "../../scenarios/gateway-api/backendtlspolicy-conformance-invalid-ca-certificate-ref.yaml"} {
			res := runOne(t, r, plan(t, f, "anc", i, InCluster{}), i)
			if res.Outcome != incluster.Fail || len(res.Diff) == 0 {
				t.Errorf("%s against the per-target writer: %s %v, want a failure", f, res.Outcome, res.Diff)
			}
			t.Logf("%s against the per-target writer: %s\n  %s", f, res.Outcome, strings.Join(compare.Strings(res.Diff), "\n  "))
		}
	})

	// A controller that is right about every state it starts from but
	// keeps a rejection once made (a policy once Conflicted stays so after
	// the established policy is gone) passes every scenario without steps
	// and fails the one that removes the established policy: steps judge
	// behaviour over time (GEP-713, Merge strategy: None).
	t.Run("stateful-mutant", func(t *testing.T) {
		_, stop := startSimulating(t, c, keepsRejections())
		defer stop()
		r := &incluster.Runner{Kube: k, Impl: InCluster{}, Run: "sta", Opts: incluster.Options{StepTimeout: stepTimeout, Settle: 2 * time.Second}}
		f := "../../scenarios/gep-713/steps-direct-conflict-over-time.yaml"
		res := runOne(t, r, plan(t, f, "sta", 0, InCluster{}), 0)
		if res.Outcome != incluster.Fail || res.Label() != "step 3 (delete-established)" {
			t.Errorf("%s against a controller that keeps rejections: %s at %q %v, want a failure at step 3 (delete-established)", f, res.Outcome, res.Label(), res.Diff)
		}
		p := plan(t, "../../scenarios/gep-713/example-1-direct.yaml", "sta", 1, InCluster{})
		if res := runOne(t, r, p, 1); res.Outcome != incluster.Pass {
			t.Errorf("example-1-direct against a controller that keeps rejections: %s %v, want a pass (no step removes the rejection)", res.Outcome, res.Diff)
		}
	})

	// Policies over a limit get a condition naming it in a real API server
	// too, and the controller goes on computing the rest (TestLimits).
	t.Run("limits", func(t *testing.T) {
		_, stop := startReference(t, c, "")
		defer stop()
		objs := scenario(t, "testdata/limits.yaml", "limits")
		var class *unstructured.Unstructured
		defer func() {
			for _, o := range []*unstructured.Unstructured{class, objs[0]} {
				if o == nil {
					continue
				}
				if r, err := k.Resource(o.GroupVersionKind(), ""); err == nil {
					_ = r.Delete(ctx, o.GetName(), metav1.DeleteOptions{})
				}
			}
		}()
		for _, o := range objs {
			switch {
			case o.GetKind() == "Namespace":
				o.SetLabels(map[string]string{cluster.LabelManagedBy: cluster.ManagedBy})
			case o.GetKind() == "GatewayClass":
				o.SetName("gepcheck-limits")
				class = o
			case o.GetKind() == "Gateway":
				_ = unstructured.SetNestedField(o.Object, "gepcheck-limits", "spec", "gatewayClassName")
			}
			if o.GetNamespace() != "" {
				o.SetNamespace("limits")
			}
			o.SetUID("")
			o.SetGeneration(0)
			r, err := k.Resource(o.GroupVersionKind(), o.GetNamespace())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Create(ctx, o, metav1.CreateOptions{}); err != nil {
				t.Fatalf("%s: %v", refOf(o), err)
			}
		}
		want := map[string]cond{
			"RateLimitPolicy/limits/gw-policy":    {"Accepted", "False", "Invalid", "--max-cel-cost"},
			"RateLimitPolicy/limits/deep-policy":  {"Accepted", "False", "Invalid", "--max-depth"},
			"RateLimitPolicy/limits/route-policy": {"Accepted", "True", "Accepted", ""},
		}
		var p problems
		// Polled until right: the budget only bounds a controller that
		// never gets there, generous for a loaded 2-core machine.
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
			p = nil
			for ref, w := range want {
				u := &unstructured.Unstructured{}
				u.SetGroupVersionKind(gvkOf("RateLimitPolicy"))
				u.SetNamespace("limits")
				u.SetName(strings.Split(ref, "/")[2])
				o, err := k.Get(ctx, u)
				if err != nil {
					t.Fatal(err)
				}
				got, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
				checkConditions(&p, ref, got, o.GetGeneration(), w)
			}
			if len(p) == 0 || time.Now().After(deadline) {
				break
			}
		}
		p.report(t)
	})

	// A random case that fails against a broken controller is shrunk in
	// the cluster: smaller, and still failing with the kind of difference
	// it was shrunk for (issue 14, shrinking in a cluster).
	t.Run("shrink", func(t *testing.T) {
		_, stop := startReference(t, c, engine.MutantNewerWins)
		defer stop()
		// The smallest drawn case (of a few objects at least) the
		// mutation changes (offline check).
		var s *generators.Scenario
		for seed := 1; seed < 100; seed++ {
			cand, err := generators.Draw(generators.PrintOptions{Seed: seed, Profile: "color-inherited"})
			if err != nil {
				t.Fatal(err)
			}
			m, err := simulator.LoadFiles([]string{"-"}, bytes.NewReader(cand.YAML()), simulator.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want, got := observe.FromOutput("", m.Run(engine.StickyOverrides, nil)), observe.FromOutput("", m.RunMutant(engine.StickyOverrides, engine.MutantNewerWins))
			n := generators.Size(cand)
			if len(compare.Diff(want, got, observe.Capabilities{})) > 0 && n >= 8 && (s == nil || n < generators.Size(s)) {
				s = cand
			}
		}
		if s == nil {
			t.Fatal("no drawn case shows the mutation")
		}
		dir := t.TempDir()
		file := filepath.Join(dir, "case.yaml")
		if err := os.WriteFile(file, s.YAML(), 0o644); err != nil {
			t.Fatal(err)
		}
		r := &incluster.Runner{Kube: k, Impl: InCluster{}, Run: "shr", Opts: incluster.Options{StepTimeout: stepTimeout, Settle: 2 * time.Second}}
		first := runOne(t, r, plan(t, file, "shr", 0, InCluster{}), 0)
		if first.Outcome != incluster.Fail {
			t.Fatalf("the drawn case %s against the mutant, want a failure", first.Outcome)
		}
		kind := compare.Kinds(first.Diff)[0]
		// Two rounds, not a time: the verdict does not depend on the
		// machine's speed.
		sh := r.Shrink(ctx, s, first, compare.Found{Kind: kind}, dir, 4, incluster.Budget{Rounds: 2})
		if sh.Result.Outcome != incluster.Fail || !slices.Contains(compare.Kinds(sh.Result.Diff), kind) {
			t.Errorf("shrunk case: %s %v, want a failure of kind %s", sh.Result.Outcome, sh.Result.Diff, kind)
		}
		if generators.Size(sh.Scenario) >= generators.Size(s) {
			t.Errorf("size %d → %d, want smaller (%s)", generators.Size(s), generators.Size(sh.Scenario), sh.Stopped)
		}
		t.Logf("size %d → %d in %d rounds, %d candidates; %s", generators.Size(s), generators.Size(sh.Scenario), sh.Rounds, sh.Tried, sh.Stopped)
	})

	// A case with steps that fails against that broken controller at a
	// step is shrunk to the fewest steps that still fail there (the steps
	// after it go, and of those before it only the one that made the
	// rejection stays), then to the fewest objects.
	t.Run("shrink-steps", func(t *testing.T) {
		_, stop := startSimulating(t, c, keepsRejections())
		defer stop()
		r := &incluster.Runner{Kube: k, Impl: InCluster{}, Run: "shs", Opts: incluster.Options{StepTimeout: stepTimeout, Settle: 2 * time.Second}}
		f := "../../scenarios/gep-713/steps-direct-conflict-over-time.yaml"
		first := runOne(t, r, plan(t, f, "shs", 0, InCluster{}), 0)
		if first.Outcome != incluster.Fail {
			t.Fatalf("%s against a controller that keeps rejections: %s, want a failure", f, first.Outcome)
		}
		kind := compare.Kinds(first.Diff)[0]
		// Bounded by rounds only, it runs until nothing smaller keeps the
		// difference (each round removes a step or an object; 30 is
		// never reached): the result does not depend on the machine's
		// speed.
		sh := r.Shrink(ctx, nil, first, compare.Found{Kind: kind, AfterStep: true}, t.TempDir(), 4, incluster.Budget{Rounds: 30})
		if sh.Stopped != "no smaller case keeps the difference" {
			t.Errorf("stopped: %s, want no smaller case keeps the difference", sh.Stopped)
		}
		if sh.Result.Outcome != incluster.Fail || sh.StepsFrom != 6 || sh.Steps != 2 {
			t.Errorf("steps %d → %d (%s; %s at %q), want 6 → 2 (add-challenger, delete-established)", sh.StepsFrom, sh.Steps, sh.Stopped, sh.Result.Outcome, sh.Result.Label())
		}
		// Then fewest objects: only Service b1 and p1 matter.
		if sh.Objects != 2 {
			t.Errorf("objects %d → %d (%s), want 2 (Service b1, ColorPolicy p1)", sh.ObjectsFrom, sh.Objects, sh.Stopped)
		}
		// The case it holds is the one it last wrote (gepcheck run writes
		// the finding from it, not from the file read back).
		if data, err := os.ReadFile(sh.File); err != nil || string(sh.Case.YAML()) != string(data) || len(sh.Case.Steps) != sh.Steps {
			t.Errorf("shrunk case (%d steps) is not the one written to %s (%v):\n%s", len(sh.Case.Steps), sh.File, err, sh.Case.YAML())
		}
		t.Logf("steps %d → %d, objects %d → %d in %d rounds, %d candidates; %s", sh.StepsFrom, sh.Steps, sh.ObjectsFrom, sh.Objects, sh.Rounds, sh.Tried, sh.Stopped)
	})

	t.Run("no-controller", func(t *testing.T) {
		r := &incluster.Runner{Kube: k, Impl: InCluster{}, Run: "none", Opts: incluster.Options{StepTimeout: 3 * time.Second}}
		res := runOne(t, r, plan(t, "../../scenarios/gep-713/example-1-direct.yaml", "none", 0, InCluster{}), 0)
		if res.Outcome != incluster.Error || !strings.Contains(res.Reason, "no status for the current generation from gepcheck-reference on ColorPolicy/default/p1") {
			t.Errorf("got %s %v, want an error naming the policies without status", res.Outcome, res.Diff)
		}
	})

	t.Run("missing-crd", func(t *testing.T) {
		im := everything{InCluster{}}
		r := &incluster.Runner{Kube: k, Impl: im, Run: "crd", Opts: incluster.Options{StepTimeout: 3 * time.Second}}
		file := filepath.Join(t.TempDir(), "uninstalled.yaml")
		if err := os.WriteFile(file, []byte(uninstalledScenario), 0o644); err != nil {
			t.Fatal(err)
		}
		res := runOne(t, r, plan(t, file, "crd", 0, im), 0)
		if res.Outcome != incluster.Error || !strings.Contains(res.Reason, "UninstalledPolicy is not served by the cluster") {
			t.Errorf("got %s %v, want an error naming the kind without CRD", res.Outcome, res.Diff)
		}
	})

	left, err := k.List(ctx, schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, "", cluster.LabelManagedBy+"="+cluster.ManagedBy)
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range left {
		if ns.GetDeletionTimestamp() == nil {
			t.Errorf("namespace %s left behind, not even terminating", ns.GetName())
		}
	}
	if err := cluster.DeleteLabelled(ctx, c, cluster.LabelManagedBy+"="+cluster.ManagedBy, true); err != nil {
		t.Errorf("namespaces not gone: %v", err)
	}
}

// A built-in profile of a kind no CRD defines, for the missing-crd case.
func init() {
	profile.Register("test-uninstalled", []byte(`apiVersion: gepcheck.dev/v1alpha1
kind: PolicyProfile
metadata: {name: test-uninstalled}
spec:
  description: A policy kind whose CRD no cluster of these tests installs.
  citation: "GEP-713, Merge strategy: None"
  policy: {group: test.gepcheck.dev, kind: UninstalledPolicy}
  targets: [{group: "", kind: Service}]
  effectiveTargets: [{group: "", kind: Service}]
  mergeStrategies: [None]
`))
}

const uninstalledScenario = `apiVersion: v1
kind: Service
metadata: {name: b1, namespace: default}
spec: {ports: [{port: 80}]}
---
apiVersion: test.gepcheck.dev/v1
kind: UninstalledPolicy
metadata: {name: p1, namespace: default}
spec:
  targetRefs: [{group: "", kind: Service, name: b1}]
`

// everything is an implementation that claims every feature.
type everything struct{ InCluster }

func (everything) Capabilities() incluster.Capabilities {
	return incluster.Capabilities{Capabilities: observe.Capabilities{Features: features.All}, Effective: true}
}

// An API server that goes away is an error of each scenario, with the
// reason, and the run goes on.
func TestLocalAPIServerGone(t *testing.T) {
	c := startLocal(t)
	k, err := cluster.NewKube(c)
	if err != nil {
		t.Fatal(err)
	}
	r := &incluster.Runner{Kube: k, Impl: InCluster{}, Run: "gone", Opts: incluster.Options{StepTimeout: 5 * time.Second}}
	p0 := plan(t, "../../scenarios/gep-713/example-1-direct.yaml", "gone", 0, InCluster{})
	p1 := plan(t, "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml", "gone", 1, InCluster{})
	// Discover the kinds while the server is there, then stop it.
	if _, err := k.Resource(p0.PolicyObjects()[0].GroupVersionKind(), "default"); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*incluster.Plan{p0, p1} {
		res := r.Verify(context.Background(), r.Apply(context.Background(), p, 0))
		if res.Outcome != incluster.Error || !strings.Contains(res.Reason, "connection refused") {
			t.Errorf("%s: %s %v, want an error saying the API server refused", p.Name, res.Outcome, res.Diff)
		}
	}
}
