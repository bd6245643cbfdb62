package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/reports"
)

// dateLine matches what differs between two runs of the same inputs: the
// date, in every report.
var dateLine = regexp.MustCompile(`(?m)^.*20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ.*$`)

// reportFiles reads the reports in dir, the date lines blanked.
func reportFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = dateLine.ReplaceAllString(string(data), "DATE")
	}
	return out
}

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 0 && code != 1 {
		t.Fatalf("%v: exit %d: %s%s", args, code, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// TestReportShardsMerge: a run split four ways (--shard i/4) and merged
// (gepcheck report merge) gives the same reports as the run unsharded, and
// the same inputs give the same bytes but for the date; the shards do not
// overlap and together hold every case.
func TestReportShardsMerge(t *testing.T) {
	tmp := t.TempDir()
	whole := filepath.Join(tmp, "whole")
	runOK(t, "run", "--impl", "reference", "../../scenarios/gep-713/", "--report-dir", whole)
	var parts []string
	total := 0
	for i := 1; i <= 4; i++ {
		dir := filepath.Join(tmp, "shard", string(rune('0'+i)))
		runOK(t, "run", "--impl", "reference", "../../scenarios/gep-713/", "--shard", string(rune('0'+i))+"/4", "--report-dir", dir)
		f := filepath.Join(dir, "reference", "main", "results-offline.json")
		r, err := reports.ReadResults(f)
		if err != nil {
			t.Fatal(err)
		}
		total += len(r.Cases)
		parts = append(parts, f)
	}
	merged := filepath.Join(tmp, "merged")
	runOK(t, append([]string{"report", "merge", "--out", merged}, parts...)...)
	want := reportFiles(t, filepath.Join(whole, "reference", "main"))
	got := reportFiles(t, filepath.Join(merged, "reference", "main"))
	wr, _ := reports.ReadResults(filepath.Join(whole, "reference", "main", "results-offline.json"))
	if total != len(wr.Cases) || len(wr.Cases) < 20 {
		t.Fatalf("the shards hold %d cases, the whole run %d", total, len(wr.Cases))
	}
	for name, w := range want {
		g := got[name]
		if name == "results-offline.json" || name == "README.md" || name == "report-offline.html" {
			// The merge names its shards.
			g = regexp.MustCompile(`(?s)"shards": \[.*?\],\n\s*`).ReplaceAllString(g, "")
			g = strings.ReplaceAll(g, " (merged from shards 1/4, 2/4, 3/4, 4/4)", "")
			g = regexp.MustCompile(`; merged from shards [0-9/ ]+`).ReplaceAllString(g, "")
		}
		if g != w {
			t.Errorf("%s of the merged shards differs from the unsharded run's", name)
		}
	}
	// Again, unsharded: the same bytes but for the date.
	again := filepath.Join(tmp, "again")
	runOK(t, "run", "--impl", "reference", "../../scenarios/gep-713/", "--report-dir", again)
	for name, w := range reportFiles(t, filepath.Join(again, "reference", "main")) {
		if w != want[name] {
			t.Errorf("%s differs between two runs of the same inputs", name)
		}
	}
	// report regenerates the same reports from the results.
	regen := filepath.Join(tmp, "regen")
	runOK(t, "report", "--out", regen, filepath.Join(whole, "reference", "main", "results-offline.json"))
	for name, w := range reportFiles(t, filepath.Join(regen, "reference", "main")) {
		if w != want[name] {
			t.Errorf("gepcheck report writes %s differently from the run", name)
		}
	}
	// Shards of another run do not merge with these.
	var stdout, stderr bytes.Buffer
	if code := run([]string{"report", "merge", "--out", filepath.Join(tmp, "x"), parts[0], parts[0]}, strings.NewReader(""), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "must not overlap") {
		t.Errorf("merging a shard with itself: exit %d: %s", code, stderr.String())
	}
}
