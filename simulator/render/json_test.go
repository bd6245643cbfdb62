package render

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// outputJSON writes the bytes json.Encoder with SetIndent("", "  ") writes,
// on every scenario of the catalogue under both semantics, on outputs
// with empty lists and with warnings, and on names and values that JSON
// escapes.
func TestOutputJSON(t *testing.T) {
	var outs []*simulator.Output
	files, _ := filepath.Glob("../../scenarios/*/*.yaml")
	for _, f := range files {
		if strings.Contains(f, "/envoy-gateway/") || strings.Contains(f, "/admission/") {
			continue // its profiles come with its plug-in, not linked here; admission scenarios are no policies'
		}
		m, err := simulator.LoadFiles([]string{f}, nil, simulator.Options{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, sem := range []engine.Semantics{engine.StickyOverrides, engine.GEP713} {
			outs = append(outs, m.Run(sem, nil))
		}
	}
	if len(outs) < 40 {
		t.Fatalf("only %d outputs", len(outs))
	}
	outs = append(outs,
		&simulator.Output{Semantics: engine.GEP713, EffectivePolicies: []engine.EffectivePolicy{}, Policies: []engine.PolicyStatus{}, Targets: []engine.TargetStatus{}},
		&simulator.Output{Semantics: "a<b>&\"c\"", EffectivePolicies: []engine.EffectivePolicy{{PolicyKind: "K", Path: []string{"x\u2028y"}, Spec: map[string]any{"k<": []any{1.5, nil, "\t"}}}}, Policies: []engine.PolicyStatus{}, Targets: []engine.TargetStatus{}, Warnings: []string{"w1", "<w2>"}},
	)
	for i, out := range outs {
		var want, got bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			t.Fatal(err)
		}
		if err := outputJSON(&got, out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want.Bytes(), got.Bytes()) {
			w, g := strings.Split(want.String(), "\n"), strings.Split(got.String(), "\n")
			for k := range min(len(w), len(g)) {
				if w[k] != g[k] {
					t.Fatalf("output %d, line %d:\nwant %q\n got %q", i, k+1, w[k], g[k])
				}
			}
			t.Fatalf("output %d: %d lines, want %d", i, len(g), len(w))
		}
	}
}
