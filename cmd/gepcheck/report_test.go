package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/reports/report"
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
		r, err := report.ReadResults(f)
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
	wr, _ := report.ReadResults(filepath.Join(whole, "reference", "main", "results-offline.json"))
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

// TestReportBadFiles: report, merge, matrix and compare read results
// files through the bounded reader: a named pipe (also one named
// results-*.json in the folder a report is added to) and a symlink to
// /dev/zero are refused at once with exit 2, never read until memory runs
// out or a writer comes (docs/limits.md).
func TestReportBadFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "results-offline.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	// matrix reads DIR/<version>/results-offline.json.
	matrix := filepath.Join(dir, "matrix")
	if err := os.MkdirAll(filepath.Join(matrix, "v1.0.0"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(matrix, "v1.0.0", "results-offline.json")); err != nil {
		t.Fatal(err)
	}
	// A report added to a folder holding a named pipe called
	// results-cluster-local.json: Write reads every results-*.json there.
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(filepath.Join(out, "reference", "main"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(out, "reference", "main", "results-cluster-local.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.json")
	data, err := os.ReadFile("testdata/corpus/report-unknown-field.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, bytes.Replace(data, []byte(`"extra": 1`), []byte(`"campaigns": []`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", fifo, "--out", filepath.Join(dir, "o1")}, "is a named pipe"},
		{[]string{"report", zero, "--out", filepath.Join(dir, "o2")}, "is a character device"},
		{[]string{"report", "merge", good, zero, "--out", filepath.Join(dir, "o3")}, "is a character device"},
		{[]string{"report", "compare", good, fifo}, "is a named pipe"},
		{[]string{"report", "matrix", matrix}, "is a character device"},
		{[]string{"report", good, "--out", out}, "results-cluster-local.json: is a named pipe"},
	} {
		var stdout, stderr bytes.Buffer
		done := make(chan int, 1)
		go func() { done <- run(c.args, strings.NewReader(""), &stdout, &stderr) }()
		select {
		case code := <-done:
			if code != exitcode.BadInput || !strings.Contains(stderr.String(), c.want) {
				t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr.String(), exitcode.BadInput, c.want)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%v: still running after a minute", c.args)
		}
	}
}
