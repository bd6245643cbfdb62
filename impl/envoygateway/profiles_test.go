package envoygateway

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/internal/realtest"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
)

// moduleDir returns Envoy Gateway's module at Version in the module cache,
// or ends the test (realtest.Missing) when it is not downloaded.
func moduleDir(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "github.com", "envoyproxy", "gateway@"+Version)
	if _, err := os.Stat(dir); err != nil {
		realtest.Missing(t, "github.com/envoyproxy/gateway@%s is not in the module cache (go mod download github.com/envoyproxy/gateway@%s)", Version, Version)
	}
	return dir
}

// kindList reads the kinds of a CEL rule "... ref.kind in ['A', 'B'] ...".
var kindList = regexp.MustCompile(`kind in \[([^\]]*)\]`)

// TestProfilesTargetKindsFromCRDs reads the CEL rules the CRDs of Envoy
// Gateway's policy kinds (v1.9.1, charts/gateway-helm/charts/crds/crds/
// generated) put on targetRef and targetRefs, and checks that each profile
// allows exactly the kinds they allow, so that the profiles cannot drift
// from the API: a kind the CRD stores and the profile refuses would make a
// stored policy Invalid (issue 30: grpc-jwt.yaml's SecurityPolicy on a
// GRPCRoute).
func TestProfilesTargetKindsFromCRDs(t *testing.T) {
	dir := filepath.Join(moduleDir(t), "charts", "gateway-helm", "charts", "crds", "crds", "generated")
	builtins, err := profile.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ profile, crd string }{
		{"envoy-gateway-backendtrafficpolicy", "gateway.envoyproxy.io_backendtrafficpolicies.yaml"},
		{"envoy-gateway-clienttrafficpolicy", "gateway.envoyproxy.io_clienttrafficpolicies.yaml"},
		{"envoy-gateway-securitypolicy", "gateway.envoyproxy.io_securitypolicies.yaml"},
	} {
		data, err := os.ReadFile(filepath.Join(dir, c.crd))
		if err != nil {
			t.Fatal(err)
		}
		var crd struct {
			Spec struct {
				Versions []struct {
					Schema struct {
						OpenAPIV3Schema struct {
							Properties struct {
								Spec struct {
									Validations []struct{ Rule string } `json:"x-kubernetes-validations"`
									Properties  map[string]any          `json:"properties"`
								} `json:"spec"`
							} `json:"properties"`
						} `json:"openAPIV3Schema"`
					} `json:"schema"`
				} `json:"versions"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(data, &crd); err != nil || len(crd.Spec.Versions) != 1 {
			t.Fatalf("%s: %v (%d versions)", c.crd, err, len(crd.Spec.Versions))
		}
		spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties.Spec
		var fromCRD []string
		for _, field := range []string{"has(self.targetRef) ? self.targetRef.kind in", "has(self.targetRefs) ? self.targetRefs.all(ref, ref.kind in"} {
			var kinds []string
			for _, v := range spec.Validations {
				if strings.HasPrefix(v.Rule, field) {
					m := kindList.FindStringSubmatch(v.Rule)
					for _, k := range strings.Split(m[1], ",") {
						kinds = append(kinds, strings.Trim(strings.TrimSpace(k), "'"))
					}
				}
			}
			if len(kinds) == 0 {
				t.Fatalf("%s: no CEL rule %q…", c.crd, field)
			}
			slices.Sort(kinds)
			if fromCRD != nil && !slices.Equal(fromCRD, kinds) {
				t.Errorf("%s: targetRef allows %v, targetRefs %v", c.crd, fromCRD, kinds)
			}
			fromCRD = kinds
		}
		p := builtins[c.profile]
		var inProfile []string
		for _, tg := range p.Spec.Targets {
			inProfile = append(inProfile, tg.Kind)
		}
		slices.Sort(inProfile)
		if !slices.Equal(inProfile, fromCRD) {
			t.Errorf("%s allows target kinds %v; Envoy Gateway %s's CRD %s allows %v", c.profile, inProfile, Version, c.crd, fromCRD)
		}
		// The CRD declares spec.targetSelectors; so must the profile.
		_, crdSelectors := spec.Properties["targetSelectors"]
		if got := p.Spec.TargetSelectors != nil && p.Spec.TargetSelectors.Field == "targetSelectors"; got != crdSelectors {
			t.Errorf("%s: targetSelectors in the profile %v, in the CRD %v", c.profile, got, crdSelectors)
		}
	}
}

// TestGRPCJWTExample simulates Envoy Gateway's own
// examples/kubernetes/jwt/grpc-jwt.yaml: its SecurityPolicy targets a
// GRPCRoute, a kind the CRD allows, and must be Accepted with a path
// through the route's rule (issue 30).
func TestGRPCJWTExample(t *testing.T) {
	file := filepath.Join(moduleDir(t), "examples", "kubernetes", "jwt", "grpc-jwt.yaml")
	m, err := simulator.LoadFiles([]string{file}, nil, simulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := m.Run(engine.StickyOverrides, nil)
	if len(out.Policies) != 1 {
		t.Fatalf("%d policies, want the example's one SecurityPolicy", len(out.Policies))
	}
	c, ok := engine.FindCondition(out.Policies[0].Conditions, engine.TypeAccepted)
	if !ok || c.Status != "True" {
		t.Errorf("%s: Accepted=%s/%s (%s), want True", out.Policies[0].Ref, c.Status, c.Reason, c.Message)
	}
	if len(out.EffectivePolicies) != 1 || !slices.Contains(out.EffectivePolicies[0].Path, "GRPCRoute/default/yages#rules[0]") {
		t.Errorf("effective policies %+v, want one on GRPCRoute/default/yages#rules[0]", out.EffectivePolicies)
	}
}
