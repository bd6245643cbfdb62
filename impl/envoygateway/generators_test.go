package envoygateway

import (
	"bytes"
	"testing"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// Envoy Gateway scenarios load and reach the route rules through the
// envoy-gateway-backendtrafficpolicy profile.
func TestBackendTrafficScenarios(t *testing.T) {
	g := BackendTrafficScenarios("case-1", 4)
	for seed := 0; seed < 50; seed++ {
		s := g.Example(seed)
		m, err := simulator.LoadFiles([]string{"-"}, bytes.NewReader(s.YAML()), simulator.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, s.YAML())
		}
		exists := false // some policy targets an object of the scenario
		for _, p := range s.Policies {
			for _, tg := range p.Targets {
				exists = exists || tg != missingRoute
			}
		}
		if out := m.Run("", nil); exists && len(out.EffectivePolicies) == 0 {
			t.Errorf("seed %d: no effective policy", seed)
		}
	}
}

// Every state of Envoy Gateway's random step cases (gepcheck fuzz --steps)
// is one the API server stores: a step that gives a policy another's
// targets gives it that policy's mergeType too, as the built-in CRD allows
// mergeType on xRoute targets only (x-kubernetes-validations of
// BackendTrafficPolicy: "mergeType can only be used with xRoute targets").
// Before generators.Cases moved mergeType with the targets, seed 1 drew
// 4 such cases in 50 (a retarget or a spec update onto a Gateway).
func TestSteppedBackendTrafficStatesStore(t *testing.T) {
	g := generators.Cases(BackendTrafficScenarios("case-1", 4), 3)
	for seed := 0; seed < 200; seed++ {
		c := g.Example(seed)
		docs, err := load.Read([]string{"-"}, bytes.NewReader(c.YAML()))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		m, err := simulator.Build(docs, simulator.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		states, err := simulator.States(docs, m.Scenario)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, st := range states {
			if _, err := simulator.Build(st.Docs, simulator.Options{}); err != nil {
				t.Errorf("seed %d, state %s: %v", seed, st.Name, err)
			}
		}
	}
}
