package crd

import (
	"context"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func widget(t *testing.T) *Schema {
	t.Helper()
	data, err := os.ReadFile("testdata/widgetpolicies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(data, "testdata/widgetpolicies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 1 || s[0].Kind != "WidgetPolicy" || !s[0].Storage {
		t.Fatalf("compiled %+v", s)
	}
	return s[0]
}

func obj(spec map[string]any) map[string]any {
	return map[string]any{"apiVersion": "example.com/v1", "kind": "WidgetPolicy", "metadata": map[string]any{"name": "p", "namespace": "default"}, "spec": spec}
}

func route() []any {
	return []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "name": "r"}}
}

// TestStore: an unknown field is pruned and named (Kubernetes, Field
// pruning), a null pruned, a default set where its parent object is
// present (Defaulting); the input is not changed; numbers come back as
// float64.
func TestStore(t *testing.T) {
	s := widget(t)
	in := obj(map[string]any{"targetRefs": route(), "timeout": map[string]any{"requestTimout": "2s"}, "retry": map[string]any{}, "mergeType": nil})
	r := s.Store(context.Background(), in)
	if len(r.Errors) > 0 {
		t.Fatalf("errors: %v", r.Errors)
	}
	if !slices.Equal(r.Unknown, []string{"spec.timeout.requestTimout"}) {
		t.Errorf("unknown %v, want spec.timeout.requestTimout", r.Unknown)
	}
	want := map[string]any{"targetRefs": route(), "timeout": map[string]any{}, "retry": map[string]any{"numRetries": float64(2)}}
	if got := r.Object["spec"]; !reflect.DeepEqual(got, want) {
		t.Errorf("stored spec %v, want %v", got, want)
	}
	if !reflect.DeepEqual(r.Defaulted, [][]string{{"spec", "retry", "numRetries"}}) {
		t.Errorf("defaulted %v", r.Defaulted)
	}
	if !reflect.DeepEqual(r.PrunedNulls, [][]string{{"spec", "mergeType"}}) {
		t.Errorf("pruned nulls %v", r.PrunedNulls)
	}
	if _, typo := r.Known["spec"].(map[string]any)["timeout"].(map[string]any)["requestTimout"]; typo {
		t.Error("Known keeps the unknown field")
	}
	if _, ok := in["spec"].(map[string]any)["timeout"].(map[string]any)["requestTimout"]; !ok {
		t.Error("Store changed its input")
	}
}

// TestStoreRefuses: values the schema refuses (a pattern, an enum, a
// minimum, a type) and a CEL rule's refusal are errors with the CRD's
// message and the field (Kubernetes, Validation; Validation rules).
func TestStoreRefuses(t *testing.T) {
	s := widget(t)
	gw := []any{map[string]any{"kind": "Gateway", "name": "g"}}
	for _, tc := range []struct {
		name  string
		spec  map[string]any
		field string
		msg   string
	}{
		{"pattern", map[string]any{"targetRefs": route(), "timeout": map[string]any{"requestTimeout": "two seconds"}}, "spec.timeout.requestTimeout", "should match"},
		{"enum", map[string]any{"targetRefs": route(), "mergeType": "Replace"}, "spec.mergeType", "Unsupported value"},
		{"minimum", map[string]any{"targetRefs": route(), "retry": map[string]any{"numRetries": float64(-1)}}, "spec.retry.numRetries", "greater than or equal to 0"},
		{"type", map[string]any{"targetRefs": route(), "retry": map[string]any{"numRetries": "three"}}, "spec.retry.numRetries", "must be of type integer"},
		{"cel", map[string]any{"targetRefs": gw, "mergeType": "JSONMerge"}, "spec", "mergeType can only be used with xRoute targets"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := s.Store(context.Background(), obj(tc.spec))
			if len(r.Errors) == 0 {
				t.Fatalf("no error for %v", tc.spec)
			}
			e := r.Errors[0]
			if FieldPath(e) != tc.field || !strings.Contains(e.ErrorBody(), tc.msg) {
				t.Errorf("error %q at %q, want %q at %q", e.ErrorBody(), FieldPath(e), tc.msg, tc.field)
			}
		})
	}
}

// TestMutants: the mutants leave their step out, so that a check against
// a real API server can show it catches them (impl/envoygateway
// TestLocalStored).
func TestMutants(t *testing.T) {
	s := widget(t)
	in := obj(map[string]any{"targetRefs": route(), "typo": "x", "retry": map[string]any{}})
	if r := s.WithMutant(MutantSkipPruning).Store(context.Background(), in); r.Object["spec"].(map[string]any)["typo"] != "x" {
		t.Error("MutantSkipPruning pruned")
	}
	if r := s.WithMutant(MutantSkipDefaulting).Store(context.Background(), in); len(r.Object["spec"].(map[string]any)["retry"].(map[string]any)) != 0 {
		t.Error("MutantSkipDefaulting set a default")
	}
}

// TestSet: a set looks schemas up by group, version and kind; Preferred
// is the storage version; FromObjects takes a cluster's objects.
func TestSet(t *testing.T) {
	data, err := os.ReadFile("testdata/widgetpolicies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yamlUnmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	set, err := FromObjects([]map[string]any{m}, "cluster")
	if err != nil {
		t.Fatal(err)
	}
	if set.Lookup("example.com", "v1", "WidgetPolicy") == nil || set.Preferred("example.com", "WidgetPolicy") == nil {
		t.Error("WidgetPolicy not found")
	}
	if set.Lookup("example.com", "v2", "WidgetPolicy") != nil || set.Preferred("example.com", "Other") != nil {
		t.Error("found what the set does not hold")
	}
	if _, err := FromObjects([]map[string]any{{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "spec": map[string]any{"group": "g"}}}, "cluster"); err == nil {
		t.Error("a CRD without a kind compiled")
	}
}

func yamlUnmarshal(data []byte, into any) error { return yaml.Unmarshal(data, into) }
