package reports

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/differential"
)

// WriteFinding writes a shrunk disagreement as a findings file: a
// Finding document with the expected and observed outcomes side by side and
// the replay command, then the scenario's objects, in a file named after
// the kind of difference it was shrunk for (compare.Kinds). profileSource
// says whose description of the policy kind the expectation follows.
func WriteFinding(dir, impl, replay, kind, profileSource string, d differential.Disagreement) (string, error) {
	head := map[string]any{
		"apiVersion": "gepcheck.dev/v1alpha1",
		"kind":       "Finding",
		"metadata":   map[string]any{"name": fmt.Sprintf("%s-%d", impl, d.Seed)},
		"spec": map[string]any{
			"implementation": impl,
			"replay":         replay,
			"differences":    compare.Strings(d.Diff),
			"expected":       d.Want,
			"observed":       d.Got,
			"explanation": "gepcheck's reference engine (expected, under " + profileSource + ") and the implementation " +
				"(observed) disagree on this scenario, shrunk to the fewest policies and fields that still show it. " +
				"A finding is evidence, not a test to make pass.",
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
