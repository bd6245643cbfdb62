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
)

func TestScenarios(t *testing.T) {
	var files []string
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "findings" {
			return filepath.SkipDir // outputs of the property suite, checked by suite.TestFindings
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
