package conformance_test

import (
	"testing"

	"github.com/gepcheck/gepcheck/impl/reference"
	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite/conformance"
)

// TestOfflineParsesEachScenarioOnce counts the files the loader decodes
// while Run runs scenario files offline and writes the reports: each
// scenario file once, its cases carrying the documents (issue 32).
func TestOfflineParsesEachScenarioOnce(t *testing.T) {
	args := []string{"../../scenarios/gep-713", "../../scenarios/gep-2649", "../../scenarios/admission"}
	files, err := scenarios.Files(args) // lists, parses nothing
	if err != nil {
		t.Fatal(err)
	}
	parsed, stop := load.CountParses()
	conformance.Run(t, conformance.Options{Implementation: who, Offline: reference.Offline{}, Scenarios: args, ReportDir: t.TempDir()})
	stop()
	if len(files) < 20 {
		t.Fatalf("%d files: the run should cover more of the catalogue", len(files))
	}
	for _, e := range load.NotOnce(parsed, files) {
		t.Error(e)
	}
}
