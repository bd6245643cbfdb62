package main

import (
	"bytes"
	"os"
	osexec "os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/internal/exitcode"
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
// work): a request's matchConditions share one CEL budget (--max-request-cel-cost),
// and --timeout ends the run; each case took a minute or more before.
func TestAdmissionBounded(t *testing.T) {
	codes := make(chan int, 1)
	exit := func(code int) { codes <- code }
	for _, tc := range []hardeningCase{
		{name: "cel budget across hooks", args: []string{"admission", "simulate", "-f", hardening + "costly-hooks.yaml", "--request", "CREATE v1 configmaps ns=a"},
			code: 2, wants: []string{"cost more than 10000000 in all", "--max-request-cel-cost raises it"}},
		{name: "explain too", args: []string{"admission", "explain", "-f", hardening + "costly-hooks.yaml", "--request", "CREATE v1 configmaps ns=a", "costly-0.example.com"},
			code: 2, wants: []string{"cost more than 10000000 in all"}},
		{name: "check of an admission scenario", args: []string{"check", hardening + "costly-scenario.yaml"},
			code: 2, wants: []string{"costly-scenario.yaml", "case costly", "--max-request-cel-cost raises it"}},
		{name: "bad bounds", args: []string{"admission", "simulate", "-f", hardening + "costly-hooks.yaml", "--request", "CREATE v1 configmaps ns=a", "--timeout", "-1s"},
			code: 2, wants: []string{"--max-memory must be positive, --timeout not negative"}},
	} {
		t.Run(tc.name, tc.run)
	}
	// --timeout: the watch's exit, replaced here, ends the run (the run
	// itself goes on in the background until its CEL budget stops it,
	// about a second).
	for _, args := range [][]string{
		{"admission", "simulate", "-f", hardening + "costly-hooks.yaml", "--request", "CREATE v1 configmaps ns=a", "--timeout", "200ms"},
		{"check", hardening + "costly-scenario.yaml", "--timeout", "200ms"},
	} {
		var stderr syncBuffer
		go runExit(args, strings.NewReader(""), &bytes.Buffer{}, &stderr, exit)
		select {
		case code := <-codes:
			if code != exitcode.BadInput || !strings.Contains(stderr.String(), "took longer than the limit of 200ms") {
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
			{"admission", "simulate", "-f", hardening + "costly-hooks.yaml", "--request", "CREATE v1 configmaps ns=a", "--max-request-cel-cost", "1000000000"},
			{"check", hardening + "costly-scenario.yaml", "--max-request-cel-cost", "1000000000"},
		} {
			cmd := osexec.Command(os.Args[0], "-test.run=^TestHelperGepcheck$")
			cmd.Env = append(os.Environ(), "GEPCHECK_HELPER_ARGS="+strings.Join(args, "\x1f"))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// In the prediction by then (40 hooks take 15 s or more), whatever
			// the load: before signals.Context, SIGTERM would kill the child.
			time.Sleep(3 * time.Second)
			sent := time.Now()
			_ = cmd.Process.Signal(sig)
			err := cmd.Wait()
			code := cmd.ProcessState.ExitCode()
			if d := time.Since(sent); d > 20*time.Second {
				t.Errorf("%s %v: ended %s after the signal", sig, args[:2], d)
			}
			if code != exitcode.BadInput || !strings.Contains(stderr.String(), "the prediction was stopped") {
				t.Errorf("%s %v: %v, exit %d, want %d; stderr:\n%s", sig, args[:2], err, code, exitcode.BadInput, stderr.String())
			}
		}
	}
}

// --request-file and --request are decoded strictly and validated as the
// API server would (issue 28, names and misleading messages): each case
// was accepted before, or refused without naming file, line and field.
func TestAdmissionRequestStrict(t *testing.T) {
	cfg := hardening + "config.yaml"
	file := func(name string, wants ...string) hardeningCase {
		return hardeningCase{name: name, args: []string{"admission", "simulate", "-f", cfg, "--request-file", hardening + name}, code: 2, wants: append([]string{hardening + name, "document "}, wants...)}
	}
	line := func(req string, wants ...string) hardeningCase {
		return hardeningCase{name: req, args: []string{"admission", "simulate", "-f", cfg, "--request", req}, code: 2, wants: append([]string{"--request: "}, wants...)}
	}
	for _, tc := range []hardeningCase{
		file("review-v9.yaml", "(line 3)", "field apiVersion", "admission.k8s.io/v9: want admission.k8s.io/v1"),
		file("review-unknown-field.yaml", "(line 16)", "field request.namespce: unknown field"),
		file("review-bad-namespace.yaml", "(line 9)", "field request.namespace", "not a namespace name"),
		file("review-ns-other-name.yaml", "document 2 (line 20)", "field metadata.name", "the Namespace given must be the request's, which has namespace \"team-a\""),
		file("review-ns-int-label.yaml", "document 2 (line 20)", "field metadata.labels", "expected a string, got a number"),
		file("review-ns-bad-label-key.yaml", "document 2 (line 19)", "field metadata.labels", `"bad key!"`),
		file("review-ns-unknown-field.yaml", "document 2 (line 19)", "field metadata.lables: unknown field"),
		file("review-ns-v2.yaml", "document 2 (line 17)", "field apiVersion", "v2: want v1"),
		file("review-no-kind.yaml", "(line 2)", "field kind: is required"),
		file("review-sequence.yaml", "(line 2)", "document must be a mapping, got a list"),
		file("review-request-list.yaml", "(line 4)", "field request: expected an object, got a list"),
		{name: "review-deep.yaml", args: []string{"admission", "simulate", "-f", cfg, "--request-file", hardening + "review-deep.yaml"}, code: 2,
			wants: []string{"review-deep.yaml: document 1", "nested more than 100 levels deep", "--max-depth raises it"}},
		{name: "no review", args: []string{"admission", "simulate", "-f", cfg, "--request-file", cfg}, code: 2,
			wants: []string{"config.yaml: document 1", "want one admission.k8s.io/v1 AdmissionReview"}},
		line("CREATE v1 configmaps ns=a ns=b", `key "ns" given twice`),
		line("CREATE v1 configmaps ns=../../etc", "ns=../../etc: not a namespace name"),
		line("CREATE v1 configmaps ns=a name=../x", "name=../x: not a valid name: may not contain '/'"),
		line("CREATE v1 namespaces name=Team", "name=Team: not a namespace name"),
		line("CREATE v1 configmaps ns=a\x1b[31m", `ns=a\x1b[31m`),
	} {
		tc.nots = append(tc.nots, "\x1b")
		t.Run(tc.name, tc.run)
	}
	// A List holding the review is read as its item, as kubectl reads it.
	hardeningCase{name: "list", args: []string{"admission", "simulate", "-f", cfg, "--request-file", hardening + "review-list.yaml"}, code: 0,
		wants: []string{"request: CREATE v1 configmaps ns=team-a name=c user=alice groups=dev"}}.run(t)
}

// Strings from the input reach the terminal escaped (ref.Printable): a
// review's username and groups in the table and in explain (issue 28:
// printed raw), a CRD's names.kind in the message that refuses it.
func TestAdmissionEscapes(t *testing.T) {
	cfg := hardening + "config.yaml"
	for _, tc := range []hardeningCase{
		{name: "table", args: []string{"admission", "simulate", "-f", cfg, "--request-file", hardening + "review-escapes.yaml"},
			wants: []string{`user=\x1b[31malice\x1b[0m groups=dev\x1b]0;title\a`}},
		{name: "explain", args: []string{"admission", "explain", "-f", cfg, "--request-file", hardening + "review-escapes.yaml", "check.example.com"},
			wants: []string{`user=\x1b[31malice\x1b[0m`}},
		{name: "request line", args: []string{"admission", "simulate", "-f", cfg, "--request", "CREATE v1 configmaps ns=a user=\u202eevil"},
			wants: []string{`user=\u202eevil`}},
		{name: "crd kind", args: []string{"admission", "simulate", "-f", cfg, "-f", hardening + "crd-kind-escapes.yaml", "--request", "CREATE v1 configmaps ns=a"}, code: 2,
			wants: []string{"crd-kind-escapes.yaml: document 1 (line 10)", "field spec.names.kind", `"Widget\x1b[2J"`}},
		{name: "check", args: []string{"check", hardening + "check-escapes.yaml"}, code: 1,
			wants: []string{`case both\x1b[31mRED\x1b[0m\u202e: mutating hooks called`}},
	} {
		tc.nots = []string{"\x1b", "\u202e"}
		t.Run(tc.name, tc.run)
	}
}

// Configurations and CRDs as the API server would keep them (issue 28):
// two configurations of one kind and name refused, naming both; no
// configuration at all is exit 2, not "allowed"; a CRD not named
// plural.group refused.
func TestAdmissionConfigurationsStrict(t *testing.T) {
	req := []string{"--request", "CREATE v1 configmaps ns=a"}
	for _, tc := range []hardeningCase{
		{name: "duplicate name", args: append([]string{"admission", "simulate", "-f", hardening + "duplicate-name.yaml"}, req...), code: 2,
			wants: []string{"duplicate-name.yaml: document 2 (line 15)", `a second ValidatingWebhookConfiguration named "check"`, "the first: " + hardening + "duplicate-name.yaml: document 1 (line 3)"}},
		{name: "duplicate across files", args: append([]string{"admission", "simulate", "-f", hardening + "config.yaml", "-f", hardening + "config.yaml"}, req...), code: 2,
			wants: []string{`a second ValidatingWebhookConfiguration named "check"`}},
		{name: "no configurations", args: append([]string{"admission", "simulate", "-f", hardening + "no-configurations.yaml"}, req...), code: 2,
			wants: []string{"no webhook configurations in " + hardening + "no-configurations.yaml"}},
		{name: "crd name", args: append([]string{"admission", "simulate", "-f", hardening + "config.yaml", "-f", hardening + "crd-name.yaml"}, req...), code: 2,
			wants: []string{"crd-name.yaml: document 1 (line 5)", "field metadata.name", `must be spec.names.plural+"."+spec.group: "widgets.example.com"`}},
	} {
		t.Run(tc.name, tc.run)
	}
}

// check takes the limit flags its messages name (issue 28: they named
// flags of simulate and admission that check had not), for policy and
// admission scenarios alike.
func TestCheckLimitFlags(t *testing.T) {
	for _, tc := range []hardeningCase{
		{name: "max-depth, policy", args: []string{"check", "--max-depth", "3", "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml"}, code: 2,
			wants: []string{"nested more than 3 levels deep (the limit; --max-depth raises it)"}},
		{name: "max-depth, admission", args: []string{"check", "--max-depth", "3", hardening + "costly-scenario.yaml"}, code: 2,
			wants: []string{"nested more than 3 levels deep (the limit; --max-depth raises it)"}},
		{name: "max-bytes", args: []string{"check", "--max-bytes", "100", hardening + "costly-scenario.yaml"}, code: 2,
			wants: []string{"--max-bytes raises it"}},
		{name: "max-request-cel-cost", args: []string{"check", "--max-request-cel-cost", "1", "../../scenarios/admission/match-conditions.yaml"}, code: 2,
			wants: []string{"cost more than 1 in all", "--max-request-cel-cost raises it"}},
	} {
		t.Run(tc.name, tc.run)
	}
}
