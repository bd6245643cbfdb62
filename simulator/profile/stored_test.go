package profile

import (
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestStore: Kubernetes, "Defaulting and Nullable" for custom resources:
// "Null values for fields that either don't specify the nullable flag, or
// set it to false, will be pruned before defaulting happens. If a default
// is present, it will be applied"; a default applies where its field is
// missing and its parent object is present (KEP-575). The expected specs
// are written from those sentences (the cluster path checks the same
// against a real API server: TestLocalStored in impl/envoygateway).
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

// TestStoreRecord: what storing changed is recorded as the fields set by a
// default (a default inside a defaulted object counts with it) and the
// nulls pruned from objects; nothing, when storing changed nothing
// (Kubernetes, "Defaulting and Nullable").
func TestStoreRecord(t *testing.T) {
	p := &Profile{Spec: Spec{Stored: &Stored{PruneNulls: true, Defaults: map[string]any{
		"retry.numRetries":   float64(2),
		"retry.backOff":      map[string]any{},
		"retry.backOff.base": "1s",
	}}}}
	for _, tc := range []struct {
		name, in          string
		defaulted, pruned []string
		none              bool
	}{
		{name: "nothing to change", in: `{retry: {numRetries: 5, backOff: {base: 3s}}, timeout: 1s}`, none: true},
		{name: "a default", in: `{retry: {numRetries: 5}}`, defaulted: []string{"retry.backOff"}},
		{name: "defaults of an empty object", in: `{retry: {}}`, defaulted: []string{"retry.backOff", "retry.numRetries"}},
		{name: "a null pruned", in: `{timeout: null, retry: {numRetries: 1, backOff: {base: 1s}}}`, pruned: []string{"timeout"}},
		{name: "a null pruned, then defaulted", in: `{retry: {numRetries: null, backOff: {base: 1s}}}`, defaulted: []string{"retry.numRetries"}, pruned: []string{"retry.numRetries"}},
		{name: "a null in a list is not recorded", in: `{a: [{b: null}]}`, none: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in map[string]any
			if err := yaml.Unmarshal([]byte(tc.in), &in); err != nil {
				t.Fatal(err)
			}
			_, ch := p.StoreRecord(in)
			if tc.none {
				if ch != nil {
					t.Fatalf("StoreRecord(%s) recorded %+v, want nothing", tc.in, ch)
				}
				return
			}
			if ch == nil {
				t.Fatalf("StoreRecord(%s) recorded nothing", tc.in)
			}
			dotted := func(ps [][]string) []string {
				var out []string
				for _, p := range ps {
					out = append(out, strings.Join(p, "."))
				}
				return out
			}
			if got := dotted(ch.Defaulted); !reflect.DeepEqual(got, tc.defaulted) {
				t.Errorf("defaulted %v, want %v", got, tc.defaulted)
			}
			if got := dotted(ch.Pruned); !reflect.DeepEqual(got, tc.pruned) {
				t.Errorf("pruned %v, want %v", got, tc.pruned)
			}
		})
	}
}

// TestInterpretStored: Interpret reads the stored spec and records what
// storing changed in the coordinates of the spec proper (a stanza's name
// dropped), with the intent of the spec as written beside it; a spec that
// storing leaves alone carries neither.
func TestInterpretStored(t *testing.T) {
	p, err := Parse([]byte(`apiVersion: gepcheck.dev/v1alpha1
kind: PolicyProfile
metadata: {name: stanzas}
spec:
  policy: {group: example.io, kind: P}
  targets: [{group: gateway.networking.k8s.io, kind: Gateway}]
  effectiveTargets: [{group: gateway.networking.k8s.io, kind: Gateway}]
  mergeStrategies: [AtomicDefaults, PatchDefaults, AtomicOverrides, PatchOverrides]
  selection:
    stanzas: {defaults: defaults, overrides: overrides}
    bareSpec: Defaults
    strategyField: strategy
    strategyValues: {atomic: Atomic, patch: Patch}
  stored:
    pruneNulls: true
    defaults: {defaults.a: 1, overrides.a: 1}
`), "test")
	if err != nil {
		t.Fatal(err)
	}
	in := p.Interpret(map[string]any{"defaults": map[string]any{"b": "x", "c": nil}, "strategy": "patch"})
	if in.Invalid != "" {
		t.Fatal(in.Invalid)
	}
	if !reflect.DeepEqual(in.SpecProper, map[string]any{"a": float64(1), "b": "x"}) {
		t.Errorf("spec proper %v, want the stored one", in.SpecProper)
	}
	if in.Stored == nil || !reflect.DeepEqual(in.Stored.Defaulted, [][]string{{"a"}}) || !reflect.DeepEqual(in.Stored.Pruned, [][]string{{"c"}}) {
		t.Errorf("stored changes %+v, want a defaulted and c pruned, in the stanza's coordinates", in.Stored)
	}
	if in.Written == nil || !reflect.DeepEqual(in.Written.SpecProper, map[string]any{"b": "x", "c": nil}) || in.Written.Strategy != in.Strategy {
		t.Errorf("as written %+v, want b and the null c, same strategy", in.Written)
	}
	if in := p.Interpret(map[string]any{"overrides": map[string]any{"a": 2}}); in.Stored != nil || in.Written != nil {
		t.Errorf("a spec storing leaves alone carries changes %+v or an intent as written", in.Stored)
	}
}
