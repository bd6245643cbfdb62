package generators

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/simulator/profile"
)

// crdProfiles are the built-in profiles whose kind has a built-in CRD and
// that the generators draw (ProfileNames, For), sorted.
// (xbackendtrafficpolicy has a built-in CRD and no generator.)
func crdProfiles(t testing.TB) []string {
	builtins, err := profile.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for name, p := range builtins {
		_, own := For(name, "ns-a", 0)
		if p.CRD != nil && (own || slices.Contains(ProfileNames, name)) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// drawCRDScenario draws a scenario of profile name as campaigns do: its
// own generator (For), else Scenarios with any of the options.
func drawCRDScenario(t *rapid.T, name string) *Scenario {
	if g, ok := For(name, "ns-a", 0); ok {
		return g.Draw(t, "scenario")
	}
	cfg := Config{
		Profile:        name,
		FlatSpecs:      rapid.Bool().Draw(t, "flat specs"),
		NoInvalid:      rapid.Bool().Draw(t, "no invalid"),
		CrossNamespace: rapid.Bool().Draw(t, "cross-namespace"),
		Hierarchy:      rapid.Bool().Draw(t, "hierarchy"),
	}
	return Scenarios(cfg).Draw(t, "scenario")
}

// crdAccepts is the property generators/crd-accepts-drawn-policies: every
// drawn policy of a kind with a known CRD is accepted by that CRD as the
// API server accepts it with fieldValidation Strict (Kubernetes, Field
// validation; docs/profiles.md, What is stored), so that a campaign's
// policies reach the engine as written, neither refused on load nor
// pruned.
func crdAccepts(t *rapid.T, draw func(*rapid.T) *Scenario) {
	s := draw(t)
	if err := crdAcceptsCheck(s); err != nil {
		t.Fatal(err)
	}
}

func crdAcceptsCheck(s *Scenario) error {
	refused, err := s.CRDRefusals()
	if err != nil {
		return err
	}
	if len(refused) > 0 {
		return fmt.Errorf("the CRD refuses drawn policies:\n%s\n%s", strings.Join(refused, "\n"), s.YAML())
	}
	return nil
}

// TestCRDAcceptsDrawnPolicies runs generators/crd-accepts-drawn-policies
// for every built-in profile with a built-in CRD that is linked here
// (Gateway API's BackendTLSPolicy and XBackendTrafficPolicy; Envoy
// Gateway's in impl/envoygateway).
func TestCRDAcceptsDrawnPolicies(t *testing.T) {
	names := crdProfiles(t)
	for _, want := range []string{"backendtlspolicy", "backendtlspolicy-gateway-api"} {
		if !slices.Contains(names, want) {
			t.Fatalf("profile %s has no built-in CRD (profiles with one: %v)", want, names)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				crdAccepts(t, func(t *rapid.T) *Scenario { return drawCRDScenario(t, name) })
			})
		})
	}
}

// TestCRDAcceptsDrawnPoliciesMutants: generators/crd-accepts-drawn-policies
// catches planted faults of a generator, each on every drawn scenario
// where the same draw without the fault passes: a duplicate targetRef
// (BackendTLSPolicySpec.TargetRefs' CEL rules refuse it), a targetRef
// naming a namespace (LocalPolicyTargetReference has none: pruned) and a
// flat spec (spec.validation required; the flat keys unknown).
func TestCRDAcceptsDrawnPoliciesMutants(t *testing.T) {
	mutants := map[string]func(p *Policy){
		"duplicate targetRef": func(p *Policy) { p.Targets = append(p.Targets, p.Targets[0]) },
		"targetRef namespace": func(p *Policy) { p.Targets[0].Namespace = namespaceOr(p.Namespace) },
		"flat spec":           func(p *Policy) { p.Spec = map[string]any{"a": "x"} },
	}
	for _, name := range crdProfiles(t) {
		gen := rapid.Custom(func(t *rapid.T) *Scenario { return drawCRDScenario(t, name) })
		for m, plant := range mutants {
			t.Run(name+"/"+m, func(t *testing.T) {
				for seed := range 50 {
					s := gen.Example(seed)
					if err := crdAcceptsCheck(s); err != nil {
						t.Fatalf("seed %d without the fault: %v", seed, err)
					}
					s = s.Clone()
					plant(&s.Policies[0])
					if crdAcceptsCheck(s) == nil {
						t.Fatalf("seed %d: the property misses a %s:\n%s", seed, m, s.YAML())
					}
				}
			})
		}
	}
}
