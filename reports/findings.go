package reports

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/internal/outpath"
	"github.com/gepcheck/gepcheck/simulator/ref"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/findings"
)

// WriteFinding writes a shrunk disagreement as a findings file: a
// Finding document with the expected and observed outcomes side by side and
// the replay command, then the scenario's objects, in a file named after
// the kind of difference it was shrunk for (compare.Kinds), untriaged.
// profileSource says whose description of the policy kind the expectation
// follows.
func WriteFinding(dir, impl, replay, kind, profileSource string, d differential.Disagreement) (string, error) {
	head := findings.Implementation{
		APIVersion: "gepcheck.dev/v1alpha1",
		Kind:       "Finding",
		Metadata:   simulator.ScenarioMeta{Name: fmt.Sprintf("%s-%d", impl, d.Seed)},
		Spec: findings.ImplementationSpec{
			Implementation: impl,
			Replay:         replay,
			Differences:    d.Diff,
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
	fmt.Fprintf(&out, "# Finding: %s disagrees with gepcheck's reference.\n# Replay: %s\n", ref.Printable(impl), ref.Printable(replay))
	out.Write(b)
	out.WriteString("---\n")
	out.Write(bytes.TrimPrefix(d.Scenario.YAML(), []byte("---\n")))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	file, err := findingPath(dir, impl, kind, "")
	if err != nil {
		return "", err
	}
	return file, os.WriteFile(file, out.Bytes(), 0o644)
}

// WriteStepsFinding writes a case with steps (the scenario file data),
// shrunk offline or in a cluster, as a findings file named after the kind
// of difference, with comments saying the step that fails, the
// differences and the replay command: the Scenario document keeps its
// steps, so that the file replays as it is.
func WriteStepsFinding(dir, impl, replay, kind string, data []byte, step string, diffs []string) (string, error) {
	var out bytes.Buffer
	// Comment lines: escaped (ref.Printable), so that none ends early
	// and adds YAML to the file.
	fmt.Fprintf(&out, "# Finding: %s disagrees with gepcheck's reference at %s.\n# Replay: %s\n", ref.Printable(impl), ref.Printable(step), ref.Printable(replay))
	for _, d := range diffs {
		fmt.Fprintf(&out, "#   %s\n", ref.Printable(strings.ReplaceAll(d, "\n", " ")))
	}
	out.Write(data)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	file, err := findingPath(dir, impl, kind, "-steps")
	if err != nil {
		return "", err
	}
	return file, os.WriteFile(file, out.Bytes(), 0o644)
}

// findingPath is dir/IMPL-KIND[suffix].yaml, the name checked as one
// path element (outpath.Elem): an implementation's name and a kind of
// difference lead nowhere else.
func findingPath(dir, impl, kind, suffix string) (string, error) {
	return outpath.Join(dir, outpath.Named{Field: "findings file name", Value: impl + "-" + kind + suffix + ".yaml"})
}

// Findings prints one line per findings file (gepcheck findings): file,
// implementation (or - for a finding of a property), kind of difference,
// verdict, requirement and upstream issues as owner/repo#N; then the count
// per verdict.
func Findings(w io.Writer, files []findings.Entry) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tIMPLEMENTATION\tKIND/DIFFERENCE\tVERDICT\tREQUIREMENT\tUPSTREAM")
	count := map[suite.Verdict]int{}
	for _, f := range files {
		count[f.Triage.Verdict]++
		up := make([]string, len(f.Triage.Upstream))
		for i, u := range f.Triage.Upstream {
			up[i] = shortIssue(u)
		}
		// Every field is from a findings file: printed escaped
		// (ref.Printable), so none can send a terminal escape or add a
		// line or a column.
		row := []string{f.File, orDash(f.Implementation), f.Kind, string(f.Triage.Verdict), orDash(f.Triage.Requirement), orDash(strings.Join(up, ", "))}
		for i, c := range row {
			row[i] = strings.ReplaceAll(ref.Printable(c), "\t", `\t`)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var parts []string
	for _, v := range suite.Verdicts {
		if count[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[v], v))
		}
	}
	_, err := fmt.Fprintf(w, "%d findings: %s\n", len(files), strings.Join(parts, ", "))
	return err
}

// shortIssue writes a GitHub issue or pull request URL as owner/repo#N,
// any other URL as it is.
func shortIssue(u string) string {
	rest, ok := strings.CutPrefix(u, "https://github.com/")
	p := strings.Split(rest, "/")
	if !ok || len(p) != 4 || (p[2] != "issues" && p[2] != "pull") {
		return u
	}
	return p[0] + "/" + p[1] + "#" + p[3]
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
