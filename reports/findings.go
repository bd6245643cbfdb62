package reports

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/differential"
)

// WriteFinding writes a shrunk disagreement as a findings file: a
// Finding document with the expected and observed outcomes side by side and
// the replay command, then the scenario's objects, in a file named after
// the kind of difference it was shrunk for (compare.Kinds), untriaged.
// profileSource says whose description of the policy kind the expectation
// follows.
func WriteFinding(dir, impl, replay, kind, profileSource string, d differential.Disagreement) (string, error) {
	head := suite.ImplementationFinding{
		APIVersion: "gepcheck.dev/v1alpha1",
		Kind:       "Finding",
		Metadata:   simulator.ScenarioMeta{Name: fmt.Sprintf("%s-%d", impl, d.Seed)},
		Spec: suite.ImplementationFindingSpec{
			Implementation: impl,
			Replay:         replay,
			Differences:    compare.Strings(d.Diff),
			Expected:       d.Want,
			Observed:       d.Got,
			Explanation: "gepcheck's reference engine (expected, under " + profileSource + ") and the implementation " +
				"(observed) disagree on this scenario, shrunk to the fewest policies and fields that still show it. " +
				"A finding is evidence, not a test to make pass.",
			// Visibly not read against the specs yet (TestFindingsTriaged).
			Triage: &suite.Triage{Verdict: suite.Untriaged},
		},
	}
	b, err := yaml.Marshal(head)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "# Finding: %s disagrees with gepcheck's reference.\n# Replay: %s\n", impl, replay)
	out.Write(b)
	out.WriteString("---\n")
	out.Write(bytes.TrimPrefix(d.Scenario.YAML(), []byte("---\n")))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	file := filepath.Join(dir, fmt.Sprintf("%s-%s.yaml", impl, kind))
	return file, os.WriteFile(file, out.Bytes(), 0o644)
}
