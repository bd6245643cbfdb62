package conformance_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/impl/reference"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/conformance"
	"github.com/gepcheck/gepcheck/suite/observe/observetest"
)

// listsMerged is the reference engine broken by a mutant: an
// implementation that merges lists element by element in merge patches,
// which GEP-2649 forbids ("lists are replaced").
var listsMerged = observetest.Mutated{Named: "lists-merged", Mutant: engine.MutantListsMerged}

var who = report.Implementation{Name: "reference", Organization: "gepcheck", Project: "gepcheck-reference",
	URL: "https://github.com/gepcheck/gepcheck", Version: "main", Contact: []string{"https://github.com/gepcheck/gepcheck/issues"}}

// Random cases offline: against the reference they all agree, and the
// campaign is in the ConformanceReport.
func TestRandomOffline(t *testing.T) {
	dir := t.TempDir()
	conformance.Run(t, conformance.Options{
		Implementation: who, Offline: reference.Offline{},
		Scenarios: []string{"../../scenarios/gep-713/example-1-direct.yaml"},
		Random:    conformance.Random{Count: 60, Seed: 7},
		ReportDir: dir,
	})
	rep := readReport(t, dir)
	var campaign bool
	for _, p := range rep.ProfileReports {
		if p.Name == "POLICY-ATTACHMENT-RANDOM-color-inherited" {
			campaign = p.Core.Passed == 60 && strings.Contains(p.Summary, "seed 7")
		}
	}
	if !campaign {
		t.Errorf("the ConformanceReport has no campaign of 60 passed cases from seed 7: %+v", rep.ProfileReports)
	}
}

// The same random cases catch an implementation with a bug: run in a
// child process (a failing subtest fails its parent), its random subtest
// fails with the case shrunk for the difference.
func TestRandomOfflineCatchesMutant(t *testing.T) {
	if os.Getenv("GEPCHECK_CONFORMANCE_CHILD") == "1" {
		conformance.Run(t, conformance.Options{
			Implementation: report.Implementation{Name: "lists-merged"}, Offline: listsMerged,
			Scenarios: []string{"../../scenarios/gep-713/example-1-direct.yaml"},
			Random:    conformance.Random{Count: 200, Seed: 7},
		})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRandomOfflineCatchesMutant$", "-test.v")
	cmd.Env = append(os.Environ(), "GEPCHECK_CONFORMANCE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("an implementation that merges lists passed 200 random cases:\n%s", out)
	}
	for _, want := range []string{"--- FAIL: TestRandomOfflineCatchesMutant/random/", "shrunk case:", "--- PASS: TestRandomOfflineCatchesMutant/example-1-direct"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// Options.Vocabulary is the status vocabulary the implementation claims
// (GEP-713 as merged upstream, "Status reporting", or its draft), over its
// capabilities' own: the ConformanceReport says it. The case is one the
// two vocabularies write alike (a policy whose target does not exist:
// Accepted False, nothing else), so that the claim is all that differs.
func TestVocabularyClaimReported(t *testing.T) {
	file := filepath.Join(t.TempDir(), "target-not-found.yaml")
	const scenario = `apiVersion: gepcheck.dev/v1alpha1
kind: Scenario
metadata: {name: target-not-found}
spec:
  citation: "GEP-713, Status reporting"
  description: a policy whose target does not exist
  profiles: [color-direct]
---
apiVersion: v1
kind: Service
metadata: {name: b1, namespace: default}
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p, namespace: default}
spec:
  targetRefs: [{group: "", kind: Service, name: missing}]
  color: red
`
	if err := os.WriteFile(file, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ own, claim engine.Vocabulary }{{engine.VocabularyMerged, engine.VocabularyDraft}, {engine.VocabularyDraft, engine.VocabularyMerged}} {
		dir := t.TempDir()
		conformance.Run(t, conformance.Options{
			Implementation: who, Offline: reference.Offline{Vocabulary: tc.own}, Vocabulary: tc.claim,
			Scenarios: []string{file}, ReportDir: dir,
		})
		rep := readReport(t, dir)
		said := false
		for _, p := range rep.ProfileReports {
			said = said || strings.Contains(p.Summary, "status vocabulary "+string(tc.claim)+".")
		}
		if !said {
			t.Errorf("writing %s, claiming %s: the ConformanceReport does not say the claim: %+v", tc.own, tc.claim, rep.ProfileReports)
		}
	}
}
