package suite

import (
	"slices"
	"testing"

	"github.com/gepcheck/gepcheck/suite/driver"
)

// Kinds tells disagreements apart by what differs, down to the spec fields
// of effective settings, so that fuzz keeps one finding of each.
func TestKinds(t *testing.T) {
	path := []string{"Gateway/ns/gw", "Gateway/ns/gw#http"}
	other := []string{"Gateway/ns/gw", "Gateway/ns/gw#http-2"}
	obs := func(paths map[string]map[string]any, accepted string) driver.Observation {
		o := driver.Observation{Name: "ns"}
		for k, spec := range paths {
			p := path
			if k == "other" {
				p = other
			}
			o.Effective = append(o.Effective, driver.Path{Path: p, Spec: spec})
		}
		o.Policies = []driver.Status{{Ref: "BackendTrafficPolicy/ns/p", Conditions: []driver.Condition{{Type: "Accepted", Status: "True", Reason: accepted}}}}
		return o
	}
	retry1 := map[string]any{"retry": map[string]any{"numRetries": 1.0}}
	retry2 := map[string]any{"retry": map[string]any{"numRetries": 2.0}}
	both := map[string]any{"retry": map[string]any{"numRetries": 1.0}, "circuitBreaker": map[string]any{"maxConnections": 100.0}}
	conflicted := driver.Observation{Name: "ns", Effective: []driver.Path{{Path: path, Spec: retry1}},
		Policies: []driver.Status{{Ref: "BackendTrafficPolicy/ns/p", Conditions: []driver.Condition{{Type: "Accepted", Status: "False", Reason: "Conflicted"}}}}}
	for _, tc := range []struct {
		name      string
		want, got driver.Observation
		kinds     []string
	}{
		{"agree", obs(map[string]map[string]any{"this": retry1}, "Accepted"), obs(map[string]map[string]any{"this": retry1}, "Accepted"), nil},
		{"another value", obs(map[string]map[string]any{"this": retry1}, "Accepted"), obs(map[string]map[string]any{"this": retry2}, "Accepted"), []string{"effective-setting-retry"}},
		{"a field more", obs(map[string]map[string]any{"this": retry1}, "Accepted"), obs(map[string]map[string]any{"this": both}, "Accepted"), []string{"effective-setting-circuitBreaker"}},
		{"a path more", obs(map[string]map[string]any{"this": both}, "Accepted"), obs(map[string]map[string]any{"this": both, "other": both}, "Accepted"), []string{"extra-setting-circuitBreaker", "extra-setting-retry"}},
		{"a path less", obs(map[string]map[string]any{"this": both}, "Accepted"), obs(nil, "Accepted"), []string{"effective-setting-circuitBreaker", "effective-setting-retry"}},
		{"conflicted", obs(map[string]map[string]any{"this": retry1}, "Accepted"), conflicted, []string{"conflicted"}},
		{"two kinds", obs(map[string]map[string]any{"this": retry1}, "Accepted"), obs(map[string]map[string]any{"this": retry2, "other": retry2}, "Accepted"), []string{"effective-setting-retry", "extra-setting-retry"}},
	} {
		if got := Kinds(driver.Diff(tc.want, tc.got)); !slices.Equal(got, tc.kinds) {
			t.Errorf("%s: Kinds = %q, want %q (diff %q)", tc.name, got, tc.kinds, driver.Diff(tc.want, tc.got))
		}
	}
}
