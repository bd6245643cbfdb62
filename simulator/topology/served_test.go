package topology

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/internal/realtest"
)

// TestServedVersions reads Gateway API v1.6.3's CRDs from the module cache
// (config/crd/standard and config/crd/experimental) and compares the
// versions they serve with ServedVersions, so that the table cannot drift
// from the release it names.
func TestServedVersions(t *testing.T) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "sigs.k8s.io", "gateway-api@"+GatewayAPIVersion, "config", "crd")
	if _, err := os.Stat(root); err != nil {
		realtest.Missing(t, "sigs.k8s.io/gateway-api@%s is not in the module cache (go mod download)", GatewayAPIVersion)
		return
	}
	type gk struct{ group, kind string }
	served := map[string]map[gk][]string{}
	for _, channel := range []string{"standard", "experimental"} {
		served[channel] = map[gk][]string{}
		files, _ := filepath.Glob(filepath.Join(root, channel, "*.yaml"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var crd struct {
				Kind string
				Spec struct {
					Group    string
					Names    struct{ Kind string }
					Versions []struct {
						Name   string
						Served bool
					}
				}
			}
			if err := yaml.Unmarshal(data, &crd); err != nil || crd.Kind != "CustomResourceDefinition" {
				continue // kustomization.yaml, the ValidatingAdmissionPolicy
			}
			for _, v := range crd.Spec.Versions {
				if v.Served {
					k := gk{crd.Spec.Group, crd.Spec.Names.Kind}
					served[channel][k] = append(served[channel][k], v.Name)
				}
			}
		}
	}
	if len(served["standard"]) == 0 {
		t.Fatalf("no CRD read under %s", root)
	}
	kinds := map[gk]bool{}
	for _, ch := range served {
		for k := range ch {
			kinds[k] = true
		}
	}
	for k := range kinds {
		s, ok := LookupServed(k.group, k.kind)
		if !ok {
			t.Errorf("%s %s: served by v%s's CRDs, missing from ServedVersions", k.group, k.kind, GatewayAPIVersion)
			continue
		}
		std := slices.Sorted(slices.Values(served["standard"][k]))
		var exp []string
		for _, v := range served["experimental"][k] {
			if !slices.Contains(std, v) {
				exp = append(exp, v)
			}
		}
		slices.Sort(exp)
		if got := slices.Sorted(slices.Values(s.Standard)); !slices.Equal(got, std) {
			t.Errorf("%s: ServedVersions says standard %v, the CRD serves %v", k.kind, got, std)
		}
		if got := slices.Sorted(slices.Values(s.Experimental)); !slices.Equal(got, exp) {
			t.Errorf("%s: ServedVersions says experimental %v, the CRD serves %v", k.kind, got, exp)
		}
	}
	for _, s := range ServedVersions {
		if !kinds[gk{s.Group, s.Kind}] {
			t.Errorf("%s %s: in ServedVersions, no CRD of v%s serves it", s.Group, s.Kind, GatewayAPIVersion)
		}
	}
}
