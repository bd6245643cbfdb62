package incluster_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/cluster/local/localtest"
	"github.com/gepcheck/gepcheck/impl/reference"
	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator/fault"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/incluster"
)

// controllerEnv makes this test binary run gepcheck-reference's controller
// against the kubeconfig it names, as `gepcheck controller reference`
// does: a process of its own, which the restart fault kills.
const controllerEnv = "GEPCHECK_INCLUSTER_TEST_CONTROLLER"

func TestMain(m *testing.M) {
	if kc := os.Getenv(controllerEnv); kc != "" {
		os.Exit(runController(kc))
	}
	os.Exit(m.Run())
}

func runController(kubeconfig string) int {
	c, err := cluster.FromKubeconfig(kubeconfig, "")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := (&reference.Controller{Config: c.Config, Log: func(s string) { fmt.Fprintln(os.Stderr, s) }}).Run(ctx); err != nil && ctx.Err() == nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// process is gepcheck-reference as a process of this test binary.
type process struct{ reference.InCluster }

func (process) Start(_ context.Context, c *cluster.Cluster, logDir string, log func(string)) (func(), error) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), controllerEnv+"="+c.Kubeconfig)
	p, err := cluster.Start("gepcheck-reference", cmd, filepath.Join(logDir, "gepcheck-reference.log"))
	if err != nil {
		return nil, err
	}
	log(fmt.Sprintf("started gepcheck-reference (pid %d), log %s", p.Pid(), p.Log))
	return func() { p.Stop(cluster.Timeouts.ControllerStop) }, nil
}

// startsNothing is a controller whose start after a kill starts nothing:
// the planted mistake the convergence oracle must catch.
type startsNothing struct{ *incluster.Local }

func (startsNothing) Start(context.Context) error { return nil }

// TestLocalFaults runs gepcheck-reference on a case with faults (a restart
// after its first status write, a burst, tied policies) and sees it pass
// with both oracles run and comparing something; then plants a mistake
// for each oracle and sees it caught: a controller that does not start
// again (convergence: not-convergent), and a condition flipped during the
// quiet period (stability: flapping).
func TestLocalFaults(t *testing.T) {
	c := localtest.Start(t, reference.CRDs(), gotool.KubeControllerManager)
	ctx := context.Background()
	im := process{}
	ctl, err := incluster.StartLocal(ctx, c, im, func(s string) { t.Log(s) })
	t.Cleanup(func() {
		ctl.Stop()
		for _, d := range ctl.Logs() {
			os.RemoveAll(d)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	k, err := cluster.NewKube(c)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := scenarios.LoadPolicy([]string{"testdata/faults.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	r := &incluster.Runner{Kube: k, Impl: im, Run: "flt", Controller: ctl,
		Opts: incluster.Options{StepTimeout: 20 * time.Second, Settle: 2 * time.Second, Quiet: 2 * time.Second}}
	plan := func(i int, keep ...fault.Kind) *incluster.Plan {
		p, err := incluster.PlanOf(loaded[0], incluster.TargetFor(im, r.Run, i))
		if err != nil {
			t.Fatal(err)
		}
		p.Faults = slices.DeleteFunc(p.Faults, func(f fault.Fault) bool { return len(keep) > 0 && !slices.Contains(keep, f.Kind) })
		return p
	}
	run := func(p *incluster.Plan, i int) incluster.Result {
		start := time.Now()
		res := r.Verify(ctx, r.Apply(ctx, p, 0))
		t.Logf("%s: %s in %s: %s %q; faults %v, oracles %v, %d restarts, quiet period %d writes and %d flips; %q", p.Name, res.Outcome, time.Since(start).Round(100*time.Millisecond),
			res.Reason, compare.Strings(res.Diff), res.Faults, res.Oracles, res.Restarts, res.QuietWrites, res.Flips, res.Notes)
		if err := r.Delete(ctx, p, i); err != nil {
			t.Error(err)
		}
		return res
	}

	t.Run("pass", func(t *testing.T) {
		res := run(plan(0), 0)
		if res.Outcome != incluster.Pass {
			t.Fatalf("%s, want pass", res.Outcome)
		}
		if len(res.Faults) != 3 || res.Restarts != 2 || ctl.Starts() != 3 {
			t.Errorf("faults %v, %d restarts, %d starts; want the 3 faults, 2 restarts (the fault's, convergence's), 3 starts", res.Faults, res.Restarts, ctl.Starts())
		}
		for _, o := range []string{incluster.OracleStability, incluster.OracleConvergence} {
			if i := slices.IndexFunc(res.Oracles, func(or incluster.Oracle) bool { return or.Name == o }); i < 0 || res.Oracles[i].Compared == 0 {
				t.Errorf("oracle %s did not run or compared nothing: %v", o, res.Oracles)
			}
		}
	})

	t.Run("not-convergent", func(t *testing.T) {
		r.Controller = startsNothing{ctl}
		defer func() {
			r.Controller = ctl
			if err := ctl.Start(ctx); err != nil { // after the planted start
				t.Fatal(err)
			}
		}()
		res := run(plan(1, fault.Burst), 1)
		if res.Outcome != incluster.Fail || !slices.Contains(compare.Kinds(res.Diff), string(compare.NotConvergent)) {
			t.Errorf("%s %q, want a not-convergent failure", res.Outcome, compare.Strings(res.Diff))
		}
	})

	t.Run("flapping", func(t *testing.T) {
		incluster.SetQuietStarted(func(p *incluster.Plan) { flip(t, k, p.PolicyObjects()[0]) })
		defer incluster.SetQuietStarted(nil)
		res := run(plan(2, fault.Burst), 2)
		if res.Outcome != incluster.Fail || !slices.Contains(compare.Kinds(res.Diff), string(compare.Flapping)) || res.Flips == 0 {
			t.Errorf("%s %q (%d flips), want a flapping failure", res.Outcome, compare.Strings(res.Diff), res.Flips)
		}
	})
}

// flip sets u's Accepted condition (status.conditions, or its first
// ancestor entry's) to False/Invalid, as a controller flapping would.
func flip(t *testing.T, k *cluster.Kube, u *unstructured.Unstructured) {
	res, err := k.Resource(u.GroupVersionKind(), u.GetNamespace())
	if err != nil {
		t.Error(err)
		return
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		got, err := res.Get(context.Background(), u.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		path := []string{"status", "conditions"}
		conds, _, _ := unstructured.NestedSlice(got.Object, path...)
		ancestors, _, _ := unstructured.NestedSlice(got.Object, "status", "ancestors")
		if len(conds) == 0 && len(ancestors) > 0 {
			conds, _ = ancestors[0].(map[string]any)["conditions"].([]any)
			path = []string{"status", "ancestors"}
		}
		for _, c := range conds {
			if cm := c.(map[string]any); cm["type"] == "Accepted" {
				cm["status"], cm["reason"] = "False", "Invalid"
			}
		}
		set := conds
		if path[1] == "ancestors" {
			set = ancestors
		}
		if err := unstructured.SetNestedSlice(got.Object, set, path...); err != nil {
			return err
		}
		_, err = res.UpdateStatus(context.Background(), got, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Error(err)
	}
}
