package generators

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gepcheck/gepcheck/simulator/profile"
)

// Config bounds what the generators draw. The zero value is usable.
type Config struct {
	// MaxObjects bounds the objects of a scenario: every GatewayClass,
	// Gateway, route, Service and ReferenceGrant (generic scenarios: every
	// node). 0 means 20. Gateway API scenarios need at least 4 (a
	// GatewayClass, a Gateway, a route and a Service), generic ones 2.
	MaxObjects int
	// MaxPolicies bounds the policies; 0 means 10.
	MaxPolicies int
	// Profile is "color-direct", "color-inherited", "backendtlspolicy",
	// "all-levels" (AllLevelsProfile), or "" to draw one of them. Generic
	// scenarios ignore it: they come with a profile of their own.
	Profile string
	// Strategies, when not empty, restricts the merge strategies policies
	// select, e.g. only PatchDefaults and PatchOverrides. With Profile "",
	// only profiles implementing one of them are drawn.
	Strategies []profile.Strategy
	// FlatSpecs makes every spec proper a flat object of one to four scalar
	// fields, keys from FlatKeys, values short strings or small integers,
	// never null: for field-precedence oracles.
	FlatSpecs bool
	// NoInvalid draws no policy a controller would reject: no missing
	// targets, forbidden kinds or sections, missing sections, cross-namespace
	// targets without a grant, or invalid strategy selections.
	NoInvalid bool
	// CrossNamespace uses AllLevelsCrossNamespaceProfile instead of
	// AllLevelsProfile for "all-levels", so that cross-namespace targets are
	// honoured when a ReferenceGrant allows them (some are drawn with one,
	// some without).
	CrossNamespace bool
	// Hierarchy draws Gateway API v1.6's hierarchy beyond HTTP: Gateways
	// that allow ListenerSets (GEP-1713) and ListenerSets with HTTP, TCP,
	// TLS and UDP listeners, TCP/TLS/UDP listeners on Gateways, routes of
	// every kind (TCPRoute, TLSRoute, UDPRoute besides HTTPRoute and
	// GRPCRoute) attached to Gateways or ListenerSets, a label on routes,
	// and with "all-levels" the profile HierarchyProfile: policies that
	// target ListenerSets, their listeners, every route kind and its
	// rules, and label-selector targets.
	Hierarchy bool
}

// DefaultMaxObjects and DefaultMaxPolicies are the bounds of a zero Config.
const (
	DefaultMaxObjects  = 20
	DefaultMaxPolicies = 10
)

// ProfileNames lists the values of Config.Profile, besides "", in the order
// Scenarios draws (and shrinks towards) them.
var ProfileNames = []string{"all-levels", "color-inherited", "color-direct", "backendtlspolicy"}

// FlatKeys are the keys of flat specs (Config.FlatSpecs).
var FlatKeys = []string{"a", "b", "c", "d"}

// Group and kind of the policies of AllLevelsProfile.
const (
	TestPolicyGroup = "test.gepcheck.dev"
	TestPolicyKind  = "TestPolicy"
)

// Group of the kinds of generic scenarios, and their policy kind.
const (
	GenericGroup      = "example.gepcheck.dev"
	GenericPolicyKind = "P"
)

// AllLevelsProfile is the "all-levels" profile: TestPolicy targets every
// level of the Gateway API hierarchy, listeners and HTTPRoute rules
// included, augments Services, and implements the four merging strategies,
// selected as color-inherited does.
const AllLevelsProfile = `apiVersion: gepcheck.dev/v1alpha1
kind: PolicyProfile
metadata:
  name: all-levels
spec:
  description: >-
    TestPolicy, a policy kind of gepcheck's generators: targets GatewayClasses,
    Gateways or their listeners, HTTPRoutes or their rules, GRPCRoutes and
    Services, augmenting Services. A bare spec is defaults; defaults/overrides
    stanzas and a strategy field (atomic, the default, or patch) at spec level
    or inside a stanza select the merge strategy.
  citation: "GEP-713, Hierarchy of target kinds; Merge strategies; Selecting a merge strategy at runtime"
  policy:
    group: test.gepcheck.dev
    kind: TestPolicy
  targets:
  - {group: gateway.networking.k8s.io, kind: GatewayClass}
  - {group: gateway.networking.k8s.io, kind: Gateway, sectionName: Optional}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, sectionName: Optional}
  - {group: gateway.networking.k8s.io, kind: GRPCRoute}
  - {group: "", kind: Service}
  effectiveTargets:
  - {group: "", kind: Service}
  mergeStrategies: [AtomicDefaults, PatchDefaults, AtomicOverrides, PatchOverrides]
  selection:
    stanzas: {defaults: defaults, overrides: overrides}
    bareSpec: Defaults
    strategyField: strategy
    strategyValues: {atomic: Atomic, patch: Patch}
`

// HierarchyProfile is the "all-levels" profile under Config.Hierarchy:
// AllLevelsProfile's targets, plus ListenerSets (or one listener),
// TLSRoutes, TCPRoutes and UDPRoutes (or one rule), and label-selector
// targets in spec.targetSelectors.
var HierarchyProfile = strings.Replace(
	strings.Replace(AllLevelsProfile, "name: all-levels\n", "name: all-levels-hierarchy\n", 1),
	"  - {group: \"\", kind: Service}\n  effectiveTargets:",
	"  - {group: \"\", kind: Service}\n"+
		"  - {group: gateway.networking.k8s.io, kind: ListenerSet, sectionName: Optional}\n"+
		"  - {group: gateway.networking.k8s.io, kind: TLSRoute, sectionName: Optional}\n"+
		"  - {group: gateway.networking.k8s.io, kind: TCPRoute, sectionName: Optional}\n"+
		"  - {group: gateway.networking.k8s.io, kind: UDPRoute, sectionName: Optional}\n"+
		"  targetSelectors: {field: targetSelectors}\n"+
		"  effectiveTargets:", 1)

// AllLevelsCrossNamespaceProfile is AllLevelsProfile allowing
// cross-namespace targets (honoured with a ReferenceGrant), used for
// "all-levels" when Config.CrossNamespace is set.
var AllLevelsCrossNamespaceProfile = strings.Replace(
	strings.Replace(AllLevelsProfile, "name: all-levels\n", "name: all-levels-cross-namespace\n", 1),
	"  mergeStrategies:", "  crossNamespace: true\n  mergeStrategies:", 1)

// genericProfile returns the profile of a generic scenario: kind P targets
// every kind and augments the last one.
func genericProfile(kinds []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: gepcheck.dev/v1alpha1
kind: PolicyProfile
metadata:
  name: generic-%s
spec:
  description: Policy kind P of a generic scenario of gepcheck's generators, targeting every kind and augmenting the last.
  citation: "GEP-713, Abstract process for calculating Effective policies"
  policy: {group: %s, kind: %s}
  targets:
`, strings.ToLower(strings.Join(kinds, "")), GenericGroup, GenericPolicyKind)
	for _, k := range kinds {
		fmt.Fprintf(&b, "  - {group: %s, kind: %s}\n", GenericGroup, k)
	}
	fmt.Fprintf(&b, `  effectiveTargets:
  - {group: %s, kind: %s}
  mergeStrategies: [AtomicDefaults, PatchDefaults, AtomicOverrides, PatchOverrides]
  selection:
    stanzas: {defaults: defaults, overrides: overrides}
    bareSpec: Defaults
    strategyField: strategy
    strategyValues: {atomic: Atomic, patch: Patch}
`, GenericGroup, kinds[len(kinds)-1])
	return b.String()
}

// Validate checks c: a known profile, bounds that leave room for a
// scenario, strategies a drawable profile implements.
func (c Config) Validate() error { return c.validate(4) }

// ValidateGeneric checks c for GenericScenarios, which ignores Profile and
// needs at least 2 objects.
func (c Config) ValidateGeneric() error {
	c.Profile = ""
	if len(c.Strategies) > 0 && len(c.merging()) == 0 {
		return fmt.Errorf("generic scenarios implement AtomicDefaults, PatchDefaults, AtomicOverrides and PatchOverrides, none of %v", c.Strategies)
	}
	return c.validate(2)
}

func (c Config) validate(minObjects int) error {
	if c.Profile != "" && !slices.Contains(ProfileNames, c.Profile) {
		return fmt.Errorf("unknown profile %q (one of %s)", c.Profile, strings.Join(ProfileNames, ", "))
	}
	if c.MaxObjects < 0 || c.MaxPolicies < 0 {
		return fmt.Errorf("MaxObjects and MaxPolicies must not be negative")
	}
	if c.MaxObjects > 0 && c.MaxObjects < minObjects {
		return fmt.Errorf("MaxObjects %d: a scenario needs at least %d objects (Gateway API: GatewayClass, Gateway, route, Service; generic: two kinds)", c.MaxObjects, minObjects)
	}
	for _, s := range c.Strategies {
		if s == profile.Custom || s < profile.None || s > profile.Custom {
			return fmt.Errorf("strategy %v cannot be drawn", s)
		}
	}
	if len(c.profileChoices()) == 0 || c.Profile != "" && !c.fits(c.Profile) {
		return fmt.Errorf("no profile %q implements the strategies %v", c.Profile, c.Strategies)
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.MaxObjects == 0 {
		c.MaxObjects = DefaultMaxObjects
	}
	if c.MaxPolicies == 0 {
		c.MaxPolicies = DefaultMaxPolicies
	}
	return c
}

// profileChoices lists the profiles Scenarios draws from, in ProfileNames
// order: those fitting Strategies. The list does not depend on Profile, so
// that a draw with Profile set consumes the same random bits as one without
// (gepcheck gen relies on this).
func (c Config) profileChoices() []string {
	var out []string
	for _, n := range ProfileNames {
		if c.fits(n) {
			out = append(out, n)
		}
	}
	return out
}

// fits reports whether profile name implements a strategy of Strategies.
func (c Config) fits(name string) bool {
	if len(c.Strategies) == 0 {
		return true
	}
	if name == "color-direct" || name == "backendtlspolicy" {
		return slices.Contains(c.Strategies, profile.None)
	}
	return len(c.merging()) > 0
}

// merging returns the merging strategies policies may select.
func (c Config) merging() []profile.Strategy {
	all := []profile.Strategy{profile.AtomicDefaults, profile.PatchDefaults, profile.AtomicOverrides, profile.PatchOverrides}
	if len(c.Strategies) == 0 {
		return all
	}
	var out []profile.Strategy
	for _, s := range all {
		if slices.Contains(c.Strategies, s) {
			out = append(out, s)
		}
	}
	return out
}

// Profiles are parsed once: Model runs thousands of times per second.
var (
	profileMu    sync.Mutex
	profileCache = map[string]*profile.Profile{}
	builtinOnce  sync.Once
	builtins     map[string]*profile.Profile
	builtinErr   error
)

// ParsedProfile returns the parsed profile of s: the built-in s.Profile, or
// s.ProfileYAML. The result is shared: treat it as read-only.
func (s *Scenario) ParsedProfile() (*profile.Profile, error) {
	if s.ProfileYAML == "" {
		builtinOnce.Do(func() { builtins, builtinErr = profile.Builtins() })
		if builtinErr != nil {
			return nil, builtinErr
		}
		p, ok := builtins[s.Profile]
		if !ok {
			return nil, fmt.Errorf("no built-in profile %q", s.Profile)
		}
		return p, nil
	}
	profileMu.Lock()
	defer profileMu.Unlock()
	if p, ok := profileCache[s.ProfileYAML]; ok {
		return p, nil
	}
	p, err := profile.Parse([]byte(s.ProfileYAML), "generated profile")
	if err != nil {
		return nil, err
	}
	profileCache[s.ProfileYAML] = p
	return p, nil
}

// ProfileName returns the name of the scenario's profile.
func (s *Scenario) ProfileName() string {
	if s.ProfileYAML == "" {
		return s.Profile
	}
	p, err := s.ParsedProfile()
	if err != nil {
		return ""
	}
	return p.Metadata.Name
}
