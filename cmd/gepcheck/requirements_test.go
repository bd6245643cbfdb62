package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/suite/requirements"
)

// runRequirements runs `gepcheck requirements ARGS` on the command alone
// (main.go registers it with the root).
func runRequirements(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := newRequirements(&stdout)
	cmd.SetArgs(args)
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return stdout.String(), err
}

func decodeRequirements(t *testing.T, out string) []requirements.Listed {
	t.Helper()
	var got []requirements.Listed
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("output does not decode: %v\n%s", err, out)
	}
	return got
}

func TestRequirementsJSON(t *testing.T) {
	all, err := requirements.Load()
	if err != nil {
		t.Fatal(err)
	}
	out, err := runRequirements(t, "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	got := decodeRequirements(t, out)
	if len(got) != len(all) {
		t.Fatalf("%d entries, want %d (requirements.Load)", len(got), len(all))
	}
	for i, r := range got {
		if r.ID != all[i].ID || r.Quote != all[i].Quote || r.Spec != all[i].Spec {
			t.Errorf("entry %d is %s (%s), want %s (%s)", i, r.ID, r.Spec, all[i].ID, all[i].Spec)
		}
		if r.Status != all[i].Status() || r.Status == "" {
			t.Errorf("%s: status %q, want %q", r.ID, r.Status, all[i].Status())
		}
	}

	// --spec keeps one spec.
	out, err = runRequirements(t, "-o", "json", "--spec", "gep-2649")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range all {
		if r.Spec == "gep-2649" {
			n++
		}
	}
	got = decodeRequirements(t, out)
	if len(got) != n || n == 0 {
		t.Errorf("--spec gep-2649: %d entries, want %d", len(got), n)
	}
	for _, r := range got {
		if r.Spec != "gep-2649" {
			t.Errorf("--spec gep-2649 lists %s of %s", r.ID, r.Spec)
		}
	}
}

// --uncovered lists the pending (and partial) requirements only, all of them.
func TestRequirementsUncovered(t *testing.T) {
	all, err := requirements.Load()
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, r := range all {
		if r.Pending != "" {
			want++
		}
	}
	out, err := runRequirements(t, "-o", "json", "--uncovered")
	if err != nil {
		t.Fatal(err)
	}
	got := decodeRequirements(t, out)
	if len(got) != want || want == 0 {
		t.Errorf("--uncovered: %d entries, want the %d with pending", len(got), want)
	}
	for _, r := range got {
		if r.Pending == "" || (r.Status != requirements.Pending && r.Status != requirements.Partial) {
			t.Errorf("--uncovered lists %s, status %s, pending %q", r.ID, r.Status, r.Pending)
		}
	}

	table, err := runRequirements(t, "--uncovered")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		listed := strings.Contains(table, "\n"+r.ID+" ")
		if listed != (r.Pending != "") {
			t.Errorf("table --uncovered: %s listed=%v, status %s", r.ID, listed, r.Status())
		}
	}
}

func TestRequirementsTable(t *testing.T) {
	all, err := requirements.Load()
	if err != nil {
		t.Fatal(err)
	}
	out, err := runRequirements(t)
	if err != nil {
		t.Fatal(err)
	}
	summary, lines, ok := strings.Cut(out, "\n\n")
	if !ok {
		t.Fatalf("no blank line between summary and list:\n%s", out)
	}
	if !strings.HasPrefix(summary, "SPEC") || !strings.Contains(summary, "UNTESTABLE") {
		t.Errorf("summary header missing:\n%s", summary)
	}
	for _, spec := range requirements.Specs {
		if !strings.Contains(summary, "\n"+spec+" ") {
			t.Errorf("summary has no row for %s:\n%s", spec, summary)
		}
	}
	rows := strings.Split(strings.TrimSpace(lines), "\n")
	if len(rows) != len(all)+1 {
		t.Fatalf("%d requirement lines, want %d", len(rows)-1, len(all))
	}
	for i, r := range all {
		f := strings.Fields(rows[i+1])
		if len(f) < 4 || f[0] != r.ID || !strings.Contains(rows[i+1], string(r.Status())) {
			t.Errorf("line %q, want %s %s %s", rows[i+1], r.ID, r.Level, r.Status())
		}
	}
}

func TestRequirementsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-o", "xml"},
		{"--spec", "gep-9999"},
		{"extra-arg"}, // not a requirement ID
	} {
		_, err := runRequirements(t, args...)
		if err == nil {
			t.Errorf("%v: no error", args)
			continue
		}
		var ie exitcode.Input
		if len(args) == 2 && !errors.As(err, &ie) {
			t.Errorf("%v: %v is not an input error (exit code 2)", args, err)
		}
	}
}
