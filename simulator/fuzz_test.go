package simulator

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

// fuzzLimits keep each input of FuzzSimulate cheap, so that a minute
// reaches thousands of inputs: the pipeline's behaviour at its limits is
// what the corpus and limits tests check.
var fuzzLimits = load.Limits{MaxBytes: 16 << 10, MaxDocuments: 40, MaxPaths: 400, MaxDepth: 30}

// fuzzExplained bounds how many targets and policies each input explains.
const fuzzExplained = 3

// FuzzSimulate feeds arbitrary bytes through the whole pipeline (load →
// topology → engine) under both semantics: bad input must give an error,
// never a panic; explain works on every policy and affected object, and
// Decide agrees with the engine, the same on every call. Run it with a
// short -fuzzminimizetime (make fuzz): Go's default minimizes each new
// input for a minute.
func FuzzSimulate(f *testing.F) {
	files, _ := filepath.Glob("../scenarios/*/*.yaml")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil && len(b) <= 8<<10 {
			f.Add(b, false)
		}
	}
	f.Add([]byte("apiVersion: v1\nkind: Service\nmetadata: {name: x}\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, withProfile bool) {
		opts := Options{Limits: fuzzLimits}
		if withProfile {
			opts.Profiles = []string{"color-inherited"}
		}
		m, err := LoadFiles([]string{"-"}, bytes.NewReader(data), opts)
		if err != nil {
			return
		}
		for _, sem := range []engine.Semantics{engine.StickyOverrides, engine.GEP713} {
			out := m.RunDecisions(sem)
			for _, e := range out.EffectivePolicies {
				checkDecide(t, m, out, e)
			}
			for _, ts := range out.Targets[:min(len(out.Targets), fuzzExplained)] {
				if _, err := m.Explain(out, mustParse(t, ts.Ref)); err != nil {
					t.Fatalf("explain %s: %v", ts.Ref, err)
				}
			}
			for _, p := range out.Policies[:min(len(out.Policies), fuzzExplained)] {
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

// checkDecide checks Decide on one path: the same answer twice, winners
// from the provenance, and every field not in effect of a policy stacked on
// the path, beaten by a named policy.
func checkDecide(t *testing.T, m *Model, out *Output, e engine.EffectivePolicy) {
	t.Helper()
	d := m.Decide(out, e)
	if again := m.Decide(out, e); !reflect.DeepEqual(d, again) {
		t.Fatalf("%v: Decide differs between calls:\n%+v\n%+v", e.Path, d, again)
	}
	if len(d.Fields) != len(e.Provenance) {
		t.Fatalf("%v: %d field decisions for %d fields", e.Path, len(d.Fields), len(e.Provenance))
	}
	for _, f := range d.Fields {
		if e.Provenance[f.Field] != f.From {
			t.Fatalf("%v: %s from %s, provenance says %s", e.Path, f.Field, f.From, e.Provenance[f.Field])
		}
	}
	for _, u := range d.NotInEffect {
		if !slices.Contains(e.Policies, u.Policy) {
			t.Fatalf("%v: %s of %s not in effect, but the policy is not stacked on the path", e.Path, u.Field, u.Policy)
		}
		if !strings.HasPrefix(u.Reason, "beaten by ") && !strings.HasPrefix(u.Reason, "unset by ") {
			t.Fatalf("%v: %s of %s not in effect: %q names no policy", e.Path, u.Field, u.Policy, u.Reason)
		}
	}
}
