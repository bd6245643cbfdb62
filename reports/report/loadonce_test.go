package report_test

import (
	"context"
	"testing"

	"github.com/gepcheck/gepcheck/impl/reference"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// TestRunParsesEachScenarioOnce runs the catalogue offline as gepcheck run
// --impl reference --report-dir does (classify and load the cases,
// compare with the reference, list features, write the reports with their
// pictures) and counts the files the loader decodes: each scenario file
// once, and nothing else (a case's YAML read back would be "<stdin>"; issue 32).
func TestRunParsesEachScenarioOnce(t *testing.T) {
	args := []string{"../../scenarios/gep-713", "../../scenarios/gep-2649", "../../scenarios/gateway-api", "../../scenarios/kuadrant", "../../scenarios/stored/gateway-api", "../../scenarios/admission"}
	files, err := scenarios.Files(args) // lists, parses nothing
	if err != nil {
		t.Fatal(err)
	}
	parsed, stop := load.CountParses()
	defer stop()

	obs := reference.Offline{}
	cases, err := observe.ScenarioCases(args, nil)
	if err != nil {
		t.Fatal(err)
	}
	results, err := differential.Cases(context.Background(), obs, cases)
	if err != nil {
		t.Fatal(err)
	}
	r := report.NewResults(report.Implementation{Name: "reference", Organization: "gepcheck", Project: "gepcheck-reference",
		URL: "https://github.com/gepcheck/gepcheck", Version: "main", Contact: []string{"@gepcheck"}}, "offline", "", obs.Capabilities())
	r.Cases = report.OfflineCases(results, obs.Capabilities(), func(f string) string { return "gepcheck run --impl reference " + f })
	if _, err := report.Write(t.TempDir(), r); err != nil {
		t.Fatal(err)
	}
	stop()

	steps := 0
	for _, c := range cases {
		if c.Label() != "" {
			steps++
		}
	}
	if len(cases) < len(files)/2 || steps == 0 {
		t.Fatalf("%d cases (%d of them steps) of %d files: the run should cover the catalogue and a scenario with steps", len(cases), steps, len(files))
	}
	for _, e := range load.NotOnce(parsed, files) {
		t.Error(e)
	}
}

// TestClusterPlansParseEachScenarioOnce plans the catalogue for a cluster
// as gepcheck run --cluster does (read the files, plan each for the
// implementation), then writes the cases' results and replays each
// through the offline form as a failure would be (incluster.Replay), and
// counts the files the loader decodes: each scenario file once, the plans
// carrying the documents (issue 32). No cluster is needed: nothing is
// applied.
func TestClusterPlansParseEachScenarioOnce(t *testing.T) {
	args := []string{"../../scenarios/gep-713", "../../scenarios/gep-2649", "../../scenarios/gateway-api", "../../scenarios/kuadrant", "../../scenarios/admission"}
	files, err := scenarios.Files(args) // lists, parses nothing
	if err != nil {
		t.Fatal(err)
	}
	parsed, stop := load.CountParses()
	defer stop()

	im := reference.InCluster{}
	loaded, err := scenarios.LoadPolicy(args)
	if err != nil {
		t.Fatal(err)
	}
	var results []incluster.Result
	steps := 0
	for i, l := range loaded {
		p, err := incluster.PlanOf(l, incluster.TargetFor(im, "r", i))
		if err != nil {
			t.Fatal(err)
		}
		res := incluster.Result{Plan: p, Case: p, Outcome: incluster.Pass}
		if n := len(p.Steps); n > 0 {
			res.Plan, res.State = p.State(n), n
			steps++
		}
		if p.Skip != "" {
			res.Outcome, res.Reason = incluster.Skip, p.Skip
		} else if _, err := incluster.Replay(context.Background(), reference.Offline{}, res); err != nil {
			t.Errorf("%s: replay: %v", l.File, err)
		}
		results = append(results, res)
	}
	cases := report.ClusterCases(results, func(f string) string { return "gepcheck run --cluster local " + f }, im.Capabilities().Capabilities)
	stop()

	if len(cases) < len(files)/2 || steps == 0 {
		t.Fatalf("%d cases (%d with steps) of %d files: the plans should cover the catalogue and a scenario with steps", len(cases), steps, len(files))
	}
	for _, e := range load.NotOnce(parsed, files) {
		t.Error(e)
	}
}
