package envoygateway

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/cluster/local/localtest"
	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/internal/jsonmap"
	"github.com/gepcheck/gepcheck/simulator/crd"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/suite/incluster"
)

// TestLocalStored checks gepcheck's storing of Envoy Gateway's policies
// with the built-in CRDs (simulator/crd, through Profile.Store) against a
// real kube-apiserver serving the same CRDs: every policy the generators
// draw (nulls, empty objects, lists included), with unknown fields added
// (a misspelt top-level field and one inside an object), is created with
// dryRun=All, and the spec the API server returns, as it would store it,
// must be the profile's Store of the spec sent (Kubernetes, Specifying a
// structural schema: Field pruning, Defaulting). The draws must reach
// pruning and defaulting: some spec must change when stored, or the check
// proves nothing; and the check must catch the mutants that skip pruning
// or defaulting (crd.MutantSkipPruning, crd.MutantSkipDefaulting).
func TestLocalStored(t *testing.T) {
	ctx := context.Background()
	eg, err := CRDs(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	// The API server's warnings name each unknown field it pruned; they
	// are compared with the fields gepcheck warns of.
	warned := &warnings{}
	rest.SetDefaultWarningHandler(warned)
	t.Cleanup(func() { rest.SetDefaultWarningHandler(rest.WarningLogger{}) })
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
	t.Run("refused", func(t *testing.T) { checkRefused(t, ctx, k, builtins) })
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
			if p.CRD == nil {
				t.Fatalf("profile %s has no built-in CRD", kind.name)
			}
			mutants := map[crd.Mutant]*crd.Schema{
				crd.MutantSkipPruning:    p.CRD.Preferred().WithMutant(crd.MutantSkipPruning),
				crd.MutantSkipDefaulting: p.CRD.Preferred().WithMutant(crd.MutantSkipDefaulting),
			}
			caught := map[crd.Mutant]int{}
			var checked, changed int
			for seed := range draws {
				s := kind.gen("stored", 0).Example(seed)
				for j, pol := range s.Policies {
					sent := jsonmap.Clone(pol.Spec)
					addUnknown(sent, seed)
					spec := jsonmap.Clone(sent)
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
					warned.reset()
					got, err := res.Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
					if err != nil {
						t.Fatalf("seed %d, policy %d: the API server refuses %v: %v", seed, j, pol.Spec, err)
					}
					stored, _ := got.Object["spec"].(map[string]any)
					delete(stored, "targetRefs")
					want := p.Store(jsonmap.Clone(sent))
					if !reflect.DeepEqual(numbers(stored), numbers(want)) {
						t.Errorf("seed %d, policy %d: spec %v is stored as %v; the profile's Store gives %v", seed, j, sent, stored, want)
					}
					checked++
					if !reflect.DeepEqual(numbers(want), numbers(sent)) {
						changed++
					}
					var unknown []string
					for _, f := range p.CRD.Preferred().Store(ctx, u.Object).Unknown {
						unknown = append(unknown, fmt.Sprintf("unknown field %q", f))
					}
					if w := warned.sorted(); !slices.Equal(w, unknown) {
						t.Errorf("seed %d, policy %d: the API server warns %q; gepcheck names the pruned fields %q", seed, j, w, unknown)
					}
					for m, s := range mutants {
						r := s.Store(ctx, map[string]any{"apiVersion": u.GetAPIVersion(), "kind": pol.Kind, "metadata": map[string]any{"name": "p", "namespace": "stored"}, "spec": jsonmap.Clone(sent)})
						ms, _ := r.Object["spec"].(map[string]any)
						if !reflect.DeepEqual(numbers(stored), numbers(ms)) {
							caught[m]++
						}
					}
				}
			}
			t.Logf("%d policies checked, %d changed when stored; mutants caught on %d (skip pruning) and %d (skip defaulting)", checked, changed, caught[crd.MutantSkipPruning], caught[crd.MutantSkipDefaulting])
			if changed == 0 {
				t.Error("no drawn spec changes when stored: the check does not reach pruning or defaulting")
			}
			if caught[crd.MutantSkipPruning] == 0 {
				t.Error("the mutant that skips pruning is never caught")
			}
			if caught[crd.MutantSkipDefaulting] == 0 && kind.name != "envoy-gateway-securitypolicy" {
				// SecurityPolicy's drawn fields have no default.
				t.Error("the mutant that skips defaulting is never caught")
			}
		})
	}
}

type rapidScenarios = rapid.Generator[*generators.Scenario]

// warnings collects the API server's warnings of one request.
type warnings struct {
	mu   sync.Mutex
	text []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text = append(w.text, text)
}

func (w *warnings) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text = nil
}

func (w *warnings) sorted() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Sorted(slices.Values(w.text))
}

// addUnknown adds fields no Envoy Gateway CRD has: a misspelt top-level
// field on every other draw, and one inside the first object field (by
// name) of the spec.
func addUnknown(spec map[string]any, seed int) {
	if seed%2 == 0 {
		spec["requestTimout"] = "2s"
	}
	for _, k := range slices.Sorted(maps.Keys(spec)) {
		if m, ok := spec[k].(map[string]any); ok {
			m["gepcheckTypo"] = true
			return
		}
	}
}

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
	p, err := incluster.NewPlan("../../scenarios/envoy-gateway/backendtrafficpolicy-stored-values.yaml", incluster.Target{Run: "r", Features: Features})
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

// checkRefused, a part of TestLocalStored (one control plane for both):
// what gepcheck refuses with Envoy Gateway's built-in
// CRDs (exit 2, the CRD's message) a real kube-apiserver serving them
// refuses too, with the same message: a pattern, a minimum, a type, and a
// CEL rule of the CRD (Kubernetes, Validation; Validation rules). One
// valid policy beside them must be accepted by both, or the check proves
// nothing.
func checkRefused(t *testing.T, ctx context.Context, k *cluster.Kube, builtins map[string]*profile.Profile) {
	gw := []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw"}}
	route := []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "name": "r"}}
	for _, tc := range []struct {
		name, profile string
		spec          map[string]any
		refused       bool
	}{
		{"valid", "envoy-gateway-backendtrafficpolicy", map[string]any{"targetRefs": route, "retry": map[string]any{"numRetries": 3.0}}, false},
		{"pattern", "envoy-gateway-backendtrafficpolicy", map[string]any{"targetRefs": route, "timeout": map[string]any{"http": map[string]any{"requestTimeout": "soon"}}}, true},
		{"minimum", "envoy-gateway-backendtrafficpolicy", map[string]any{"targetRefs": route, "retry": map[string]any{"numRetries": -1.0}}, true},
		{"type", "envoy-gateway-backendtrafficpolicy", map[string]any{"targetRefs": route, "retry": map[string]any{"numRetries": "three"}}, true},
		{"cel-mergetype-gateway", "envoy-gateway-securitypolicy", map[string]any{"targetRefs": gw, "mergeType": "JSONMerge"}, true},
		{"cel-mergetype-replace", "envoy-gateway-securitypolicy", map[string]any{"targetRefs": route, "mergeType": "Replace"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := builtins[tc.profile]
			u := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "gateway.envoyproxy.io/v1alpha1", "kind": p.Spec.Policy.Kind,
				"metadata": map[string]any{"name": "p", "namespace": "default"},
				"spec":     tc.spec,
			}}
			r := p.CRD.Preferred().Store(ctx, jsonmap.Clone(u.Object))
			res, err := k.Resource(u.GroupVersionKind(), "default")
			if err != nil {
				t.Fatal(err)
			}
			_, apiErr := res.Create(ctx, u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if (apiErr != nil) != tc.refused || (len(r.Errors) > 0) != tc.refused {
				t.Fatalf("refused: API server %v, gepcheck %v; want %v", apiErr, r.Errors, tc.refused)
			}
			for _, e := range r.Errors {
				if want := crd.FieldPath(e) + ": " + crd.Message(e); crd.FieldPath(e) != "" && !strings.Contains(apiErr.Error(), want) {
					t.Errorf("gepcheck says %q; the API server %q", want, apiErr)
				}
			}
		})
	}
}
