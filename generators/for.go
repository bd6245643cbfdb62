package generators

import (
	"maps"
	"slices"

	"pgregory.net/rapid"
)

// drawers are the profiles whose scenarios have a shape of their own, drawn
// in namespace ns with at most maxPolicies policies (0: the generator's
// default); every other built-in profile draws Scenarios(Config).
var drawers = map[string]func(ns string, maxPolicies int) *rapid.Generator[*Scenario]{
	"kuadrant-ratelimitpolicy": func(_ string, n int) *rapid.Generator[*Scenario] {
		return KuadrantScenarios(InheritedConfig{MaxPolicies: n})
	},
	"field-level": func(_ string, n int) *rapid.Generator[*Scenario] {
		return FieldLevelScenarios(InheritedConfig{MaxPolicies: n})
	},
}

// Register adds the generator of a profile whose scenarios have a shape of
// their own; implementations register theirs (impl/…).
func Register(profile string, draw func(ns string, maxPolicies int) *rapid.Generator[*Scenario]) {
	if _, dup := drawers[profile]; dup {
		panic("generators: two generators for profile " + profile)
	}
	drawers[profile] = draw
}

// For returns the generator of a profile whose scenarios have a shape of
// their own (DrawnProfiles), in namespace ns where the shape allows it.
func For(profile, ns string, maxPolicies int) (*rapid.Generator[*Scenario], bool) {
	d, ok := drawers[profile]
	if !ok {
		return nil, false
	}
	return d(ns, maxPolicies), true
}

// DrawnProfiles lists the profiles For knows, sorted.
func DrawnProfiles() []string { return slices.Sorted(maps.Keys(drawers)) }
