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
	expectParsedOnce(t, files, parsed)
}

// expectParsedOnce says which of files were not parsed once, and what
// else was.
func expectParsedOnce(t *testing.T, files []string, parsed map[string]int) {
	t.Helper()
	for _, f := range files {
		if parsed[f] != 1 {
			t.Errorf("%s parsed %d times, want once", f, parsed[f])
		}
		delete(parsed, f)
	}
	for f, n := range parsed {
		t.Errorf("%s parsed %d times: no scenario file (a case's YAML parsed again)", f, n)
	}
}
