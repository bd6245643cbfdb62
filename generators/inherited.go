package generators

import (
	"time"

	"pgregory.net/rapid"
)

// InheritedConfig narrows what KuadrantScenarios and FieldLevelScenarios
// draw.
type InheritedConfig struct {
	// MaxPolicies bounds the policies (default 6).
	MaxPolicies int
	// Kuadrant options: no when conditions, no unset lists, only atomic or
	// only merge blocks, no overrides blocks.
	NoWhen, NoUnset, OnlyAtomic, OnlyMerge, NoOverrides bool
}

func (c InheritedConfig) maxPolicies() int {
	if c.MaxPolicies <= 0 {
		return 6
	}
	return c.MaxPolicies
}

// WhenConditions are the CEL conditions Kuadrant policies draw: on the
// lower policy's limits (self), true, false, and one that fails to evaluate
// on policies without limit a.
var WhenConditions = []string{"true", "false", "has(self.limits) && has(self.limits.a)", "self.limits.a.rates[0].limit > 10"}

// inheritedTopology is one Gateway with two listeners and two HTTPRoutes,
// one with two named rules, in namespace ns-a.
func inheritedTopology(s *Scenario) {
	s.Namespaces = []string{"ns-a"}
	s.GatewayClasses = []string{"gc-1"}
	s.Gateways = []Gateway{{Namespace: "ns-a", Name: "gw", Class: "gc-1", Listeners: []Listener{{Name: "http", Port: 80}, {Name: "https", Port: 443}}}}
	s.Services = []Service{{Namespace: "ns-a", Name: "svc"}}
	backend := []BackendRef{{Name: "svc"}}
	s.Routes = []Route{
		{Namespace: "ns-a", Name: "route-1", Parents: []ParentRef{{Name: "gw"}}, Rules: []Rule{{Name: "rule-1", Backends: backend}, {Name: "rule-2", Backends: backend}}},
		{Namespace: "ns-a", Name: "route-2", Parents: []ParentRef{{Name: "gw", Section: "http"}}, Rules: []Rule{{Name: "rule-1", Backends: backend}}},
	}
}

var inheritedTargets = []Target{
	{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "gw"},
	{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "gw", Section: "http"},
	{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-1"},
	{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-1", Section: "rule-1"},
	{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-2"},
}

func DrawName(t *rapid.T, used map[string]bool) string {
	for {
		n := "p-" + rapid.SampledFrom([]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}).Draw(t, "name")
		if !used[n] {
			used[n] = true
			return n
		}
	}
}

func drawCreated(t *rapid.T) *time.Time {
	if rapid.IntRange(0, 5).Draw(t, "noTimestamp") == 0 {
		return nil
	}
	c := BaseTime.Add(time.Duration(rapid.IntRange(0, 2).Draw(t, "created")) * time.Second)
	return &c
}

// KuadrantScenarios draws RateLimitPolicy scenarios (built-in profile
// kuadrant-ratelimitpolicy) on a Gateway with listeners, routes and rules:
// bare limits or defaults/overrides blocks with atomic or merge strategies,
// when conditions and unset lists, limits named a, b, c.
func KuadrantScenarios(cfg InheritedConfig) *rapid.Generator[*Scenario] {
	return rapid.Custom(func(t *rapid.T) *Scenario {
		s := &Scenario{Profile: "kuadrant-ratelimitpolicy"}
		inheritedTopology(s)
		used := map[string]bool{}
		n := rapid.IntRange(1, cfg.maxPolicies()).Draw(t, "policies")
		for i := 0; i < n; i++ {
			p := Policy{Group: "kuadrant.io", Kind: "RateLimitPolicy", Namespace: "ns-a", Name: DrawName(t, used), Created: drawCreated(t),
				Targets: []Target{rapid.SampledFrom(inheritedTargets).Draw(t, "target")}}
			p.Spec = drawKuadrantSpec(t, cfg)
			s.Policies = append(s.Policies, p)
		}
		return s
	})
}

func drawLimits(t *rapid.T) map[string]any {
	limits := map[string]any{}
	for _, name := range rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"a", "b", "c"}), 1, 3, rapid.ID[string]).Draw(t, "limitNames") {
		limits[name] = map[string]any{"rates": []any{map[string]any{"limit": float64(rapid.IntRange(1, 20).Draw(t, "limit")), "window": "1m"}}}
	}
	return limits
}

func drawKuadrantSpec(t *rapid.T, cfg InheritedConfig) map[string]any {
	spec := map[string]any{}
	if !cfg.NoUnset && rapid.IntRange(0, 3).Draw(t, "hasUnset") == 0 {
		var unset []any
		for _, n := range rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"a", "b", "c"}), 1, 2, rapid.ID[string]).Draw(t, "unset") {
			unset = append(unset, n)
		}
		spec["unset"] = unset
	}
	block := func(label string) map[string]any {
		b := map[string]any{"limits": drawLimits(t)}
		switch {
		case cfg.OnlyAtomic:
		case cfg.OnlyMerge:
			b["strategy"] = "merge"
		default:
			if rapid.Bool().Draw(t, label+"Merge") {
				b["strategy"] = "merge"
			} else if rapid.Bool().Draw(t, label+"ExplicitAtomic") {
				b["strategy"] = "atomic"
			}
		}
		if !cfg.NoWhen && rapid.IntRange(0, 3).Draw(t, label+"HasWhen") == 0 {
			b["when"] = rapid.SampledFrom(WhenConditions).Draw(t, label+"When")
		}
		return b
	}
	shape := rapid.IntRange(0, 3).Draw(t, "shape")
	if cfg.NoOverrides && shape >= 2 {
		shape = 1
	}
	if cfg.OnlyMerge && shape == 0 {
		shape = 1 // bare limits are an atomic block
	}
	switch shape {
	case 0: // bare limits: an atomic block of defaults
		spec["limits"] = drawLimits(t)
	case 1:
		spec["defaults"] = block("defaults")
	case 2:
		spec["overrides"] = block("overrides")
	default:
		spec["defaults"] = block("defaults")
		spec["overrides"] = block("overrides")
	}
	return spec
}

// FieldLevelProfile is the profile of FieldLevelScenarios: FieldPolicy
// targets Namespaces, Gateways and HTTPRoutes and sets, field by field, the
// flat fields a, b, c, d of HTTPRoutes (GEP-2649).
const FieldLevelProfile = `apiVersion: gepcheck.dev/v1alpha1
kind: PolicyProfile
metadata:
  name: field-level
spec:
  description: A GEP-2649 field-level policy kind of gepcheck's generators.
  citation: "GEP-2649, Hierarchy; Merging into existing spec fields"
  policy: {group: test.gepcheck.dev, kind: FieldPolicy}
  targets:
  - {group: "", kind: Namespace}
  - {group: gateway.networking.k8s.io, kind: Gateway}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute}
  effectiveTargets:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute}
  mergeStrategies: [AtomicDefaults, AtomicOverrides]
  selection:
    stanzas: {defaults: defaults, overrides: overrides}
    bareSpec: Defaults
  fieldLevel: {}
`

// FieldLevelScenarios draws GEP-2649 field-level scenarios: policies with
// defaults, overrides or both on the Namespace, the Gateway and the
// HTTPRoutes of inheritedTopology, flat specs over FlatKeys, and some
// HTTPRoutes setting fields of their own.
func FieldLevelScenarios(cfg InheritedConfig) *rapid.Generator[*Scenario] {
	targets := []Target{
		{Kind: "Namespace", Name: "ns-a"},
		{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "gw"},
		{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-1"},
		{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-2"},
	}
	return rapid.Custom(func(t *rapid.T) *Scenario {
		s := &Scenario{ProfileYAML: FieldLevelProfile}
		inheritedTopology(s)
		for _, r := range []string{"route-1", "route-2"} {
			if rapid.IntRange(0, 2).Draw(t, "own-"+r) == 0 {
				s.OwnFields = append(s.OwnFields, OwnFields{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: "ns-a", Name: r, Fields: FlatSpec().Draw(t, "fields-"+r)})
			}
		}
		used := map[string]bool{}
		n := rapid.IntRange(1, cfg.maxPolicies()).Draw(t, "policies")
		for i := 0; i < n; i++ {
			p := Policy{Group: "test.gepcheck.dev", Kind: "FieldPolicy", Namespace: "ns-a", Name: DrawName(t, used), Created: drawCreated(t),
				Targets: []Target{rapid.SampledFrom(targets).Draw(t, "target")}}
			switch rapid.IntRange(0, 3).Draw(t, "shape") {
			case 0:
				p.Spec = FlatSpec().Draw(t, "bare")
			case 1:
				p.Spec = map[string]any{"defaults": FlatSpec().Draw(t, "defaults")}
			case 2:
				p.Spec = map[string]any{"overrides": FlatSpec().Draw(t, "overrides")}
			default:
				p.Spec = map[string]any{"defaults": FlatSpec().Draw(t, "defaults"), "overrides": FlatSpec().Draw(t, "overrides")}
			}
			s.Policies = append(s.Policies, p)
		}
		return s
	})
}
