package main

import (
	"bytes"
	"os"
	osexec "os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hardening is testdata/admission/hardening: the red team's inputs of
// issue 28, each with what gepcheck must do with it.
const hardening = "testdata/admission/hardening/"

type hardeningCase struct {
	name  string
	args  []string
	code  int
	wants []string
	nots  []string
}

func (tc hardeningCase) run(t *testing.T) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- run(tc.args, strings.NewReader(""), &stdout, &stderr) }()
	var code int
	select {
	case code = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("gepcheck %s: still running after a minute", strings.Join(tc.args, " "))
	}
	out := stdout.String() + stderr.String()
	if code != tc.code {
		t.Fatalf("gepcheck %s: exit %d, want %d\n%.3000s", strings.Join(tc.args, " "), code, tc.code, out)
	}
	for _, w := range tc.wants {
		if !strings.Contains(out, w) {
			t.Errorf("gepcheck %s: output does not say %q:\n%.3000s", strings.Join(tc.args, " "), w, out)
		}
	}
	for _, w := range tc.nots {
		if strings.Contains(out, w) {
			t.Errorf("gepcheck %s: output says %q:\n%.3000s", strings.Join(tc.args, " "), w, out)
		}
	}
}

// Admission and check are bounded as simulate is (issue 28, unbounded
// work): a request's matchConditions share one CEL budget (--max-cel-cost),
// and --timeout ends the run; each case took a minute or more before.
func TestAdmissionBounded(t *testing.T) {
	codes := make(chan int, 1)
	exit = func(code int) { codes <- code }
	defer func() { exit = os.Exit }()
	for _, tc := range []hardeningCase{
		{name: "cel budget across hooks", args: []string{"admission", "simulate", "-f", hardening + "costly-hooks.yaml", "--request", "CREATE v1 configmaps ns=a"},
			code: 2, wants: []string{"cost more than 10000000 in all", "--max-cel-cost raises it"}},
		{name: "explain too", args: []string{"admission", "explain", "-f", hardening + "costly-hooks.yaml", "--request", "CREATE v1 configmaps ns=a", "costly-0.example.com"},
			code: 2, wants: []string{"cost more than 10000000 in all"}},
		{name: "check of an admission scenario", args: []string{"check", hardening + "costly-scenario.yaml"},
			code: 2, wants: []string{"costly-scenario.yaml", "case costly", "--max-cel-cost raises it"}},
		{name: "bad bounds", args: []string{"admission", "simulate", "-f", hardening + "costly-hooks.yaml", "--request", "CREATE v1 configmaps ns=a", "--timeout", "-1s"},
			code: 2, wants: []string{"--timeout must not be negative"}},
	} {
		t.Run(tc.name, tc.run)
	}
	// --timeout: the watch's exit, replaced here, ends the run.
	for _, args := range [][]string{
		{"admission", "simulate", "-f", hardening + "costly-hooks.yaml", "--request", "CREATE v1 configmaps ns=a", "--max-cel-cost", "1000000000", "--timeout", "200ms"},
		{"check", hardening + "costly-scenario.yaml", "--max-cel-cost", "1000000000", "--timeout", "200ms"},
	} {
		var stderr syncBuffer
		go run(args, strings.NewReader(""), &bytes.Buffer{}, &stderr)
		select {
		case code := <-codes:
			if code != exitBadInput || !strings.Contains(stderr.String(), "took longer than the limit of 200ms") {
				t.Errorf("%v: exit %d, %q", args, code, stderr.String())
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%v: --timeout 200ms did not end the run", args)
		}
	}
}

// TestHelperGepcheck is gepcheck itself when GEPCHECK_HELPER_ARGS is set
// (TestAdmissionSignal's child); otherwise nothing.
func TestHelperGepcheck(t *testing.T) {
	args := os.Getenv("GEPCHECK_HELPER_ARGS")
	if args == "" {
		t.Skip("the child of TestAdmissionSignal")
	}
	os.Exit(run(strings.Split(args, "\x1f"), os.Stdin, os.Stdout, os.Stderr))
}

// SIGTERM and SIGINT end a prediction promptly with exit 2 (issue 28: it
// was ignored, and only SIGKILL stopped it).
func TestAdmissionSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		for _, args := range [][]string{
			{"admission", "simulate", "-f", hardening + "costly-hooks.yaml", "--request", "CREATE v1 configmaps ns=a", "--max-cel-cost", "1000000000"},
			{"check", hardening + "costly-scenario.yaml", "--max-cel-cost", "1000000000"},
		} {
			cmd := osexec.Command(os.Args[0], "-test.run=^TestHelperGepcheck$")
			cmd.Env = append(os.Environ(), "GEPCHECK_HELPER_ARGS="+strings.Join(args, "\x1f"))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second) // in the prediction: 40 hooks take 15 s
			sent := time.Now()
			_ = cmd.Process.Signal(sig)
			err := cmd.Wait()
			code := cmd.ProcessState.ExitCode()
			if d := time.Since(sent); d > 5*time.Second {
				t.Errorf("%s %v: ended %s after the signal", sig, args[:2], d)
			}
			if code != exitBadInput || !strings.Contains(stderr.String(), "the prediction was stopped") {
				t.Errorf("%s %v: %v, exit %d, want %d; stderr:\n%s", sig, args[:2], err, code, exitBadInput, stderr.String())
			}
		}
	}
}
