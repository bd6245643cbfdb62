package envoygateway

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/suite/cluster"
	"github.com/gepcheck/gepcheck/suite/cluster/local/localtest"
	"github.com/gepcheck/gepcheck/suite/incluster"
)

// TestLocalStored checks each Envoy Gateway profile's spec.stored against
// a real kube-apiserver serving Envoy Gateway's CRDs: every policy the
// generators draw (nulls, empty objects, lists included) is created with
// dryRun=All, and the spec the API server returns, as it would store it,
// must be the profile's Store of the spec sent (Kubernetes, Defaulting and
// Nullable). The draws must reach both pruning and defaulting: some spec
// must change when stored, or the check proves nothing.
func TestLocalStored(t *testing.T) {
	ctx := context.Background()
	eg, err := CRDs(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	c := localtest.Start(t, eg)
	k, err := cluster.NewKube(c)
	if err != nil {
		t.Fatal(err)
	}
	ns := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "stored"}}}
	nsRes, err := k.Resource(schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nsRes.Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	builtins, err := profile.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	const draws = 60 // scenarios per kind, one to four policies each
	for _, kind := range []struct {
		name string
		gen  func(string, int) *rapidScenarios
	}{
		{"envoy-gateway-backendtrafficpolicy", BackendTrafficScenarios},
		{"envoy-gateway-clienttrafficpolicy", ClientTrafficScenarios},
		{"envoy-gateway-securitypolicy", SecurityScenarios},
	} {
		t.Run(kind.name, func(t *testing.T) {
			p := builtins[kind.name]
			var checked, changed int
			for seed := range draws {
				s := kind.gen("stored", 0).Example(seed)
				for j, pol := range s.Policies {
					spec := generators.CloneJSON(pol.Spec).(map[string]any)
					refs := []any{}
					for _, tg := range pol.Targets {
						r := map[string]any{"group": tg.Group, "kind": tg.Kind, "name": tg.Name}
						if tg.Section != "" {
							r["sectionName"] = tg.Section
						}
						refs = append(refs, r)
					}
					spec["targetRefs"] = refs
					u := &unstructured.Unstructured{Object: map[string]any{
						"apiVersion": "gateway.envoyproxy.io/v1alpha1", "kind": pol.Kind,
						"metadata": map[string]any{"name": fmt.Sprintf("p-%d-%d", seed, j), "namespace": "stored"},
						"spec":     spec,
					}}
					res, err := k.Resource(u.GroupVersionKind(), "stored")
					if err != nil {
						t.Fatal(err)
					}
					got, err := res.Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
					if err != nil {
						t.Fatalf("seed %d, policy %d: the API server refuses %v: %v", seed, j, pol.Spec, err)
					}
					stored, _ := got.Object["spec"].(map[string]any)
					delete(stored, "targetRefs")
					want := p.Store(generators.CloneJSON(pol.Spec).(map[string]any))
					if !reflect.DeepEqual(numbers(stored), numbers(want)) {
						t.Errorf("seed %d, policy %d: spec %v is stored as %v; the profile's Store gives %v", seed, j, pol.Spec, stored, want)
					}
					checked++
					if !reflect.DeepEqual(numbers(want), numbers(pol.Spec)) {
						changed++
					}
				}
			}
			t.Logf("%d policies checked, %d changed when stored", checked, changed)
			if changed == 0 {
				t.Error("no drawn spec changes when stored: the check does not reach pruning or defaulting")
			}
		})
	}
}

type rapidScenarios = rapid.Generator[*generators.Scenario]

// numbers makes every number a float64, as JSON decoding into any does:
// the API server's client returns int64 where YAML gave float64.
func numbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = numbers(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = numbers(x)
		}
		return out
	case int64:
		return float64(v)
	case int:
		return float64(v)
	}
	return v
}

// TestPlanPrunesNulls: a server-side apply of a null to a field of Envoy
// Gateway's CRDs is refused ("spec.timeout in body must be of type object:
// \"null\"", seen on the local control plane), where a create stores the
// policy without it; the cluster runner sends what a create would store.
func TestPlanPrunesNulls(t *testing.T) {
	p, err := incluster.NewPlan("../../../scenarios/envoy-gateway/backendtrafficpolicy-stored-values.yaml", incluster.Target{Run: "r", Features: Features})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, u := range p.PolicyObjects() {
		if u.GetName() != "p-route" {
			continue
		}
		found = true
		spec, _ := u.Object["spec"].(map[string]any)
		if _, ok := spec["timeout"]; ok {
			t.Errorf("p-route is sent with timeout %v; want it pruned", spec["timeout"])
		}
		if _, ok := spec["retry"].(map[string]any); !ok {
			t.Errorf("p-route is sent without its empty retry: %v", spec)
		}
	}
	if !found {
		t.Fatal("no policy p-route in the plan")
	}
}
