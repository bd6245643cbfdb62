package simulator

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/simulator/crd"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// widgetProfile reads WidgetPolicy (simulator/crd/testdata) as a
// Patch-defaults kind whose mergeType selects the strategy.
const widgetProfile = `apiVersion: gepcheck.dev/v1alpha1
kind: PolicyProfile
metadata: {name: widget}
spec:
  policy: {group: example.com, kind: WidgetPolicy}
  targets: [{group: gateway.networking.k8s.io, kind: HTTPRoute}]
  effectiveTargets: [{group: gateway.networking.k8s.io, kind: HTTPRoute}]
  mergeStrategies: [AtomicDefaults, PatchDefaults]
  selection: {bareSpec: Defaults, strategyField: mergeType, strategyValues: {JSONMerge: Patch}}
`

const widgetTopology = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: c}
spec: {controllerName: example.com/c}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g}
spec:
  gatewayClassName: c
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r}
spec:
  parentRefs: [{name: g}]
`

func widgetCRD(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("crd/testdata/widgetpolicies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func widgetPolicy(spec string) string {
	return "apiVersion: example.com/v1\nkind: WidgetPolicy\nmetadata: {name: p}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n" + spec
}

// TestInputCRDStores: a CustomResourceDefinition among the documents
// stores its kind's policies as the API server does on create (Kubernetes,
// Field pruning; Defaulting): an unknown field is pruned with a warning
// naming the file, line and field, a default is set and named as one.
func TestInputCRDStores(t *testing.T) {
	docs := joinDocs(widgetCRD(t), widgetProfile, widgetTopology, widgetPolicy("  timeout: {requestTimout: 2s}\n  retry: {}\n"))
	out := simulate(t, docs, Options{})
	if len(out.EffectivePolicies) != 1 {
		t.Fatalf("effective policies %v", out.EffectivePolicies)
	}
	e := out.EffectivePolicies[0]
	spec := asJSON(t, e.Spec)
	if strings.Contains(spec, "requestTimout") || !strings.Contains(spec, `"numRetries":2`) {
		t.Errorf("effective spec %s: want the typo pruned and numRetries defaulted to 2", spec)
	}
	if !slices.Equal(e.StoredDefaults, []string{"retry.numRetries"}) {
		t.Errorf("stored defaults %v, want retry.numRetries", e.StoredDefaults)
	}
	var warned bool
	for _, w := range out.Warnings {
		// The typo is on line 6 of the policy's document.
		if strings.Contains(w, "<stdin>: WidgetPolicy default/p: field spec.timeout.requestTimout (line 6 of the document) pruned") && strings.Contains(w, "widgetpolicies.example.com") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning names the pruned field with its line: %q", out.Warnings)
	}
}

// TestCRDRefuses: a value the CRD's schema or one of its CEL rules refuses
// is bad input (exit 2), naming file, document, line and field, with the
// CRD's message.
func TestCRDRefuses(t *testing.T) {
	for _, tc := range []struct{ spec, field, msg string }{
		{"  timeout: {requestTimeout: soon}\n", "field spec.timeout.requestTimeout", "should match"},
		{"  mergeType: Replace\n", "field spec.mergeType", "Unsupported value"},
	} {
		docs := joinDocs(widgetCRD(t), widgetProfile, widgetTopology, widgetPolicy(tc.spec))
		_, err := LoadFiles([]string{"-"}, strings.NewReader(docs), Options{})
		if err == nil {
			t.Errorf("%q: no error", tc.spec)
			continue
		}
		msg := err.Error()
		// The field's own line: the policy's last line.
		if line := strings.Count(docs, "\n"); !strings.Contains(msg, fmt.Sprintf("(line %d)", line)) {
			t.Errorf("%q: error %q does not name line %d", tc.spec, msg, line)
		}
		for _, want := range []string{"<stdin>: document 6 (line ", "WidgetPolicy default/p", tc.field, tc.msg, "widgetpolicies.example.com"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%q: error %q lacks %q", tc.spec, msg, want)
			}
		}
	}
}

// TestOptionsCRDs: CRDs read from a cluster (Options.CRDs, crd.FromObjects)
// store the policies of their kind; one in the input comes first.
func TestOptionsCRDs(t *testing.T) {
	var m map[string]any
	if err := yaml.Unmarshal([]byte(widgetCRD(t)), &m); err != nil {
		t.Fatal(err)
	}
	set, err := crd.FromObjects([]map[string]any{m}, "cluster")
	if err != nil {
		t.Fatal(err)
	}
	docs := joinDocs(widgetProfile, widgetTopology, widgetPolicy("  retry: {}\n"))
	out := loadYAML(t, docs, Options{CRDs: set}).Run(engine.StickyOverrides, nil)
	if got := asJSON(t, out.EffectivePolicies[0].Spec); !strings.Contains(got, `"numRetries":2`) {
		t.Errorf("with the cluster's CRD, effective spec %s; want numRetries defaulted to 2", got)
	}
	out = simulate(t, docs, Options{})
	if got := asJSON(t, out.EffectivePolicies[0].Spec); strings.Contains(got, "numRetries") {
		t.Errorf("without a CRD, effective spec %s; want no default", got)
	}
}

// TestDuplicateCRD: two CustomResourceDefinitions of one name are an
// error, as two objects of a kind gepcheck reads are: which one stores the
// policies would depend on the order of the documents.
func TestDuplicateCRD(t *testing.T) {
	docs := joinDocs(widgetCRD(t), widgetCRD(t), widgetProfile, widgetTopology, widgetPolicy(""))
	_, err := LoadFiles([]string{"-"}, strings.NewReader(docs), Options{})
	if err == nil || !strings.Contains(err.Error(), "duplicate object: CustomResourceDefinition widgetpolicies.example.com") {
		t.Errorf("error %v, want a duplicate CustomResourceDefinition", err)
	}
}
