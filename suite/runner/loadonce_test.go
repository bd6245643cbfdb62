package runner_test

import (
	"context"
	"errors"
	"testing"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/impl/reference"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
	"github.com/gepcheck/gepcheck/suite/runner"
)

// TestShardParsesEachScenarioOnce is report's TestRunParsesEachScenarioOnce
// for gepcheck run --impl reference --shard i/N --report-dir: a shard
// reads every scenario file to pick its own (in path order), then runs
// and reports the ones it picked without reading them again (issue 32).
func TestShardParsesEachScenarioOnce(t *testing.T) {
	args := []string{"../../scenarios/gep-713", "../../scenarios/gep-2649", "../../scenarios/gateway-api", "../../scenarios/kuadrant", "../../scenarios/admission"}
	files, err := scenarios.Files(args) // lists, parses nothing
	if err != nil {
		t.Fatal(err)
	}
	im, err := impl.Lookup("reference")
	if err != nil {
		t.Fatal(err)
	}
	cfg := im.Configure(pflag.NewFlagSet("run", pflag.ContinueOnError))
	who := report.Implementation{Name: "reference", Organization: "gepcheck", Project: "gepcheck-reference",
		URL: "https://github.com/gepcheck/gepcheck", Version: "main", Contact: []string{"@gepcheck"}}
	ran := 0
	for _, sh := range []suite.Shard{{I: 1, N: 2}, {I: 2, N: 2}} {
		parsed, stop := load.CountParses()
		scens, err := runner.Shard(args, sh, false)
		if err != nil {
			t.Fatal(err)
		}
		out, err := runner.Offline{Impl: im, Config: cfg, Scenarios: scens,
			Results: func(mode string, sem engine.Semantics, caps observe.Capabilities) *report.Results {
				return report.NewResults(who, mode, sem, caps)
			}}.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := report.Write(t.TempDir(), out.Results); err != nil {
			t.Fatal(err)
		}
		stop()
		ran += len(scens.Files)
		for _, e := range load.NotOnce(parsed, files) {
			t.Errorf("shard %s: %s", sh, e)
		}
	}
	if ran < len(files)/2 {
		t.Errorf("the shards ran %d of %d files", ran, len(files))
	}
}

// TestShardedClusterParsesEachScenarioOnce is the same for gepcheck run
// --cluster … --shard i/N: the shard's files, read to pick them, go to
// the cluster run as read (incluster.Config.Loaded), which plans them
// without reading them again. The run stops where it would connect to
// the cluster, once every plan is made: no cluster is needed.
func TestShardedClusterParsesEachScenarioOnce(t *testing.T) {
	args := []string{"../../scenarios/gep-713", "../../scenarios/gep-2649", "../../scenarios/gateway-api", "../../scenarios/kuadrant", "../../scenarios/admission"}
	files, err := scenarios.Files(args) // lists, parses nothing
	if err != nil {
		t.Fatal(err)
	}
	errConnect := errors.New("planned: no cluster in this test")
	for _, sh := range []suite.Shard{{I: 1, N: 2}, {I: 2, N: 2}} {
		parsed, stop := load.CountParses()
		scens, err := runner.Shard(args, sh, false)
		if err != nil {
			t.Fatal(err)
		}
		connected := false
		_, err = incluster.Run(scens.InCluster(incluster.Config{Impl: reference.InCluster{},
			Connect: func(context.Context) (*cluster.Cluster, error) {
				connected = true
				return nil, errConnect
			}}))
		stop()
		if !errors.Is(err, errConnect) || !connected || len(scens.Loaded) == 0 {
			t.Fatalf("shard %s: %d files loaded, connected %v, %v: the run should plan them and then connect", sh, len(scens.Loaded), connected, err)
		}
		for _, e := range load.NotOnce(parsed, files) {
			t.Errorf("shard %s: %s", sh, e)
		}
	}
}
