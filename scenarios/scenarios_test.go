// Package scenarios holds scenario files: real objects plus the outcome a
// spec states, with a citation. This test runs every one of them through the
// reference engine under each semantics it names.
package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/admission"
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
			// suite/impl/envoygateway.TestCatalogue.
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
			s, err := admission.ReadScenario(docs, admission.Builtin())
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
