package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// stepStates writes every state of a step scenario to a file of its own
// (the objects as they are after the step, creationTimestamps as
// simulator.States gives them), in reverse document order too, and
// returns the states and the two lists of files.
func stepStates(t *testing.T, file string) ([]simulator.State, []string, []string, []string) {
	t.Helper()
	docs, err := load.Read([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	states, models, err := simulator.StateModels(docs, simulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var files, reversed []string
	for _, st := range states {
		for j, ds := range [][]*load.Doc{st.Docs, reverse(st.Docs)} {
			text, err := load.Marshal(ds)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, []string{"", "rev-"}[j]+st.Name+".yaml")
			if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			if j == 0 {
				files = append(files, p)
			} else {
				reversed = append(reversed, p)
			}
		}
	}
	return states, files, reversed, models[0].Scenario.Spec.Profiles
}

// gepcheck diff OLD NEW on the states of the step scenarios gives the
// changes their expect blocks state, every step (deletions too), in JSON
// (scenarios.CheckStepDiff; docs/diff.md), the same bytes whatever the
// document order; the states given the other way round are caught.
func TestDiffFiles(t *testing.T) {
	steps := 0
	for _, f := range []string{"../../scenarios/gep-713/steps-inherited-over-time.yaml", "../../scenarios/gep-713/steps-direct-conflict-over-time.yaml", "../../scenarios/gateway-api/backendtlspolicy-conformance-backendtlspolicy.yaml"} {
		states, files, reversed, profiles := stepStates(t, f)
		var flags []string
		for _, p := range profiles {
			flags = append(flags, "--profile", p)
		}
		for i := 1; i < len(states); i++ {
			steps++
			diff := func(old, new, format string) []byte {
				var stdout, stderr bytes.Buffer
				if code := run(append([]string{"diff", old, new, "-o", format}, flags...), nil, &stdout, &stderr); code != 0 {
					t.Fatalf("%s step %d: exit %d: %s", f, i, code, stderr.String())
				}
				return stdout.Bytes()
			}
			var d simulator.StateDiff
			if err := json.Unmarshal(diff(files[i-1], files[i], "json"), &d); err != nil {
				t.Fatal(err)
			}
			for _, p := range scenarios.CheckStepDiff(states[i-1].Expect, states[i].Expect, &d) {
				t.Errorf("%s step %d: %s", f, i, p)
			}
			var swapped simulator.StateDiff
			if err := json.Unmarshal(diff(files[i], files[i-1], "json"), &swapped); err != nil {
				t.Fatal(err)
			}
			if len(scenarios.CheckStepDiff(states[i-1].Expect, states[i].Expect, &swapped)) == 0 {
				t.Errorf("%s step %d: OLD and NEW swapped, and no problem found", f, i)
			}
			for _, format := range []string{"table", "markdown", "json"} {
				if a, b := diff(files[i-1], files[i], format), diff(reversed[i-1], reversed[i], format); !bytes.Equal(a, b) {
					t.Errorf("%s step %d -o %s: the output depends on document order:\n%s\n---\n%s", f, i, format, a, b)
				}
			}
		}
	}
	if steps < 8 {
		t.Errorf("%d steps, want at least 8", steps)
	}
}

// --fail-on trips exit 1 on diff and simulate, names what tripped, and
// takes only its values (changed: diff only).
func TestFailOn(t *testing.T) {
	_, files, _, _ := stepStates(t, "../../scenarios/gep-713/steps-inherited-over-time.yaml")
	ex2 := "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml"
	for _, tc := range []struct {
		args []string
		want int
		says string
	}{
		{[]string{"diff", files[0], files[1], "--profile", "color-inherited", "--fail-on", "changed"}, exitcode.Failed, "changed"},
		{[]string{"diff", files[0], files[0], "--profile", "color-inherited", "--fail-on", "changed"}, exitcode.OK, ""},
		// Step 1: rp comes, gp is Overridden (GEP-713, Policy status).
		{[]string{"diff", files[0], files[1], "--profile", "color-inherited", "--fail-on", "conflicted,overridden"}, exitcode.Failed, "Overridden: ColorPolicy/default/gp (policy, Programmed)"},
		{[]string{"diff", files[1], files[0], "--profile", "color-inherited", "--fail-on", "overridden"}, exitcode.OK, ""},
		{[]string{"simulate", "-f", ex2, "--fail-on", "overridden"}, exitcode.Failed, "Overridden: ColorPolicy/default/p4 (policy, Programmed)"},
		{[]string{"simulate", "-f", ex2, "--fail-on", "conflicted", "--fail-on", "invalid,targetnotfound"}, exitcode.OK, ""},
		{[]string{"simulate", "-f", "../../scenarios/gep-713/steps-direct-conflict-over-time.yaml", "--fail-on", "conflicted"}, exitcode.OK, ""},
		{[]string{"simulate", "-f", ex2, "--fail-on", "changed"}, exitcode.BadInput, "only gepcheck diff"},
		{[]string{"simulate", "-f", ex2, "--fail-on", "nope"}, exitcode.BadInput, "one of changed"},
		{[]string{"diff", files[0]}, exitcode.BadInput, "pass OLD and NEW"},
		{[]string{"diff", files[0], files[1], "-o", "html"}, exitcode.BadInput, "--output"},
		{[]string{"diff", "-", "-"}, exitcode.BadInput, "both be -"},
		{[]string{"diff", "--from-cluster"}, exitcode.BadInput, "-f FILE"},
		{[]string{"diff", files[0], files[1], "--delete", files[0]}, exitcode.BadInput, "--delete deletes from the cluster's state: pass --from-cluster"},
		{[]string{"diff", "--from-cluster", "--delete", "-", "-f", "-"}, exitcode.BadInput, "cannot both be read from standard input"},
		{[]string{"simulate", "-f", ex2, "-n", "team-a"}, exitcode.BadInput, "pass --from-cluster too"},
		{[]string{"explain", "-f", ex2, "--target", "Service/default/b1", "-A"}, exitcode.BadInput, "pass --from-cluster too"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.want || !strings.Contains(stderr.String(), tc.says) {
			t.Errorf("%v: exit %d, want %d; stderr %q, want it to say %q", tc.args, code, tc.want, stderr.String(), tc.says)
		}
	}
}

// A cluster that does not answer is exit 3, not bad input.
func TestFromClusterUnreachable(t *testing.T) {
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
	for _, args := range [][]string{
		{"simulate", "--from-cluster", "--kubeconfig", kubeconfig},
		{"diff", "--from-cluster", "--kubeconfig", kubeconfig, "-f", "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, strings.NewReader(""), &stdout, &stderr); code != exitcode.Internal {
			t.Errorf("%v: exit %d, want %d: %s", args, code, exitcode.Internal, stderr.String())
		}
	}
}

func reverse(docs []*load.Doc) []*load.Doc {
	r := slices.Clone(docs)
	slices.Reverse(r)
	return r
}

// diff prints the warnings of the states it reads on standard error, as
// simulate does (docs/input.md, Warnings): a kind ignored and a duplicate
// of it ignored, each once although both states hold them.
func TestDiffWarnings(t *testing.T) {
	before, err := os.ReadFile("../../docs/examples/diff/before.yaml")
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(t.TempDir(), "state.yaml")
	deployment := "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: default}\n"
	if err := os.WriteFile(state, append(before, deployment+deployment...), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"diff", state, state, "--profile", "color-inherited"}, nil, &stdout, &stderr); code != exitcode.OK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"kind Deployment ignored", "duplicate object Deployment default/d"} {
		if n := strings.Count(stderr.String(), want); n != 1 {
			t.Errorf("stderr says %q %d times, want once:\n%s", want, n, stderr.String())
		}
	}
}
