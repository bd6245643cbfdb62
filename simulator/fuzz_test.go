package simulator

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

// FuzzSimulate feeds arbitrary bytes through the whole pipeline (load →
// topology → engine) under both semantics: bad input must give an error,
// never a panic.
func FuzzSimulate(f *testing.F) {
	files, _ := filepath.Glob("../scenarios/*/*.yaml")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b, false)
		}
	}
	f.Add([]byte("apiVersion: v1\nkind: Service\nmetadata: {name: x}\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, withProfile bool) {
		var opts Options
		if withProfile {
			opts.Profiles = []string{"color-inherited"}
		}
		m, err := LoadFiles([]string{"-"}, bytes.NewReader(data), opts)
		if err != nil {
			return
		}
		for _, sem := range []engine.Semantics{engine.StickyOverrides, engine.GEP713} {
			out := m.Run(sem, nil)
			for _, p := range out.Policies {
				if _, err := m.ExplainPolicy(sem, mustParse(t, p.Ref)); err != nil {
					t.Fatalf("explain %s: %v", p.Ref, err)
				}
			}
		}
	})
}

func mustParse(t *testing.T, s string) ref.Ref {
	t.Helper()
	r, err := ref.Parse(s)
	if err != nil {
		t.Fatalf("output ref %q does not parse: %v", s, err)
	}
	return r
}
