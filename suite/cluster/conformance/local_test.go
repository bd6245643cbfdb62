package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/suite/cluster"
	"github.com/gepcheck/gepcheck/suite/cluster/local"
	"github.com/gepcheck/gepcheck/suite/cluster/reference"
	"github.com/gepcheck/gepcheck/suite/cluster/tools"
)

// startLocal starts a local control plane with gepcheck's CRDs, or skips
// when its tools are not built (make tools).
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
	bs, _ := profile.Builtins()
	var ps []*profile.Profile
	for _, p := range bs {
		ps = append(ps, p)
	}
	crds := append(append(gw, cluster.ProfileCRDs(ps)...), cluster.GepcheckCRDs()...)
	if err := c.InstallCRDs(ctx, crds); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestReferenceLocal(t *testing.T) {
	c := startLocal(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctl := &reference.Controller{Config: c.Config, Log: func(s string) { t.Log(s) }}
	go func() {
		if err := ctl.Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	k, err := NewKube(c)
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Kube: k, Impl: Reference{}, Run: "t1", Opts: Options{StepTimeout: 30 * time.Second}}
	files, _ := filepath.Glob("../../../scenarios/*/*.yaml")
	for i, f := range files {
		p, err := NewPlan(f, Target{Run: "t1", Index: i, ControllerName: reference.ControllerName, Supports: Reference{}.Supports})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		start := time.Now()
		a := &Applied{Plan: p}
		if p.Skip == "" {
			a = r.Apply(ctx, p)
		}
		res := r.Verify(ctx, a)
		fmt.Printf("%-5s %-60s %5.1fs %v\n", res.Outcome, filepath.Base(f), time.Since(start).Seconds(), res.Diff)
		if err := r.Delete(ctx, p, i); err != nil {
			t.Error(err)
		}
	}
}
