package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	execTestdata = "../../suite/impl/exec/testdata/"
	direct       = "../../scenarios/gep-713/example-1-direct.yaml"
)

// Exit codes tell the implementation's fault (1) from the user's (2), and
// every flag of fuzz --impl exec is read or refused, never ignored (issue
// 28); the message names the flag and, for a value out of range, the limit.
func TestExecExitCodes(t *testing.T) {
	exe := func(script string) []string {
		return []string{"--impl", "exec", "--exec-command", execTestdata + script}
	}
	fuzzExec := append([]string{"fuzz", "--profile", "color-direct", "--checks", "1", "--seed", "1", "--out", t.TempDir()}, exe("two-observations.sh")...)
	for _, tc := range []struct {
		args []string
		want int
		says string
	}{
		{slices.Concat(fuzzExec, []string{"--shard", "0/0"}), exitBadInput, "1 ≤ i ≤ N ≤ 1000"},
		{slices.Concat(fuzzExec, []string{"--shard", "5/4"}), exitBadInput, "1 ≤ i ≤ N ≤ 1000"},
		{slices.Concat(fuzzExec, []string{"--shard", "a/b"}), exitBadInput, "1 ≤ i ≤ N ≤ 1000"},
		{slices.Concat(fuzzExec, []string{"--shard", "1/2"}), exitBadInput, "--shard: fuzz --impl exec checks one property"},
		{slices.Concat(fuzzExec, []string{"--report-dir", t.TempDir()}), exitBadInput, "--report-dir: fuzz --impl exec"},
		{slices.Concat(fuzzExec, []string{"--known", "scenarios/findings"}), exitBadInput, "--known: fuzz --impl exec"},
		{slices.Concat(fuzzExec, []string{"--kind", "ColorPolicy"}), exitBadInput, "--kind: fuzz --impl exec"},
		{[]string{"fuzz", "--report-dir", t.TempDir(), "--checks", "1"}, exitBadInput, "--report-dir needs --impl"},
		{[]string{"fuzz", "--parallel", "-3", "--checks", "1"}, exitBadInput, "--parallel -3: at least 1"},
		{slices.Concat(fuzzExec, []string{"--timeout", "-1s"}), exitBadInput, "--timeout -1s: must be more than 0"},
		{[]string{"run", "--parallel", "0", "--impl", "reference", direct}, exitBadInput, "--parallel 0: at least 1"},
		{append(append([]string{"run"}, exe("two-observations.sh")...), "--timeout", "0s", direct), exitBadInput, "--timeout 0s: must be more than 0"},
		{append(append([]string{"run"}, exe("two-observations.sh")...), "--exec-max-output", "0", direct), exitBadInput, "--exec-max-output 0: between 1 and"},
		{append(append([]string{"run"}, exe("no-shebang.sh")...), direct), exitBadInput, "exec format error"},
		{append(append([]string{"run"}, exe("not-executable.sh")...), direct), exitBadInput, "permission denied"},
		{append(append([]string{"run"}, exe("missing.sh")...), direct), exitBadInput, "--exec-command"},
		// The implementation's faults.
		{append(append([]string{"run"}, exe("two-observations.sh")...), direct), exitFailed, "more bytes after the observation"},
		{append(append([]string{"run"}, exe("trailing-garbage.sh")...), direct), exitFailed, "more bytes after the observation"},
		{append(append([]string{"run"}, exe("forever.sh")...), "--exec-max-output", "4096", direct), exitFailed, "over the limit of 4096 bytes"},
		{append(append([]string{"run"}, exe("grandchild.sh")...), "--timeout", "1s", direct), exitFailed, "timed out after 1s"},
		// A profile that keeps none of the case's policies.
		{[]string{"run", "--impl", "reference", "--profile", "color-direct", "../../scenarios/gateway-api/backendtlspolicy-missing-ca.yaml"}, exitBadInput, "--profile color-direct: the input has no ColorPolicy to simulate (the case holds BackendTLSPolicy"},
	} {
		var stdout, stderr bytes.Buffer
		start := time.Now()
		code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
		if took := time.Since(start); took > 20*time.Second {
			t.Errorf("%v: took %s", tc.args, took)
		}
		if code != tc.want || !strings.Contains(stdout.String()+stderr.String(), tc.says) {
			t.Errorf("%v: exit %d, want %d saying %q:\n%s%s", tc.args, code, tc.want, tc.says, stdout.String(), stderr.String())
		}
	}
}

// The replay command run records for an exec implementation's case names
// the command, so that it replays against the same one.
func TestRunExecRecordsTheCommand(t *testing.T) {
	dir := t.TempDir()
	args := []string{"run", "--impl", "exec", "--exec-command", execTestdata + "two-observations.sh", "--report-dir", dir,
		"--report-organization", "o", "--report-project", "p", "--report-url", "https://example.com", "--report-version", "v1", "--report-contact", "c", direct}
	var stdout, stderr bytes.Buffer
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != exitFailed {
		t.Fatalf("exit %d: %s%s", code, stdout.String(), stderr.String())
	}
	found := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".json") {
			data, _ := os.ReadFile(p)
			found = found || strings.Contains(string(data), "gepcheck run --impl exec --exec-command ../../suite/impl/exec/testdata/two-observations.sh")
		}
		return nil
	})
	if !found {
		t.Errorf("no results file under %s records a replay with --exec-command", dir)
	}
}
