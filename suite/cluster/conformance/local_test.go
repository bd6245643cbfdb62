package conformance

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/cluster"
	"github.com/gepcheck/gepcheck/suite/cluster/local"
	"github.com/gepcheck/gepcheck/suite/cluster/reference"
	"github.com/gepcheck/gepcheck/suite/cluster/tools"
)

// startLocal starts a local control plane with the CRDs gepcheck-reference
// needs, or skips when its tools are not built (make tools; make ci builds
// them and runs these tests).
func startLocal(t *testing.T) *cluster.Cluster {
	t.Helper()
	for _, tool := range []tools.Tool{tools.Etcd, tools.KubeAPIServer, tools.KubeControllerManager} {
		p, _ := tool.Path()
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s is not built (make tools)", tool.Name)
		}
	}
	ctx := context.Background()
	c, err := local.Start(ctx, local.Options{Log: func(s string) { t.Log(s) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	gw, err := cluster.GatewayAPICRDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := cluster.ReferenceCRDs()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.InstallCRDs(ctx, append(gw, ref...)); err != nil {
		t.Fatal(err)
	}
	return c
}

// startReference runs gepcheck-reference in this process until the test
// (or stop) ends it.
func startReference(t *testing.T, c *cluster.Cluster, mutant engine.Mutant) (ctl *reference.Controller, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	ctl = &reference.Controller{Config: c.Config}
	if mutant != "" {
		ctl.Simulate = func(m *simulator.Model, sem engine.Semantics) *simulator.Output { return m.RunMutant(sem, mutant) }
	}
	go func() {
		defer close(done)
		if err := ctl.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return ctl, stop
}

func plan(t *testing.T, file, run string, i int, im Implementation) *Plan {
	t.Helper()
	p, err := NewPlan(file, TargetFor(im, run, i))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func runOne(t *testing.T, r *Runner, p *Plan, i int) Result {
	t.Helper()
	ctx := context.Background()
	a := &Applied{Plan: p}
	if p.Skip == "" {
		a = r.Apply(ctx, p)
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
	k, err := NewKube(c)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	files, _ := filepath.Glob("../../../scenarios/*/*.yaml")

	t.Run("catalogue", func(t *testing.T) {
		ctl, stop := startReference(t, c, "")
		defer stop()
		r := &Runner{Kube: k, Impl: Reference{}, Run: "cat", Opts: Options{StepTimeout: 30 * time.Second}}
		passed := 0
		for i, f := range files {
			res := runOne(t, r, plan(t, f, "cat", i, Reference{}), i)
			switch res.Outcome {
			case Pass:
				passed++
			case Fail, Error:
				t.Errorf("%s: %s\n  %s", f, res.Outcome, strings.Join(res.Diff, "\n  "))
			}
		}
		// GEP-713, GEP-2649 and Kuadrant scenarios on built-in profiles.
		if passed < 25 {
			t.Errorf("%d scenarios passed, want at least 25", passed)
		}
		t.Logf("%d of %d scenarios passed; the controller made %d writes", passed, len(files), ctl.Writes())
	})

	t.Run("fanout", func(t *testing.T) {
		// Other scenarios' namespaces going away are changes too.
		if err := cluster.DeleteLabelled(ctx, c, cluster.LabelManagedBy+"="+cluster.ManagedBy, true); err != nil {
			t.Fatal(err)
		}
		ctl, stop := startReference(t, c, "")
		defer stop()
		r := &Runner{Kube: k, Impl: Reference{}, Run: "fan", Opts: Options{StepTimeout: 30 * time.Second}}
		p := plan(t, "../../../scenarios/gep-713/example-2-defaults-and-overrides.yaml", "fan", 0, Reference{})
		defer func() {
			if err := r.Delete(ctx, p, 0); err != nil {
				t.Error(err)
			}
		}()
		a := r.Apply(ctx, p)
		if res := r.Verify(ctx, a); res.Outcome != Pass {
			t.Fatalf("%s: %v", res.Outcome, res.Diff)
		}
		time.Sleep(time.Second)
		before := ctl.Writes()
		time.Sleep(3 * time.Second)
		if after := ctl.Writes(); after != before {
			t.Errorf("nothing changed, yet the controller wrote %d times", after-before)
		}
	})

	// A deliberately broken controller fails the scenarios whose outcome
	// the mutation changes (GEP-713, Conflict resolution rule 2).
	t.Run("mutant", func(t *testing.T) {
		_, stop := startReference(t, c, engine.MutantNewerWins)
		defer stop()
		r := &Runner{Kube: k, Impl: Reference{}, Run: "mut", Opts: Options{StepTimeout: 20 * time.Second, Settle: 2 * time.Second}}
		for i, f := range []string{"../../../scenarios/gep-713/example-1-direct.yaml", "../../../scenarios/gep-713/conflict-resolution-rules.yaml"} {
			res := runOne(t, r, plan(t, f, "mut", i, Reference{}), i)
			if res.Outcome != Fail || len(res.Diff) == 0 {
				t.Errorf("%s against mutant %s: %s %v, want a failure", f, engine.MutantNewerWins, res.Outcome, res.Diff)
			}
		}
	})

	t.Run("no-controller", func(t *testing.T) {
		r := &Runner{Kube: k, Impl: Reference{}, Run: "none", Opts: Options{StepTimeout: 3 * time.Second}}
		res := runOne(t, r, plan(t, "../../../scenarios/gep-713/example-1-direct.yaml", "none", 0, Reference{}), 0)
		if res.Outcome != Error || !strings.Contains(strings.Join(res.Diff, " "), "no status for the current generation from gepcheck-reference on ColorPolicy/default/p1") {
			t.Errorf("got %s %v, want an error naming the policies without status", res.Outcome, res.Diff)
		}
	})

	t.Run("missing-crd", func(t *testing.T) {
		im := everything{Reference{}}
		r := &Runner{Kube: k, Impl: im, Run: "crd", Opts: Options{StepTimeout: 3 * time.Second}}
		res := runOne(t, r, plan(t, "../../../scenarios/findings/envoy-gateway/envoy-gateway-backendtrafficpolicy-conflicted.yaml", "crd", 0, im), 0)
		if res.Outcome != Error || !strings.Contains(strings.Join(res.Diff, " "), "BackendTrafficPolicy is not served by the cluster") {
			t.Errorf("got %s %v, want an error naming the kind without CRD", res.Outcome, res.Diff)
		}
	})

	left, err := k.List(ctx, namespaceGVK, "", cluster.LabelManagedBy+"="+cluster.ManagedBy)
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

// everything is an implementation that claims every feature.
type everything struct{ Reference }

func (everything) Supports(string) bool { return true }

// An API server that goes away is an error of each scenario, with the
// reason, and the run goes on.
func TestLocalAPIServerGone(t *testing.T) {
	c := startLocal(t)
	k, err := NewKube(c)
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Kube: k, Impl: Reference{}, Run: "gone", Opts: Options{StepTimeout: 5 * time.Second}}
	p0 := plan(t, "../../../scenarios/gep-713/example-1-direct.yaml", "gone", 0, Reference{})
	p1 := plan(t, "../../../scenarios/gep-713/example-2-defaults-and-overrides.yaml", "gone", 1, Reference{})
	// Discover the kinds while the server is there, then stop it.
	if _, err := k.Resource(p0.Groups[2][0].GroupVersionKind(), "default"); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*Plan{p0, p1} {
		res := r.Verify(context.Background(), r.Apply(context.Background(), p))
		if res.Outcome != Error || !strings.Contains(strings.Join(res.Diff, " "), "connection refused") {
			t.Errorf("%s: %s %v, want an error saying the API server refused", p.Name, res.Outcome, res.Diff)
		}
	}
}
