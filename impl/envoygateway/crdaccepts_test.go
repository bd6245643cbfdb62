package envoygateway

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/generators"
)

// TestCRDAcceptsDrawnPolicies is the property
// generators/crd-accepts-drawn-policies (generators.Scenario.CRDRefusals)
// on Envoy Gateway's generators: every drawn BackendTrafficPolicy,
// ClientTrafficPolicy and SecurityPolicy is accepted as written by Envoy
// Gateway v1.9.1's CRD of its kind (crds/README.md), fieldValidation
// Strict. TestCRDAcceptsDrawnPoliciesTypo shows it catches a planted
// misspelt field.
func TestCRDAcceptsDrawnPolicies(t *testing.T) {
	for _, name := range []string{"envoy-gateway-backendtrafficpolicy", "envoy-gateway-clienttrafficpolicy", "envoy-gateway-securitypolicy"} {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g, ok := generators.For(name, "ns-a", 0)
				if !ok {
					t.Fatalf("no generator of %s", name)
				}
				s := g.Draw(t, "scenario")
				refused, err := s.CRDRefusals()
				if err != nil {
					t.Fatal(err)
				}
				if len(refused) > 0 {
					t.Fatalf("Envoy Gateway's CRD refuses drawn policies:\n%s\n%s", strings.Join(refused, "\n"), s.YAML())
				}
			})
		})
	}
}

// TestCRDAcceptsDrawnPoliciesTypo: the property catches a planted fault of
// a generator, a misspelt field (spec.requestTimout, issue 31's typo)
// that Envoy Gateway's CRD does not know, on every draw where the same
// draw without it passes.
func TestCRDAcceptsDrawnPoliciesTypo(t *testing.T) {
	for _, name := range []string{"envoy-gateway-backendtrafficpolicy", "envoy-gateway-clienttrafficpolicy", "envoy-gateway-securitypolicy"} {
		g, _ := generators.For(name, "ns-a", 0)
		for seed := range 20 {
			s := g.Example(seed)
			if r, err := s.CRDRefusals(); err != nil || len(r) > 0 {
				t.Fatalf("%s seed %d without the fault: %v %v", name, seed, r, err)
			}
			s = s.Clone()
			spec := map[string]any{"requestTimout": "2s"}
			for k, v := range s.Policies[0].Spec {
				spec[k] = v
			}
			s.Policies[0].Spec = spec
			if r, _ := s.CRDRefusals(); len(r) == 0 {
				t.Fatalf("%s seed %d: the property misses spec.requestTimout:\n%s", name, seed, s.YAML())
			}
		}
	}
}
