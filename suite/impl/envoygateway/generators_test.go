package envoygateway

import (
	"bytes"
	"testing"

	"github.com/gepcheck/gepcheck/simulator"
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
