package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/internal/outpath"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/render"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/findings"
)

// WriteFinding writes a shrunk disagreement as a findings file named
// after the kind of difference it was shrunk for (compare.Kinds),
// untriaged. A case without steps is written as a Finding document with
// the expected and observed outcomes side by side and the replay command,
// then the scenario's objects; profileSource says whose description of
// the policy kind the expectation follows. A case with steps, shrunk
// offline or in a cluster, is written as its scenario file, the Scenario
// document keeping its steps so that the file replays as it is, after
// comments saying the step that fails, the differences and the replay
// command (IMPL-KIND-steps.yaml).
func WriteFinding(dir, impl, replay, kind, profileSource string, d differential.Disagreement) (string, error) {
	data, suffix := stepsFindingFile(impl, replay, d), "-steps"
	var err error
	if !d.Case.Changes() {
		data, suffix = nil, ""
		data, err = findingFile(impl, replay, profileSource, d)
	}
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	file, err := findingPath(dir, impl, kind, suffix)
	if err != nil {
		return "", err
	}
	return file, os.WriteFile(file, data, 0o644)
}

// findingFile is the findings file of a case without steps.
func findingFile(impl, replay, profileSource string, d differential.Disagreement) ([]byte, error) {
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
		return nil, err
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "# Finding: %s disagrees with gepcheck's reference.\n# Replay: %s\n", ref.Printable(impl), ref.Printable(replay))
	out.Write(b)
	out.WriteString("---\n")
	out.Write(bytes.TrimPrefix(d.Case.YAML(), []byte("---\n")))
	return out.Bytes(), nil
}

// stepsFindingFile is the findings file of a case with steps.
func stepsFindingFile(impl, replay string, d differential.Disagreement) []byte {
	var out bytes.Buffer
	// Comment lines: escaped (ref.Printable), so that none ends early
	// and adds YAML to the file.
	fmt.Fprintf(&out, "# Finding: %s disagrees with gepcheck's reference at %s.\n# Replay: %s\n", ref.Printable(impl), ref.Printable(d.Label()), ref.Printable(replay))
	for _, diff := range compare.Strings(d.Diff) {
		fmt.Fprintf(&out, "#   %s\n", ref.Printable(strings.ReplaceAll(diff, "\n", " ")))
	}
	out.Write(d.Case.YAML())
	return out.Bytes()
}

// findingPath is dir/IMPL-KIND[suffix].yaml, the name checked as one
// path element (outpath.Elem): an implementation's name and a kind of
// difference lead nowhere else.
func findingPath(dir, impl, kind, suffix string) (string, error) {
	return outpath.Join(dir, outpath.Named{Field: "findings file name", Value: impl + "-" + kind + suffix + ".yaml"})
}

// Listed is Findings of the files gepcheck findings listed.
func Listed(w io.Writer, found []findings.Listed, opts render.TableOptions) error {
	files := make([]findings.Entry, len(found))
	for i, f := range found {
		files[i] = f.Entry
	}
	return Findings(w, files, opts)
}

// Findings prints one row per findings file (gepcheck findings): file,
// the implementation, its version and the mode of the run that found it
// (- for a finding of a property), verdict and requirement, fitting 120
// columns; opts.Wide adds the profile, the kind of difference and the
// upstream issues as owner/repo#N, in full; then the count per verdict.
func Findings(w io.Writer, files []findings.Entry, opts render.TableOptions) error {
	// The table: the file, what it was found on and its verdict; wide,
	// also the profile, the kind of difference and upstream issues.
	t := render.Table{Header: []string{"FILE", "IMPLEMENTATION", "VERSION", "MODE", "VERDICT", "REQUIREMENT"}, Names: []int{0}}
	if opts.Wide {
		t.Header = append(t.Header, "PROFILE", "KIND/DIFFERENCE", "UPSTREAM")
	}
	count := map[suite.Verdict]int{}
	for _, f := range files {
		count[f.Triage.Verdict]++
		up := make([]string, len(f.Triage.Upstream))
		for i, u := range f.Triage.Upstream {
			up[i] = shortIssue(u)
		}
		// IMPLEMENTATION, VERSION and MODE are the run's (the replay's
		// --impl, --NAME-version, --cluster); PROFILE is the name the run
		// gave the finding, its policy profile ("cluster-" and the
		// profile for a run in a cluster; - for a property's).
		row := []string{f.File, orDash(f.Run.Implementation), orDash(f.Run.Version), orDash(f.Run.Mode), string(f.Triage.Verdict), orDash(f.Triage.Requirement)}
		if opts.Wide {
			row = append(row, orDash(f.Implementation), f.Kind, orDash(strings.Join(up, ", ")))
		}
		// Every field is from a findings file: printed escaped
		// (ref.Printable), so none can send a terminal escape or add a
		// line or a column.
		for i, c := range row {
			row[i] = strings.ReplaceAll(ref.Printable(c), "\t", `\t`)
		}
		t.Rows = append(t.Rows, row)
	}
	if err := t.Write(w, opts); err != nil {
		return err
	}
	if opts.NoHeaders {
		return nil
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
