package generators

import (
	"bytes"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// The fast path (Model) and the YAML a user reads agree for the inherited
// generators too.
func TestInheritedModelMatchesYAML(t *testing.T) {
	for name, g := range map[string]*rapid.Generator[*Scenario]{
		"kuadrant":    KuadrantScenarios(InheritedConfig{}),
		"field-level": FieldLevelScenarios(InheritedConfig{}),
	} {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				s := g.Draw(rt, "scenario")
				m, err := s.Model()
				if err != nil {
					rt.Fatal(err)
				}
				y, err := simulator.LoadFiles([]string{"-"}, bytes.NewReader(s.YAML()), simulator.Options{})
				if err != nil {
					rt.Fatalf("%v\n%s", err, s.YAML())
				}
				for _, sem := range []engine.Semantics{engine.StickyOverrides, engine.GEP713} {
					a, b := mustJSON(rt, m.Run(sem, nil)), mustJSON(rt, y.Run(sem, nil))
					if a != b {
						rt.Fatalf("Model and YAML disagree:\n%s\n%s", a, b)
					}
				}
			})
		})
	}
}

func mustJSON(t *rapid.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
