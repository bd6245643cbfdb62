// Package scenarios holds scenario files: real objects plus the outcome a
// spec states, with a citation. This test runs every one of them through the
// reference engine under each semantics it names.
package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/admission"
	"github.com/gepcheck/gepcheck/admission/scenario"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
)

func TestScenarios(t *testing.T) {
	var files []string
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "findings" {
			return filepath.SkipDir // outputs of the property suite, checked by suite/findings.TestFindings
		}
		if d.IsDir() && d.Name() == "envoy-gateway" {
			// Its profiles come with its plug-in: checked by
			// impl/envoygateway.TestCatalogue.
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scenario files found")
	}
	for _, f := range files {
		if strings.HasPrefix(f, "admission/") {
			continue // TestAdmissionScenarios
		}
		t.Run(strings.TrimSuffix(f, ".yaml"), func(t *testing.T) {
			m, err := simulator.LoadFiles([]string{f}, nil, simulator.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if m.Scenario == nil {
				t.Fatalf("%s has no Scenario document", f)
			}
			if m.Scenario.Spec.Citation == "" {
				t.Errorf("%s: spec.citation is empty: every scenario cites its source", f)
			}
			diffs, err := Check(f) // every semantics, every step
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range diffs {
				t.Error(d)
			}
		})
	}
}

// Every admission scenario (scenarios/admission/) holds of the admission
// engine, cites its source, and can fail: each expectation, changed, is
// reported.
func TestAdmissionScenarios(t *testing.T) {
	files, err := filepath.Glob("admission/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no admission scenarios (%v)", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(f, ".yaml"), func(t *testing.T) {
			docs, err := load.Read([]string{f}, nil)
			if err != nil {
				t.Fatal(err)
			}
			s, err := scenario.Read(docs, admission.Builtin())
			if err != nil || s == nil {
				t.Fatalf("not an admission scenario: %v", err)
			}
			diffs, err := Check(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range diffs {
				t.Error(d)
			}
			// A case whose expectation says otherwise is reported.
			chain := admission.Chain(s.Mutating, s.Validating)
			for _, c := range s.Cases {
				c.Expect.Allowed = !c.Expect.Allowed
				if len(c.Check(admission.Predict(chain, c.Request, s.Resources, c.Behave))) == 0 {
					t.Errorf("case %s: the opposite outcome is not reported", c.Name)
				}
			}
		})
	}
}

// A scenario's expectations are checked in the status vocabulary it
// declares (docs/semantics.md, Status vocabularies): both are exercised by
// the catalogue, the same expectations in the other vocabulary fail with a
// message that says why, and an unknown one is an error naming the field.
func TestScenarioVocabulary(t *testing.T) {
	counts := map[string]int{}
	for _, f := range []string{"gep-713/example-2-defaults-and-overrides.yaml", "gep-713/example-2-defaults-and-overrides-draft.yaml", "kuadrant/status-table.yaml"} {
		m, err := simulator.LoadFiles([]string{f}, nil, simulator.Options{})
		if err != nil {
			t.Fatal(err)
		}
		v, err := m.Scenario.Vocabulary()
		if err != nil {
			t.Fatal(err)
		}
		counts[string(v)]++
	}
	if counts["merged"] == 0 || counts["draft"] == 0 {
		t.Errorf("vocabularies exercised: %v, want both", counts)
	}
	src, err := os.ReadFile("gep-713/example-2-defaults-and-overrides-draft.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct{ from, to, want string }{
		// The draft's expectations read as merged's.
		{"  statusVocabulary: draft\n", "", "no Enforced condition: the run writes status vocabulary merged (Programmed)"},
		// Merged's reasons, the draft declared.
		{"reason: PartiallyEnforced", "reason: PartiallyProgrammed", "expected Enforced=True (PartiallyProgrammed), got Enforced=True (PartiallyEnforced)"},
	} {
		changed := strings.Replace(string(src), c.from, c.to, 1)
		if changed == string(src) {
			t.Fatalf("%q not in the file", c.from)
		}
		f := filepath.Join(dir, "x.yaml")
		if err := os.WriteFile(f, []byte(changed), 0o644); err != nil {
			t.Fatal(err)
		}
		diffs, err := Check(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(diffs, "\n"), c.want) {
			t.Errorf("replacing %q: diffs %q, want one containing %q", c.from, diffs, c.want)
		}
	}
	f := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(f, []byte(strings.Replace(string(src), "statusVocabulary: draft", "statusVocabulary: enforced", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Check(f); err == nil || !strings.Contains(err.Error(), "spec.statusVocabulary") || !strings.Contains(err.Error(), "bad.yaml") {
		t.Errorf("unknown vocabulary: %v, want an error naming the file and spec.statusVocabulary", err)
	}
}
