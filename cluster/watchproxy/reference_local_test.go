package watchproxy_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/cluster/local/localtest"
	"github.com/gepcheck/gepcheck/cluster/watchproxy"
	"github.com/gepcheck/gepcheck/impl/reference"
	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/incluster"
)

// TestPerturbedReferenceThroughProxy: gepcheck-reference, its watch events
// held by a schedule of up to 800ms a stream, still writes the status of
// a scenario that changes over time (a Direct policy meets a challenger,
// loses its target and gets it back), every status write going through
// the proxy.
func TestPerturbedReferenceThroughProxy(t *testing.T) {
	c := localtest.Start(t, reference.CRDs(), gotool.KubeControllerManager)
	p, err := watchproxy.Start(c, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	p.Delay(33, 800*time.Millisecond)
	defer p.Release()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := (&reference.Controller{Config: p.Cluster().Config}).Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	defer func() { cancel(); <-done }()

	k, err := cluster.NewKube(c)
	if err != nil {
		t.Fatal(err)
	}
	const file = "../../scenarios/gep-713/steps-direct-conflict-over-time.yaml"
	plan, err := incluster.NewPlan(file, incluster.TargetFor(reference.InCluster{}, "delay", 0))
	if err != nil {
		t.Fatal(err)
	}
	r := &incluster.Runner{Kube: k, Impl: reference.InCluster{}, Run: "delay", Opts: incluster.Options{StepTimeout: time.Minute}}
	res := r.Verify(ctx, r.Apply(ctx, plan, 0))
	if res.Outcome != incluster.Pass {
		t.Errorf("%s: %s\n  %s", file, res.Outcome, strings.Join(append([]string{res.Reason}, compare.Strings(res.Diff)...), "\n  "))
	}
	if err := r.Delete(context.Background(), plan, 0); err != nil {
		t.Error(err)
	}
	if p.Writes() == 0 {
		t.Error("no status write went through the proxy")
	}
	t.Logf("%s: %s, %d status writes through the proxy", file, res.Outcome, p.Writes())
}
