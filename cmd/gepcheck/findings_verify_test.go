package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/suite/findings"
)

// verifyFixture copies a kept finding of Envoy Gateway into a temporary
// directory and writes the results of a run that shows on it the
// differences edit makes (nil: as recorded), its case as editCase leaves
// it. It returns the finding's and
// the results' paths.
func verifyFixture(t *testing.T, edit func(*findings.Implementation), editCase ...func(*report.CaseResult)) (string, string) {
	t.Helper()
	data, err := os.ReadFile("../../scenarios/findings/envoy-gateway/envoy-gateway-securitypolicy-effective-setting-cors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "finding.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(data), "\n---\n")
	var f findings.Implementation
	if err := yaml.Unmarshal([]byte(head), &f); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(&f)
	}
	c := report.CaseResult{Name: "finding", File: file, Outcome: report.Failed, Diff: f.Spec.Differences}
	for _, d := range f.Spec.Differences {
		c.Differences = append(c.Differences, d.String())
	}
	for _, e := range editCase {
		e(&c)
	}
	r := &report.Results{APIVersion: report.ResultsAPIVersion, Kind: report.ResultsKind,
		Implementation: report.Implementation{Name: "envoy-gateway", Version: "v1.9.1"}, Mode: "offline",
		Semantics: "sticky-overrides", GatewayAPIChannel: "standard", GatewayAPIVersion: "v1.6.3",
		Date: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC).Format(time.RFC3339), Cases: []report.CaseResult{c}}
	results := filepath.Join(dir, "results-offline.json")
	if err := report.WriteResults(results, r); err != nil {
		t.Fatal(err)
	}
	return file, results
}

// A kept finding reproduces when the run shows exactly its recorded
// differences; one the run shows otherwise (a want, a got, a path, one
// more or one fewer) is exit 1 with the recorded and the new difference;
// a finding the run did not include, or none at all, is exit 2; update
// records what the run showed, which then verifies.
func TestFindingsVerify(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*findings.Implementation)
		code int
		want string
	}{
		{"as recorded", nil, exitcode.OK, "1 of 1 findings reproduce exactly (3 recorded differences compared)"},
		{"a got", func(f *findings.Implementation) { f.Spec.Differences[2].Got = "False/Invalid" }, exitcode.Failed, "changed: recorded policy SecurityPolicy/case-7/p-f Accepted: want True/Accepted, got False/Conflicted"},
		{"a want", func(f *findings.Implementation) {
			f.Spec.Differences[0].Want = map[string]any{"cors": map[string]any{}}
		}, exitcode.Failed, "now      path Gateway/case-7/gw > Gateway/case-7/gw#http >"},
		{"fields", func(f *findings.Implementation) { f.Spec.Differences[0].Fields = []string{"cors", "jwt"} }, exitcode.Failed, `"fields":["cors","jwt"]`},
		{"a path", func(f *findings.Implementation) { f.Spec.Differences[1].Path = []string{"Gateway/case-7/gw"} }, exitcode.Failed, "recorded, not seen now: path Gateway/case-7/gw > Gateway/case-7/gw#http-2"},
		{"one fewer", func(f *findings.Implementation) { f.Spec.Differences = f.Spec.Differences[:2] }, exitcode.Failed, "recorded, not seen now: policy SecurityPolicy/case-7/p-f"},
		{"one more", func(f *findings.Implementation) {
			d := f.Spec.Differences[2]
			d.Ref = "SecurityPolicy/case-7/p-g"
			f.Spec.Differences = append(f.Spec.Differences, d)
		}, exitcode.Failed, "seen now, not recorded: policy SecurityPolicy/case-7/p-g"},
		{"a message only", func(f *findings.Implementation) { f.Spec.Differences[2].WantMessage = "other words" }, exitcode.OK, "1 of 1 findings reproduce exactly"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file, results := verifyFixture(t, tc.edit)
			var stdout, stderr bytes.Buffer
			code := run([]string{"findings", "verify", "--results", results, file}, strings.NewReader(""), &stdout, &stderr)
			if code != tc.code || !strings.Contains(stdout.String(), tc.want) {
				t.Fatalf("exit %d, want %d; stdout %q does not say %q; stderr %s", code, tc.code, stdout.String(), tc.want, stderr.String())
			}
			if code == exitcode.OK {
				return
			}
			before, _ := os.ReadFile(file)
			if code := run([]string{"findings", "update", "--results", results, file}, strings.NewReader(""), &stdout, &stderr); code != exitcode.OK {
				t.Fatalf("update: exit %d: %s", code, stderr.String())
			}
			after, _ := os.ReadFile(file)
			_, scenario, _ := strings.Cut(string(before), "\n---\n")
			if !strings.HasSuffix(string(after), "\n---\n"+scenario) || !strings.HasPrefix(string(after), "# Finding: ") {
				t.Errorf("update changed more than the Finding document:\n%s", after)
			}
			stdout.Reset()
			if code := run([]string{"findings", "verify", "--results", results, file}, strings.NewReader(""), &stdout, &stderr); code != exitcode.OK {
				t.Errorf("verify after update: exit %d: %s %s", code, stdout.String(), stderr.String())
			}
		})
	}
	t.Run("not in the results", func(t *testing.T) {
		_, results := verifyFixture(t, nil)
		var stdout, stderr bytes.Buffer
		other := "../../scenarios/findings/contour/cluster-backendtlspolicy-gateway-api-conflicted.yaml"
		if code := run([]string{"findings", "verify", "--results", results, other}, strings.NewReader(""), &stdout, &stderr); code != exitcode.BadInput || !strings.Contains(stderr.String(), "not run in") {
			t.Errorf("exit %d, stderr %q; want %d, not run in", code, stderr.String(), exitcode.BadInput)
		}
	})
	t.Run("a finding of a property", func(t *testing.T) {
		_, results := verifyFixture(t, nil)
		var stdout, stderr bytes.Buffer
		if code := run([]string{"findings", "verify", "--results", results, "../../scenarios/findings/gep713-vs-sticky.yaml"}, strings.NewReader(""), &stdout, &stderr); code != exitcode.BadInput || !strings.Contains(stderr.String(), "gepcheck check verifies it") {
			t.Errorf("exit %d, stderr %q; want %d", code, stderr.String(), exitcode.BadInput)
		}
	})
	t.Run("no results", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"findings", "verify", "../../scenarios/findings/"}, strings.NewReader(""), &stdout, &stderr); code != exitcode.BadInput || !strings.Contains(stderr.String(), "--results") {
			t.Errorf("exit %d, stderr %q; want %d naming --results", code, stderr.String(), exitcode.BadInput)
		}
	})
	// Nothing is compared, and nothing written, where the run did not
	// judge the finding or its results carry no typed differences.
	for _, tc := range []struct {
		name string
		edit func(*report.CaseResult)
		want string
	}{
		{"an error", func(c *report.CaseResult) {
			c.Outcome, c.Reason, c.Diff, c.Differences = report.Errored, "egctl timed out", nil, nil
		}, "did not judge it (error: egctl timed out)"},
		{"skipped", func(c *report.CaseResult) {
			c.Outcome, c.Reason, c.Diff, c.Differences = report.Skipped, "a feature", nil, nil
		}, "did not judge it (skipped: a feature)"},
		{"untyped", func(c *report.CaseResult) { c.Diff = nil }, "no typed differences"},
	} {
		for _, cmd := range []string{"verify", "update"} {
			t.Run(cmd+" "+tc.name, func(t *testing.T) {
				file, results := verifyFixture(t, nil, tc.edit)
				before, _ := os.ReadFile(file)
				var stdout, stderr bytes.Buffer
				if code := run([]string{"findings", cmd, "--results", results, file}, strings.NewReader(""), &stdout, &stderr); code != exitcode.BadInput || !strings.Contains(stderr.String(), tc.want) {
					t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr.String(), exitcode.BadInput, tc.want)
				}
				if after, _ := os.ReadFile(file); !bytes.Equal(before, after) {
					t.Error("the finding was written")
				}
			})
		}
	}
	t.Run("no finding named", func(t *testing.T) {
		_, results := verifyFixture(t, nil)
		var stdout, stderr bytes.Buffer
		if code := run([]string{"findings", "verify", "--results", results}, strings.NewReader(""), &stdout, &stderr); code != exitcode.BadInput || !strings.Contains(stderr.String(), "name the findings") {
			t.Errorf("exit %d, stderr %q; want %d", code, stderr.String(), exitcode.BadInput)
		}
	})
	// update rewrites the Finding document: one with a comment line in
	// it, or CRLF line ends, is refused, not written.
	for name, change := range map[string]func(string) string{
		"a comment": func(s string) string { return strings.Replace(s, "  triage:\n", "  # a note\n  triage:\n", 1) },
		"CRLF":      func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") },
	} {
		t.Run("update, "+name, func(t *testing.T) {
			file, results := verifyFixture(t, func(f *findings.Implementation) { f.Spec.Differences = f.Spec.Differences[:1] })
			data, _ := os.ReadFile(file)
			edited := change(string(data))
			if edited == string(data) {
				t.Fatal("nothing changed")
			}
			if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := run([]string{"findings", "update", "--results", results, file}, strings.NewReader(""), &stdout, &stderr)
			after, _ := os.ReadFile(file)
			if code != exitcode.BadInput || string(after) != edited {
				t.Errorf("exit %d (want %d), file written: %v; stderr %s", code, exitcode.BadInput, string(after) != edited, stderr.String())
			}
		})
	}
}
