package main

import (
	"bytes"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/internal/proc"
)

const (
	execTestdata = "../../impl/exec/testdata/"
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
		{slices.Concat(fuzzExec, []string{"--shard", "0/0"}), exitcode.BadInput, "1 ≤ i ≤ N ≤ 1000"},
		{slices.Concat(fuzzExec, []string{"--shard", "5/4"}), exitcode.BadInput, "1 ≤ i ≤ N ≤ 1000"},
		{slices.Concat(fuzzExec, []string{"--shard", "a/b"}), exitcode.BadInput, "1 ≤ i ≤ N ≤ 1000"},
		{slices.Concat(fuzzExec, []string{"--shard", "1/2"}), exitcode.BadInput, "--shard: fuzz --impl exec checks one property"},
		{slices.Concat(fuzzExec, []string{"--report-dir", t.TempDir()}), exitcode.BadInput, "--report-dir: fuzz --impl exec"},
		{slices.Concat(fuzzExec, []string{"--known", "scenarios/findings"}), exitcode.BadInput, "--known: fuzz --impl exec"},
		{slices.Concat(fuzzExec, []string{"--kind", "ColorPolicy"}), exitcode.BadInput, "--kind: fuzz --impl exec"},
		{[]string{"fuzz", "--report-dir", t.TempDir(), "--checks", "1"}, exitcode.BadInput, "--report-dir needs --impl"},
		{[]string{"fuzz", "--parallel", "-3", "--checks", "1"}, exitcode.BadInput, "--parallel -3: at least 1"},
		{slices.Concat(fuzzExec, []string{"--timeout", "-1s"}), exitcode.BadInput, "--timeout -1s: must be more than 0"},
		{[]string{"run", "--parallel", "0", "--impl", "reference", direct}, exitcode.BadInput, "--parallel 0: at least 1"},
		{append(append([]string{"run"}, exe("two-observations.sh")...), "--timeout", "0s", direct), exitcode.BadInput, "--timeout 0s: must be more than 0"},
		{append(append([]string{"run"}, exe("two-observations.sh")...), "--exec-max-output", "0", direct), exitcode.BadInput, "--exec-max-output 0: between 1 and"},
		{append(append([]string{"run"}, exe("no-shebang.sh")...), direct), exitcode.BadInput, "exec format error"},
		{append(append([]string{"run"}, exe("not-executable.sh")...), direct), exitcode.BadInput, "permission denied"},
		{append(append([]string{"run"}, exe("missing.sh")...), direct), exitcode.BadInput, "--exec-command"},
		// The implementation's faults.
		{append(append([]string{"run"}, exe("two-observations.sh")...), direct), exitcode.Failed, "more bytes after the observation"},
		{append(append([]string{"run"}, exe("trailing-garbage.sh")...), direct), exitcode.Failed, "more bytes after the observation"},
		{append(append([]string{"run"}, exe("forever.sh")...), "--exec-max-output", "4096", direct), exitcode.Failed, "over the limit of 4096 bytes"},
		{append(append([]string{"run"}, exe("grandchild.sh")...), "--timeout", "1s", direct), exitcode.Failed, "timed out after 1s"},
		// A profile that keeps none of the case's policies.
		{[]string{"run", "--impl", "reference", "--profile", "color-direct", "../../scenarios/gateway-api/backendtlspolicy-missing-ca.yaml"}, exitcode.BadInput, "--profile color-direct: the input has no ColorPolicy to simulate (the case holds BackendTLSPolicy"},
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
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != exitcode.Failed {
		t.Fatalf("exit %d: %s%s", code, stdout.String(), stderr.String())
	}
	found := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".json") {
			data, _ := os.ReadFile(p)
			found = found || strings.Contains(string(data), "gepcheck run --impl exec --exec-command ../../impl/exec/testdata/two-observations.sh")
		}
		return nil
	})
	if !found {
		t.Errorf("no results file under %s records a replay with --exec-command", dir)
	}
}

// TestExecSignal: SIGTERM or SIGINT to gepcheck while an exec
// implementation runs kills the implementation's whole process group (a
// grandchild included: it is in a group of its own, out of reach of a
// signal to gepcheck's) and ends the run with exit 2, no verdict
// (docs/limits.md, Implementations).
func TestExecSignal(t *testing.T) {
	script, err := filepath.Abs(execTestdata + "grandchild.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		for _, args := range [][]string{
			{"run", "--impl", "exec", "--exec-command", script, "--timeout", "10m", direct},
			{"fuzz", "--impl", "exec", "--exec-command", script, "--timeout", "10m", "--profile", "color-direct", "--checks", "1", "--seed", "1", "--out", t.TempDir()},
		} {
			pidFile := filepath.Join(t.TempDir(), "pid")
			cmd := osexec.Command(os.Args[0], "-test.run=^TestHelperGepcheck$")
			cmd.Env = append(os.Environ(), "GEPCHECK_HELPER_ARGS="+strings.Join(args, "\x1f"), "PIDFILE="+pidFile)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait for the implementation to run (it writes its pid),
			// not for a time.
			var pid int
			for range 600 {
				if b, err := os.ReadFile(pidFile); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
					pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if pid == 0 {
				_ = cmd.Process.Kill()
				t.Fatalf("%v: the implementation never ran: %s", args[:1], stderr.String())
			}
			_ = cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(time.Minute):
				_ = cmd.Process.Kill()
				t.Fatalf("%s %v: still running a minute after the signal", sig, args[:1])
			}
			if code := cmd.ProcessState.ExitCode(); code != exitcode.BadInput || !strings.Contains(stderr.String(), "stopped") {
				t.Errorf("%s %v: exit %d, want %d and \"stopped\"; stderr:\n%s", sig, args[:1], code, exitcode.BadInput, stderr.String())
			}
			gone := false
			for range 100 {
				if gone = proc.GroupGone(pid); gone {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if !gone {
				_ = syscall.Kill(-pid, syscall.SIGKILL)
				t.Errorf("%s %v: the implementation's group %d outlived gepcheck", sig, args[:1], pid)
			}
		}
	}
}

// An exec implementation claims a profile per policy kind, as a built-in
// plug-in does (observe.Capabilities.Profiles): the example, a per-target
// None ColorPolicy implementation (docs/examples/colorpolicy-direct.py),
// claiming color-direct is not failed on the whole-policy reading of
// GEP-713's None strategy (none-loses-on-one-target-whole-policy.yaml,
// profile color-direct-whole-policy), which it used to be, and still
// agrees on the per-target one. A claim that is not KIND=PROFILE, or names
// a built-in profile of another kind, is refused.
func TestRunExecClaimsAProfilePerKind(t *testing.T) {
	if _, err := osexec.LookPath("python3"); err != nil {
		t.Skip("python3 not found: the example implementation is a Python script")
	}
	// The example writes merged GEP-713's status vocabulary (Programmed),
	// which an exec implementation claims unless told otherwise.
	exe := []string{"run", "--impl", "exec", "--exec-command", "../../docs/examples/colorpolicy-direct.py", "--exec-features", "ColorPolicy"}
	files := []string{"../../scenarios/gep-713/none-loses-on-one-target-whole-policy.yaml", "../../scenarios/gep-713/none-loses-on-one-target.yaml"}
	var stdout, stderr bytes.Buffer
	// Without the claim: the whole-policy scenario fails it (the
	// example reads None per target).
	code := run(slices.Concat(exe, files), strings.NewReader(""), &stdout, &stderr)
	if out := stdout.String(); code != exitcode.Failed || !strings.Contains(out, "DISAGREE  ../../scenarios/gep-713/none-loses-on-one-target-whole-policy.yaml") {
		t.Errorf("without --exec-profile: exit %d, want %d failing the whole-policy scenario:\n%s%s", code, exitcode.Failed, out, stderr.String())
	}
	stdout.Reset()
	stderr.Reset()
	code = run(slices.Concat(exe, []string{"--exec-profile", "ColorPolicy=color-direct"}, files), strings.NewReader(""), &stdout, &stderr)
	out := stdout.String() + stderr.String()
	if code != exitcode.OK {
		t.Errorf("exit %d, want 0:\n%s", code, out)
	}
	for _, want := range []string{
		"skip      ../../scenarios/gep-713/none-loses-on-one-target-whole-policy.yaml (uses profile color-direct-whole-policy (it claims color-direct)",
		"agree     ../../scenarios/gep-713/none-loses-on-one-target.yaml",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// fuzz draws one profile: one the command does not claim for its kind
	// is refused, not compared by another reading.
	stdout.Reset()
	stderr.Reset()
	fz := []string{"fuzz", "--impl", "exec", "--exec-command", "../../docs/examples/colorpolicy-direct.py", "--exec-profile", "ColorPolicy=color-direct", "--profile", "color-inherited", "--checks", "1", "--seed", "1", "--out", t.TempDir()}
	if code := run(fz, strings.NewReader(""), &stdout, &stderr); code != exitcode.BadInput || !strings.Contains(stderr.String(), "--profile color-inherited: --impl exec claims profile color-direct for ColorPolicy") {
		t.Errorf("fuzz with a profile not claimed: exit %d, want %d:\n%s%s", code, exitcode.BadInput, stdout.String(), stderr.String())
	}
	for _, tc := range []struct{ claim, says string }{
		{"color-direct", `--exec-profile "color-direct": want KIND=PROFILE`},
		{"BackendTLSPolicy=color-direct", "the built-in profile color-direct is for ColorPolicy, not BackendTLSPolicy"},
		{"ColorPolicy=", "want KIND=PROFILE"},
	} {
		stdout.Reset()
		stderr.Reset()
		code := run(slices.Concat(exe, []string{"--exec-profile", tc.claim}, files[:1]), strings.NewReader(""), &stdout, &stderr)
		if out := stdout.String() + stderr.String(); code != exitcode.BadInput || !strings.Contains(out, tc.says) {
			t.Errorf("--exec-profile %s: exit %d, want %d saying %q:\n%s", tc.claim, code, exitcode.BadInput, tc.says, out)
		}
	}
}
