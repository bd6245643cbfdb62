package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/suite/findings"
)

// keptFindings lists the findings files of the repository.
func keptFindings(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, g := range []string{"../../scenarios/findings/*.yaml", "../../scenarios/findings/*/*.yaml"} {
		fs, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	if len(files) == 0 {
		t.Fatal("no findings kept")
	}
	return files
}

// The wide table lists every kept finding, one line each, sorted by file
// relative to the directory, with the implementation, version and mode
// of the run that found it (issue 31: not the profile), its verdict,
// requirement, profile, kind and upstream issues, and the count; without
// arguments it reads scenarios/findings.
func TestFindingsTable(t *testing.T) {
	files := keptFindings(t)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"findings", "-o", "wide", "../../scenarios/findings"}, strings.NewReader(""), &stdout, &stderr); code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != len(files)+2 || !strings.HasPrefix(lines[0], "FILE") || !strings.Contains(lines[0], "UPSTREAM") {
		t.Fatalf("want a header, %d rows and a count:\n%s", len(files), stdout.String())
	}
	rows := lines[1 : len(lines)-1]
	for i := 1; i < len(rows); i++ {
		if rows[i-1] > rows[i] {
			t.Errorf("rows not sorted by file:\n%s\n%s", rows[i-1], rows[i])
		}
	}
	for _, want := range []string{
		"envoy-gateway/envoy-gateway-backendtrafficpolicy-effective-setting-retry.yaml envoy-gateway v1.9.1 offline contradicts-must GEP-713-019 envoy-gateway-backendtrafficpolicy effective-setting-retry -",
		"envoy-gateway/envoy-gateway-backendtrafficpolicy-condition.yaml envoy-gateway v1.9.1 offline contradicts-must GEP-2649-023 envoy-gateway-backendtrafficpolicy condition envoyproxy/gateway#8926, envoyproxy/gateway#9416, kubernetes-sigs/gateway-api#2755",
		"contour/cluster-backendtlspolicy-gateway-api-conflicted.yaml contour v1.33.8 local contradicts-must GEP-713-027 cluster-backendtlspolicy-gateway-api conflicted -",
		"gep713-vs-sticky.yaml - - - undefined - - findings/gep713-vs-sticky -",
	} {
		found := false
		for _, r := range rows {
			found = found || strings.Join(strings.Fields(r), " ") == want
		}
		if !found {
			t.Errorf("no row %q:\n%s", want, stdout.String())
		}
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, fmt.Sprintf("%d findings: ", len(files))) {
		t.Errorf("last line %q: want the count of %d findings", last, len(files))
	}

	// The default table fits 120 columns and names the same runs.
	var narrow bytes.Buffer
	if code := run([]string{"findings", "../../scenarios/findings"}, strings.NewReader(""), &narrow, &stderr); code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, l := range strings.Split(narrow.String(), "\n") {
		if utf8.RuneCountInString(l) > 120 {
			t.Errorf("a line of %d columns: %q", utf8.RuneCountInString(l), l)
		}
	}
	if !strings.Contains(narrow.String(), "  contour         v1.33.8  local    contradicts-must  GEP-713-027") {
		t.Errorf("the table does not name Contour v1.33.8 in a local cluster:\n%s", narrow.String())
	}
	// --no-headers: the rows alone, no count.
	var bare bytes.Buffer
	if code := run([]string{"findings", "--no-headers", "../../scenarios/findings"}, strings.NewReader(""), &bare, &stderr); code != exitcode.OK || strings.Contains(bare.String(), "FILE") || strings.Contains(bare.String(), "findings:") || !strings.HasPrefix(bare.String(), "contour/") {
		t.Errorf("--no-headers: exit %d\n%s", code, bare.String())
	}

	t.Chdir("../..")
	var dflt bytes.Buffer
	if code := run([]string{"findings", "-o", "wide"}, strings.NewReader(""), &dflt, &stderr); code != exitcode.OK || dflt.String() != stdout.String() {
		t.Errorf("without arguments: exit %d, output\n%s\nwant the table of scenarios/findings", code, dflt.String())
	}
}

// -o json prints every finding in full, with the path it was read from.
func TestFindingsJSON(t *testing.T) {
	files := keptFindings(t)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"findings", "-o", "json", "../../scenarios/findings"}, strings.NewReader(""), &stdout, &stderr); code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got []findings.Listed
	dec := json.NewDecoder(&stdout)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(files) {
		t.Fatalf("%d findings, want %d", len(got), len(files))
	}
	for _, f := range got {
		if _, err := os.Stat(f.Path); err != nil || f.Triage.Verdict == "" || f.Triage.Note == "" || len(f.Differences) == 0 {
			t.Errorf("%s: want a path that exists, a verdict, a note and differences: %+v", f.File, f)
		}
	}
}

// A file that is not a finding, a finding whose triage is invalid, and a
// directory without findings are bad input, named with file and field.
func TestFindingsBadInput(t *testing.T) {
	good, err := os.ReadFile("../../scenarios/findings/envoy-gateway/envoy-gateway-securitypolicy-conflicted.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badVerdict := write("bad-verdict.yaml", strings.Replace(string(good), "    verdict: contradicts-must\n", "    verdict: contradicts-may\n", 1))
	badQuote := write("bad-quote.yaml", strings.Replace(string(good), "requirement: GEP-713-029", "requirement: GEP-713-019", 1))
	scenario := write("scenario.yaml", mustRead(t, "../../scenarios/gep-713/example-1-direct.yaml"))
	if string(good) == mustRead(t, badVerdict) || string(good) == mustRead(t, badQuote) {
		t.Fatal("the broken files are not broken")
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{badVerdict}, []string{badVerdict, "document 1", "field spec.triage.verdict", "contradicts-may"}},
		{[]string{badQuote}, []string{badQuote, "field spec.triage.quote", "not in GEP-713-019"}},
		{[]string{scenario}, []string{scenario, "not a finding"}},
		// Every bad file of a directory is named, not only the first.
		{[]string{dir}, []string{badVerdict, badQuote, scenario}},
		{[]string{t.TempDir()}, []string{"no findings files"}},
		{[]string{filepath.Join(dir, "missing.yaml")}, []string{"missing.yaml"}},
		{[]string{"-o", "xml", "../../scenarios/findings"}, []string{"--output"}},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"findings"}, tc.args...), strings.NewReader(""), &stdout, &stderr)
		if code != exitcode.BadInput {
			t.Errorf("%v: exit %d, want %d; stderr: %s", tc.args, code, exitcode.BadInput, stderr.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("%v: stderr does not name %q:\n%s", tc.args, w, stderr.String())
			}
		}
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	s, err := readFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fuzz --fail-on-new refuses kept findings that cannot be read
// (suite/campaign's TestFailOnNew judges the kinds found).
func TestFailOnNew(t *testing.T) {
	// Kept findings that cannot be read are bad input, before any run.
	var stdout, stderr bytes.Buffer
	code := run([]string{"fuzz", "--impl", "envoy-gateway", "--fail-on-new", "--known", t.TempDir()}, strings.NewReader(""), &stdout, &stderr)
	if code != exitcode.BadInput || !strings.Contains(stderr.String(), "--fail-on-new: --known") {
		t.Errorf("--fail-on-new with an empty --known: exit %d, want %d\n%s%s", code, exitcode.BadInput, stdout.String(), stderr.String())
	}
}
