package main

import (
	"bytes"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/shlex"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator"
)

// Bad input gets an error naming file, document and field, exit code 2, and
// no panic.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		file string
		args []string
		want []string
	}{
		{"malformed-yaml.yaml", nil, []string{"malformed-yaml.yaml", "document 2"}},
		{"unknown-field.yaml", nil, []string{"unknown-field.yaml", "document 1", "rulez"}},
		{"wrong-type.yaml", nil, []string{"wrong-type.yaml", "document 1", "spec.listeners"}},
		{"no-targetrefs.yaml", []string{"--profile", "color-direct"}, []string{"no-targetrefs.yaml", "document 2", "spec.targetRefs"}},
		{"duplicate.yaml", nil, []string{"duplicate.yaml", "document 2", "duplicate", "document 1"}},
		{"none-combined.yaml", nil, []string{"none-combined.yaml", "document 1", "spec.mergeStrategies", "None"}},
		{"bad-timestamp.yaml", []string{"--profile", "color-direct"}, []string{"bad-timestamp.yaml", "document 2", "metadata.creationTimestamp"}},
		{"missing-kind.yaml", nil, []string{"missing-kind.yaml", "document 1", "kind"}},
		{"bad-targetref.yaml", []string{"--profile", "color-direct"}, []string{"bad-targetref.yaml", "document 1", "spec.targetRefs[0].name"}},
		// Nothing to simulate is an error, not empty tables.
		{"../empty/empty.yaml", []string{"--profile", "color-direct"}, []string{"holds no objects"}},
		{"../empty/only-separators.yaml", []string{"--profile", "color-direct"}, []string{"holds no objects"}},
		{"no-targetrefs.yaml", []string{"--profile", "color-direct", "--max-bytes", "10"}, []string{"no-targetrefs.yaml", "limit of 10", "--max-bytes"}},
		{"duplicate.yaml", []string{"--max-documents", "1"}, []string{"duplicate.yaml", "document 2", "more than 1 documents"}},
		// A generic Topology of 41 layers of two objects, every object
		// linked to both of the next layer: 2^40 paths, refused before a
		// walk (it used to run out of memory).
		{"../limits/paths-2-40.yaml", nil, []string{"more than 5000000 path prefixes", "--max-paths"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			args := append([]string{"simulate", "-f", "testdata/bad/" + tc.file}, tc.args...)
			var stdout, stderr bytes.Buffer
			code := run(args, strings.NewReader(""), &stdout, &stderr)
			if code != exitcode.BadInput {
				t.Fatalf("exit code %d, want %d; stderr:\n%s", code, exitcode.BadInput, stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr does not name %q:\n%s", w, stderr.String())
				}
			}
		})
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"check", "testdata/empty-dir-does-not-exist"},
		{"fuzz", "--profile", "nope", "--checks", "1"},
		{"run", "--impl", "exec", "--exec-command", "./no-such-command", "../../scenarios/gep-713/example-1-direct.yaml"},
		{"run", "--impl", "reference", "--musts", "../../scenarios/gep-713/example-1-direct.yaml"}, // the MUST checks need a cluster
		{"simulate", "-f", "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml", "--max-bytes", "0"},
		{"simulate"},
		{"simulate", "-f", "testdata/does-not-exist.yaml"},
		{"simulate", "-f", "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml", "--semantics", "newest-wins"},
		{"simulate", "-f", "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml", "-o", "xml"},
		{"simulate", "-f", "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml", "--profile", "no-such-profile"},
		{"explain", "-f", "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml"},
		{"explain", "-f", "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml", "--target", "Nope"},
		{"explain", "-f", "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml", "--policy", "ColorPolicy/default/p9"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, strings.NewReader(""), &stdout, &stderr); code != exitcode.BadInput {
			t.Errorf("%v: exit code %d, want %d; stderr: %s", args, code, exitcode.BadInput, stderr.String())
		}
	}
}

// The JSON output has the documented shape (docs/output.md) and reads back.
func TestSimulateJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"simulate", "-f", "-", "-o", "json", "--profile", "color-inherited"},
		strings.NewReader(example2Stdin(t)), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var out simulator.Output
	dec := json.NewDecoder(&stdout)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	if len(out.EffectivePolicies) != 4 {
		t.Fatalf("got %d effective policies, want 4 (GEP-713 Example 2 has four paths)", len(out.EffectivePolicies))
	}
	e := out.EffectivePolicies[0]
	if strings.Join(e.Path, " ") != "Gateway/default/g1 HTTPRoute/default/r1 Service/default/b1" || e.Provenance["color"] != "ColorPolicy/default/p2" {
		t.Errorf("first path %v provenance %v", e.Path, e.Provenance)
	}
}

func example2Stdin(t *testing.T) string {
	t.Helper()
	data, err := readFile("../../scenarios/gep-713/example-2-defaults-and-overrides.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestExplain(t *testing.T) {
	f := "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml"
	var stdout, stderr bytes.Buffer
	if code := run([]string{"explain", "-f", f, "--target", "Service/default/b1", "-o", "json"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var x simulator.TargetExplanation
	if err := json.Unmarshal(stdout.Bytes(), &x); err != nil {
		t.Fatal(err)
	}
	// GEP-713 Example 2: "Status of Backend b1 should be reported as
	// affected by the ColorPolicy resources p1, p2 and p3", through three
	// paths (g1>r1, g1>r2, g2>r3).
	if len(x.Paths) != 3 || strings.Join(x.AffectedBy, ",") != "ColorPolicy/default/p1,ColorPolicy/default/p2,ColorPolicy/default/p3" {
		t.Errorf("paths %d, affected by %v", len(x.Paths), x.AffectedBy)
	}
	stdout.Reset()
	if code := run([]string{"explain", "-f", f, "--policy", "ColorPolicy/default/p3", "-o", "json"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var p simulator.PolicyExplanation
	if err := json.Unmarshal(stdout.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	// Deleting p3 (overrides yellow at g2) lets g2>r3>b1 lose its colour and
	// g2>r4>b2 fall back to p4's green.
	if p.StackedOn != 2 || len(p.InEffectOn) != 2 || len(p.IfDeleted) != 2 {
		t.Fatalf("stacked on %d, in effect on %d, changes %d: %+v", p.StackedOn, len(p.InEffectOn), len(p.IfDeleted), p.IfDeleted)
	}
	if got := p.IfDeleted[1].After; !jsonEq(got, map[string]any{"color": "green"}) {
		t.Errorf("after deleting p3, g2>r4>b2 = %v, want green", got)
	}
	if p.IfDeleted[0].After != nil {
		t.Errorf("after deleting p3, g2>r3>b1 = %v, want no effective policy", p.IfDeleted[0].After)
	}
}

// check with no scenario files is bad input, not "0 passed, 0 failed".
func TestCheckNothing(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"check", t.TempDir()}, strings.NewReader(""), &stdout, &stderr); code != exitcode.BadInput || !strings.Contains(stderr.String(), "no scenario files") {
		t.Errorf("exit %d, stderr %q; want exit %d naming the missing scenario files", code, stderr.String(), exitcode.BadInput)
	}
}

// docs/output.md's example is the JSON simulate prints: it decodes strictly
// (no field the output does not have) into simulate's type, and every
// top-level field of the real output of GEP-713 Example 2 is in it.
func TestOutputDocExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/output.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```json\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/output.md has no ```json example")
	}
	var documented simulator.Output
	dec := json.NewDecoder(strings.NewReader(example))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&documented); err != nil {
		t.Fatalf("docs/output.md's example is not simulate's JSON: %v", err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"simulate", "-f", "-", "-o", "json", "--profile", "color-inherited"}, strings.NewReader(example2Stdin(t)), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var real, doct map[string]any
	_ = json.Unmarshal(stdout.Bytes(), &real)
	_ = json.Unmarshal([]byte(example), &doct)
	for k := range real {
		if _, ok := doct[k]; !ok {
			t.Errorf("simulate prints %q, which docs/output.md's example does not show", k)
		}
	}
	if len(documented.Policies) == 0 || len(documented.Policies[0].Beaten) == 0 || documented.Policies[0].Beaten[0].Paths == 0 {
		t.Errorf("the documented beaten entry does not decode into {field, by, paths, examples}: %+v", documented.Policies)
	}
}

// Exit codes tell bad input (2) from a disagreement (1) and from a run that
// could not finish (3): a cluster that does not answer is not the user's
// input, a kubeconfig that does not exist is.
func TestExitCodes(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
users: [{name: u, user: {token: x}}]
current-context: c
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"no-such-command"}, exitcode.BadInput},
		{[]string{"simulate", "--no-such-flag"}, exitcode.BadInput},
		{[]string{"simulate", "extra-argument"}, exitcode.BadInput},
		{[]string{"clean", "--kubeconfig", filepath.Join(t.TempDir(), "missing")}, exitcode.BadInput},
		{[]string{"clean", "--kubeconfig", kubeconfig}, exitcode.Internal},
		// Flag values checked by an implementation's plug-in.
		{[]string{"egctl", "--egctl-build", "nope"}, exitcode.BadInput},
		{[]string{"run", "--impl", "exec", "../../scenarios/gep-713/example-1-direct.yaml"}, exitcode.BadInput},
		{[]string{"run", "--impl", "reference", "--semantics", "nope", "../../scenarios/gep-713/"}, exitcode.BadInput},
		{[]string{"fuzz", "--impl", "reference", "--profile", "color-inherited", "--semantics", "nope"}, exitcode.BadInput},
		{[]string{"fuzz", "--coverage", "--checks", "1"}, exitcode.BadInput},
		{[]string{"fuzz", "--impl", "reference", "--profile", "color-inherited", "--coverage", "--checks", "1"}, exitcode.BadInput},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, strings.NewReader(""), &stdout, &stderr); code != tc.want {
			t.Errorf("%v: exit %d, want %d; stderr: %s", tc.args, code, tc.want, stderr.String())
		}
	}
}

// run and fuzz judge an implementation by the semantics it claims
// (--semantics): the reference claiming gep713 runs gep713-only scenarios
// and skips sticky-overrides-only ones, and agrees with itself either way.
func TestRunAndFuzzFollowTheClaim(t *testing.T) {
	for _, tc := range []struct{ claim, ran, skipped string }{
		{"", "overrides-three-levels-sticky-overrides.yaml", "overrides-three-levels-gep713.yaml (holds under gep-713; reference claims sticky-overrides)"},
		// gep713, the older spelling, is read; the output spells gep-713.
		{"gep713", "overrides-three-levels-gep713.yaml", "overrides-three-levels-sticky-overrides.yaml (holds under sticky-overrides; reference claims gep-713)"},
		{"gep-713", "overrides-three-levels-gep713.yaml", "overrides-three-levels-sticky-overrides.yaml (holds under sticky-overrides; reference claims gep-713)"},
	} {
		args := []string{"run", "--impl", "reference", "../../scenarios/gep-713/"}
		if tc.claim != "" {
			args = append(args, "--semantics", tc.claim)
		}
		var stdout, stderr bytes.Buffer
		if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s%s", args, code, stdout.String(), stderr.String())
		}
		out := stdout.String()
		if !strings.Contains(out, "agree     ../../scenarios/gep-713/"+tc.ran) || !strings.Contains(out, "skip      ../../scenarios/gep-713/"+tc.skipped) {
			t.Errorf("%v:\n%s", args, out)
		}
	}
	var stdout, stderr bytes.Buffer
	args := []string{"fuzz", "--impl", "reference", "--profile", "color-inherited", "--semantics", "gep713", "--checks", "50", "--seed", "1", "--out", t.TempDir()}
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Errorf("%v: exit %d: %s%s", args, code, stdout.String(), stderr.String())
	}
}

// A differential fuzz run against an exec implementation prints a replay
// command that replays it (it once named a property no registry holds)
// and writes its counterexample under a file name without a colon.
func TestFuzzExecReplays(t *testing.T) {
	if _, err := osexec.LookPath("python3"); err != nil {
		t.Skip("python3 not found: the example implementation is a Python script")
	}
	t.Setenv("GEPCHECK_EXAMPLE_BROKEN", "newest-wins")
	fuzz := func(args []string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args = append(args, "--out", t.TempDir(), "--shrink-time", "2s")
		if code := run(args, strings.NewReader(""), &stdout, &stderr); code != exitcode.Failed {
			t.Fatalf("%v: exit %d, want %d: %s%s", args, code, exitcode.Failed, stdout.String(), stderr.String())
		}
		return stdout.String()
	}
	// The example writes merged GEP-713's status vocabulary (Programmed).
	out := fuzz([]string{"fuzz", "--impl", "exec", "--exec-command", "../../docs/examples/colorpolicy-direct.py", "--profile", "color-direct", "--checks", "30", "--seed", "3"})
	var replay []string
	for _, l := range strings.Split(out, "\n") {
		if f, ok := strings.CutPrefix(strings.TrimSpace(l), "counterexample: "); ok && strings.Contains(filepath.Base(f), ":") {
			t.Errorf("counterexample file name has a colon: %s", f)
		}
		if r, ok := strings.CutPrefix(strings.TrimSpace(l), "replay:"); ok {
			var err error
			if replay, err = shlex.Split(strings.TrimSpace(r)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(replay) < 2 || replay[0] != "gepcheck" {
		t.Fatalf("no replay command in:\n%s", out)
	}
	if again := fuzz(replay[1:]); !strings.Contains(again, "disagrees with the reference") {
		t.Errorf("the replay %v did not show the disagreement:\n%s", replay, again)
	}
}

// Bad input to gepcheck admission and to gepcheck check of an admission
// scenario: exit 2, the file, document and field named, no panic.
func TestAdmissionBadInput(t *testing.T) {
	cfg := "../../scenarios/admission/failure-policy.yaml"
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"admission", "simulate", "-f", "../../admission/testdata/bad.yaml", "--request", "CREATE v1 pods ns=a"}, []string{"bad.yaml", "document 1", "webhooks[0].rules[0].resources"}},
		{[]string{"admission", "simulate", "-f", "testdata/admission/bad-crd.yaml", "--request", "CREATE v1 pods ns=a"}, []string{"bad-crd.yaml", "document 1", "spec.scope", "want Namespaced or Cluster"}},
		{[]string{"admission", "simulate", "-f", cfg, "--request", "GET v1 pods"}, []string{"--request", "operation \"GET\""}},
		{[]string{"admission", "simulate", "-f", cfg, "--request", "UPDATE apps/v1 deployments/scale ns=a labels=app=web"}, []string{"--request", "a Scale has none"}},
		{[]string{"admission", "simulate", "-f", cfg, "--request", "CREATE v1 configmaps ns=a", "--down", "nope.example.com"}, []string{"--down nope.example.com", "no such webhook"}},
		{[]string{"admission", "simulate", "-f", cfg, "--request", "CREATE v1 configmaps ns=a", "--patch", "check-1.example.com"}, []string{"--patch check-1.example.com", "a validating webhook may not patch"}},
		{[]string{"admission", "explain", "-f", cfg, "--request", "CREATE v1 configmaps ns=a", "nope.example.com"}, []string{"no hook \"nope.example.com\""}},
		{[]string{"check", "testdata/admission/bad-scenario.yaml"}, []string{"bad-scenario.yaml", "document 1", "spec.cases[0].behave.hook.example.com", "sleepy"}},
	} {
		t.Run(strings.Join(tc.args[:2], " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
			if code != exitcode.BadInput {
				t.Fatalf("%v: exit code %d, want %d; stderr:\n%s", tc.args, code, exitcode.BadInput, stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("%v: stderr does not name %q:\n%s", tc.args, w, stderr.String())
				}
			}
		})
	}
}
