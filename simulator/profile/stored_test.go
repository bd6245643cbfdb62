package profile

import (
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestStore: Kubernetes, "Defaulting and Nullable" for custom resources:
// "Null values for fields that either don't specify the nullable flag, or
// set it to false, will be pruned before defaulting happens. If a default
// is present, it will be applied"; a default applies where its field is
// missing and its parent object is present (KEP-575). The expected specs
// are written from those sentences (the cluster path checks the same
// against a real API server: TestLocalStored in suite/impl/envoygateway).
func TestStore(t *testing.T) {
	p := &Profile{Spec: Spec{Stored: &Stored{PruneNulls: true, Defaults: map[string]any{
		"retry.numRetries":   float64(2),
		"retry.backOff":      map[string]any{},
		"retry.backOff.base": "1s",
		"circuitBreaker.max": float64(1024),
	}}}}
	for _, tc := range []struct{ name, in, want string }{
		{"parent absent: no default", `{timeout: {http: {requestTimeout: 5s}}}`, `{timeout: {http: {requestTimeout: 5s}}}`},
		{"empty parent gets its defaults, nested ones too", `{retry: {}}`, `{retry: {numRetries: 2, backOff: {base: 1s}}}`},
		{"set field kept", `{retry: {numRetries: 5, backOff: {base: 3s}}}`, `{retry: {numRetries: 5, backOff: {base: 3s}}}`},
		{"null pruned", `{timeout: null, mergeType: JSONMerge}`, `{mergeType: JSONMerge}`},
		{"null object pruned: its defaults do not apply", `{retry: null}`, `{}`},
		{"null field with a default is defaulted", `{retry: {numRetries: null, backOff: {base: 2s}}}`, `{retry: {numRetries: 2, backOff: {base: 2s}}}`},
		{"nested null pruned, list kept", `{a: {b: null, c: [1, {d: null}]}}`, `{a: {c: [1, {}]}}`},
		{"empty list kept", `{retry: {numRetries: 1, backOff: {base: 1s}, on: []}}`, `{retry: {numRetries: 1, backOff: {base: 1s}, on: []}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in, want map[string]any
			if err := yaml.Unmarshal([]byte(tc.in), &in); err != nil {
				t.Fatal(err)
			}
			if err := yaml.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			before, _ := yaml.Marshal(in)
			got := p.Store(in)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Store(%s) = %v, want %v", tc.in, got, want)
			}
			if after, _ := yaml.Marshal(in); string(after) != string(before) {
				t.Errorf("Store changed its argument: %s", after)
			}
		})
	}
	if got := (&Profile{}).Store(map[string]any{"a": nil}); !reflect.DeepEqual(got, map[string]any{"a": nil}) {
		t.Errorf("without spec.stored, Store changed the spec: %v", got)
	}
}
