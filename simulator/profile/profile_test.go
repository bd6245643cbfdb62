package profile_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/profile"
)

// validProfile returns a profile that passes Validate: an Inherited kind
// implementing the four non-custom strategies with a way to select one at
// runtime (GEP-713, Selecting a merge strategy at runtime).
func validProfile() *profile.Profile {
	return &profile.Profile{
		APIVersion: profile.APIVersion,
		Kind:       "PolicyProfile",
		Metadata:   profile.Metadata{Name: "t"},
		Spec: profile.Spec{
			Policy: profile.GroupKind{Group: "example.com", Kind: "XPolicy"},
			Targets: []profile.Target{
				{Group: "gateway.networking.k8s.io", Kind: "Gateway", SectionName: profile.SectionOptional},
				{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"},
			},
			EffectiveTargets: []profile.EffectiveTarget{{Group: "", Kind: "Service"}},
			MergeStrategies:  []string{"PatchOverrides", "AtomicDefaults", "AtomicOverrides", "PatchDefaults"},
			Selection: &profile.Selection{
				Stanzas:        &profile.Stanzas{Defaults: "defaults", Overrides: "overrides"},
				BareSpec:       "Defaults",
				StrategyField:  "strategy",
				StrategyValues: map[string]string{"atomic": "Atomic", "patch": "Patch"},
			},
		},
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(p *profile.Profile)
		// field is the FieldError.Field expected; "" means Validate must
		// accept the profile.
		field string
		// msg lists substrings of the message.
		msg []string
	}{
		{name: "valid", mutate: func(*profile.Profile) {}},
		{
			name:   "noneRejects not Target or Policy",
			mutate: func(p *profile.Profile) { p.Spec.NoneRejects = "Path" },
			field:  "spec.noneRejects",
			msg:    []string{"Target", "Policy", `"Path"`},
		},
		{
			// The choice is about None's challengers only.
			name:   "noneRejects on a kind with other strategies",
			mutate: func(p *profile.Profile) { p.Spec.NoneRejects = "Policy" },
			field:  "spec.noneRejects",
			msg:    []string{"only merge strategy is None"},
		},
		{
			// GEP-713, Merge strategy: None: "The None merge strategy MUST
			// NOT be implemented in combination with any other merge
			// strategy".
			name: "None combined with another strategy",
			mutate: func(p *profile.Profile) {
				p.Spec.MergeStrategies = []string{"None", "AtomicDefaults"}
				p.Spec.Selection = nil
			},
			field: "spec.mergeStrategies",
			msg:   []string{"None", "AtomicDefaults"},
		},
		{
			// Same rule, whatever the order the strategies are listed in.
			name: "None listed after another strategy",
			mutate: func(p *profile.Profile) {
				p.Spec.MergeStrategies = []string{"PatchOverrides", "None"}
			},
			field: "spec.mergeStrategies",
			msg:   []string{"None", "PatchOverrides"},
		},
		{
			// GEP-713, Merge strategies: "Policy CRDs MUST implement at
			// least one of the merge strategies listed above."
			name:   "empty mergeStrategies",
			mutate: func(p *profile.Profile) { p.Spec.MergeStrategies = nil },
			field:  "spec.mergeStrategies",
		},
		{
			// GEP-713, Merge strategies: "Policy CRD that implement more
			// than one merge strategy MUST provide a way for users to
			// select the merge strategy at runtime."
			name:   "more than one strategy without selection",
			mutate: func(p *profile.Profile) { p.Spec.Selection = nil },
			field:  "spec.selection",
		},
		{
			// One strategy needs nothing to select.
			name: "one strategy without selection",
			mutate: func(p *profile.Profile) {
				p.Spec.MergeStrategies = []string{"PatchDefaults"}
				p.Spec.Selection = nil
			},
		},
		{
			// GEP-713, Custom merge strategies: "a custom merge algorithm
			// specified by the policy kind" is code; docs/profiles.md:
			// "a profile cannot declare one".
			name: "Custom refused",
			mutate: func(p *profile.Profile) {
				p.Spec.MergeStrategies = []string{"Custom"}
				p.Spec.Selection = nil
			},
			field: "spec.mergeStrategies",
			msg:   []string{"Custom"},
		},
		{
			name:   "unknown strategy",
			mutate: func(p *profile.Profile) { p.Spec.MergeStrategies = []string{"AtomicDefaults", "Merge"} },
			field:  "spec.mergeStrategies[1]",
			msg:    []string{`"Merge"`},
		},
		{
			name:   "strategy listed twice",
			mutate: func(p *profile.Profile) { p.Spec.MergeStrategies = []string{"AtomicDefaults", "AtomicDefaults"} },
			field:  "spec.mergeStrategies[1]",
		},
		{
			// docs/profiles.md: sectionName is Forbidden, Optional or
			// Required.
			name:   "bad sectionName",
			mutate: func(p *profile.Profile) { p.Spec.Targets[1].SectionName = "Sometimes" },
			field:  "spec.targets[1].sectionName",
			msg:    []string{`"Sometimes"`},
		},
		{
			// docs/profiles.md: bareSpec is Defaults or Overrides.
			name:   "bad bareSpec",
			mutate: func(p *profile.Profile) { p.Spec.Selection.BareSpec = "Atomic" },
			field:  "spec.selection.bareSpec",
			msg:    []string{`"Atomic"`},
		},
		{
			// docs/profiles.md: strategyValues map a value to Atomic or
			// Patch (the two modes of GEP-713's strategies).
			name: "strategyValues not Atomic or Patch",
			mutate: func(p *profile.Profile) {
				p.Spec.Selection.StrategyValues = map[string]string{"atomic": "Atomic", "merge": "Merge"}
			},
			field: "spec.selection.strategyValues.merge",
			msg:   []string{`"Merge"`},
		},
		{
			name:   "strategyField without strategyValues",
			mutate: func(p *profile.Profile) { p.Spec.Selection.StrategyValues = nil },
			field:  "spec.selection.strategyValues",
		},
		{
			name:   "no targets",
			mutate: func(p *profile.Profile) { p.Spec.Targets = nil },
			field:  "spec.targets",
		},
		{
			name:   "no effective targets",
			mutate: func(p *profile.Profile) { p.Spec.EffectiveTargets = nil },
			field:  "spec.effectiveTargets",
		},
		{
			name:   "wrong kind",
			mutate: func(p *profile.Profile) { p.Kind = "Profile" },
			field:  "kind",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := validProfile()
			tc.mutate(p)
			err := p.Validate()
			if tc.field == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate() = nil, want an error naming %s", tc.field)
			}
			var fe *profile.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Validate() error %T (%v) is not a *FieldError", err, err)
			}
			if fe.Field != tc.field {
				t.Errorf("field = %q, want %q (%v)", fe.Field, tc.field, err)
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("error %q does not name %s", err, tc.field)
			}
			for _, m := range tc.msg {
				if !strings.Contains(fe.Msg, m) {
					t.Errorf("message %q does not contain %q", fe.Msg, m)
				}
			}
		})
	}
}

// TestValidateOrdersStrategies checks that Strategies come in the GEP's
// default order whatever order the profile lists them in (GEP-713,
// Selecting a merge strategy at runtime: "Atomic Defaults - Patch Defaults -
// Atomic Overrides - Patch Overrides - Custom").
func TestValidateOrdersStrategies(t *testing.T) {
	p := validProfile()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	want := []profile.Strategy{profile.AtomicDefaults, profile.PatchDefaults, profile.AtomicOverrides, profile.PatchOverrides}
	if got := p.Strategies(); !reflect.DeepEqual(got, want) {
		t.Errorf("Strategies() = %v, want %v", got, want)
	}
	// The sectionName rule left empty defaults to Forbidden
	// (docs/profiles.md).
	if got := p.Spec.Targets[1].SectionName; got != profile.SectionForbidden {
		t.Errorf("default sectionName = %q, want Forbidden", got)
	}
}

// TestParseNamesSource checks that Parse errors name the source and the
// field, and that None combined with another strategy is refused naming
// spec.mergeStrategies.
func TestParseNamesSource(t *testing.T) {
	_, err := profile.Parse([]byte(`
apiVersion: gepcheck.dev/v1alpha1
kind: PolicyProfile
metadata: {name: bad}
spec:
  policy: {group: example.com, kind: XPolicy}
  targets: [{group: "", kind: Service}]
  effectiveTargets: [{group: "", kind: Service}]
  mergeStrategies: [None, AtomicDefaults]
`), "my-profile.yaml")
	if err == nil {
		t.Fatal("Parse accepted None combined with AtomicDefaults")
	}
	for _, want := range []string{"my-profile.yaml", "spec.mergeStrategies"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	var fe *profile.FieldError
	if !errors.As(err, &fe) || fe.Field != "spec.mergeStrategies" {
		t.Errorf("error %v does not unwrap to a FieldError on spec.mergeStrategies", err)
	}
}

func builtin(t *testing.T, name string) *profile.Profile {
	t.Helper()
	b, err := profile.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	p, ok := b[name]
	if !ok {
		t.Fatalf("no built-in profile %q", name)
	}
	return p
}

// spec decodes a JSON policy spec.
func spec(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad test spec %s: %v", s, err)
	}
	return m
}

const targetRefs = `"targetRefs": [{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "g1"}]`

func TestInterpretColorInherited(t *testing.T) {
	p := builtin(t, "color-inherited")
	tests := []struct {
		name     string
		spec     string
		strategy profile.Strategy
		proper   string // JSON of the spec proper
		invalid  []string
	}{
		{
			// GEP-713, Example 2: "The policies can specify either
			// defaults (assumed unless specified otherwise) or overrides";
			// Selecting a merge strategy at runtime: "whenever the merge
			// strategy is not specified, the first ... Atomic Defaults".
			name:     "bare spec is Atomic defaults",
			spec:     `{` + targetRefs + `, "color": "red"}`,
			strategy: profile.AtomicDefaults,
			proper:   `{"color": "red"}`,
		},
		{
			// GEP-713, Example 3: a strategy field, atomic or patch; a
			// bare spec is defaults, so patch gives Patch defaults.
			name:     "strategy patch is Patch defaults",
			spec:     `{` + targetRefs + `, "strategy": "patch", "colors": {"light": "red"}}`,
			strategy: profile.PatchDefaults,
			proper:   `{"colors": {"light": "red"}}`,
		},
		{
			name:     "strategy atomic is Atomic defaults",
			spec:     `{` + targetRefs + `, "strategy": "atomic", "color": "red"}`,
			strategy: profile.AtomicDefaults,
			proper:   `{"color": "red"}`,
		},
		{
			// GEP-713: an overrides field, "in the lack further
			// discrimination of a more specific strategy, SHOULD assume
			// the Atomic Overrides merge strategy".
			name:     "overrides stanza is Atomic overrides",
			spec:     `{` + targetRefs + `, "overrides": {"color": "yellow"}}`,
			strategy: profile.AtomicOverrides,
			proper:   `{"color": "yellow"}`,
		},
		{
			// GEP-713, Example 3, p3: overrides with strategy: patch.
			name:     "overrides with strategy patch is Patch overrides",
			spec:     `{` + targetRefs + `, "overrides": {"strategy": "patch", "colors": {"light": "yellow"}}}`,
			strategy: profile.PatchOverrides,
			proper:   `{"colors": {"light": "yellow"}}`,
		},
		{
			// GEP-713: a defaults field SHOULD assume Atomic Defaults.
			name:     "defaults stanza is Atomic defaults",
			spec:     `{` + targetRefs + `, "defaults": {"color": "red"}}`,
			strategy: profile.AtomicDefaults,
			proper:   `{"color": "red"}`,
		},
		{
			// docs/profiles.md: the strategy field may sit at spec level
			// next to a stanza.
			name:     "strategy at spec level with an overrides stanza",
			spec:     `{` + targetRefs + `, "strategy": "patch", "overrides": {"colors": {"light": "yellow"}}}`,
			strategy: profile.PatchOverrides,
			proper:   `{"colors": {"light": "yellow"}}`,
		},
		{
			// Both places agreeing is one strategy, not two.
			name:     "strategy at both levels agreeing",
			spec:     `{` + targetRefs + `, "strategy": "patch", "defaults": {"strategy": "patch", "colors": {"dark": "brown"}}}`,
			strategy: profile.PatchDefaults,
			proper:   `{"colors": {"dark": "brown"}}`,
		},
		{
			// GEP-713: "User MUST NOT be allowed to specify at any
			// individual Policy CR more than one merge strategy at a time."
			name:    "both stanzas",
			spec:    `{` + targetRefs + `, "defaults": {"color": "red"}, "overrides": {"color": "blue"}}`,
			invalid: []string{"defaults", "overrides"},
		},
		{
			// Same rule: atomic at spec level, patch inside the stanza.
			name:    "disagreeing strategy fields",
			spec:    `{` + targetRefs + `, "strategy": "atomic", "overrides": {"strategy": "patch", "color": "blue"}}`,
			invalid: []string{"spec.strategy", "spec.overrides.strategy", "disagree"},
		},
		{
			name:    "unknown strategy value",
			spec:    `{` + targetRefs + `, "strategy": "merge", "color": "red"}`,
			invalid: []string{`"merge"`, "atomic", "patch"},
		},
		{
			// docs/profiles.md: "Spec-proper fields next to a stanza are
			// Invalid."
			name:    "stray spec-proper field next to a stanza",
			spec:    `{` + targetRefs + `, "color": "red", "overrides": {"color": "blue"}}`,
			invalid: []string{"color", "spec.overrides"},
		},
		{
			name:    "stanza not an object",
			spec:    `{` + targetRefs + `, "overrides": "blue"}`,
			invalid: []string{"spec.overrides", "object"},
		},
		{
			// GEP-713, Policy structure: targetRefs and the merge strategy
			// fields are not the "spec proper".
			name:     "spec proper excludes targetRefs and strategy",
			spec:     `{` + targetRefs + `, "strategy": "atomic", "colors": {"dark": "brown", "light": "red"}, "width": 2}`,
			strategy: profile.AtomicDefaults,
			proper:   `{"colors": {"dark": "brown", "light": "red"}, "width": 2}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := p.Interpret(spec(t, tc.spec))
			if len(tc.invalid) > 0 {
				if in.Invalid == "" {
					t.Fatalf("Interpret(%s) accepted the spec as %s %v, want Invalid", tc.spec, in.Strategy, in.SpecProper)
				}
				for _, w := range tc.invalid {
					if !strings.Contains(in.Invalid, w) {
						t.Errorf("Invalid %q does not contain %q", in.Invalid, w)
					}
				}
				return
			}
			if in.Invalid != "" {
				t.Fatalf("Interpret(%s) is Invalid: %s", tc.spec, in.Invalid)
			}
			if in.Strategy != tc.strategy {
				t.Errorf("strategy = %s, want %s", in.Strategy, tc.strategy)
			}
			if want := spec(t, tc.proper); !reflect.DeepEqual(in.SpecProper, want) {
				t.Errorf("spec proper = %v, want %v", in.SpecProper, want)
			}
		})
	}
}

// TestInterpretUnimplemented: a kind implementing only Atomic defaults and
// Atomic overrides cannot honour strategy: patch; GEP-713 allows selecting
// only "one of the merge strategies associated with the Policy CRD", so the
// policy is Invalid and the message names, with the GEP's names ("Merge
// strategies referred in the status message MUST use the same name of
// strategy as defined in this GEP"), what the kind implements.
func TestInterpretUnimplemented(t *testing.T) {
	p, err := profile.Parse([]byte(`
apiVersion: gepcheck.dev/v1alpha1
kind: PolicyProfile
metadata: {name: atomic-only}
spec:
  policy: {group: example.com, kind: AtomicPolicy}
  targets: [{group: gateway.networking.k8s.io, kind: Gateway}, {group: gateway.networking.k8s.io, kind: HTTPRoute}]
  effectiveTargets: [{group: "", kind: Service}]
  mergeStrategies: [AtomicDefaults, AtomicOverrides]
  selection:
    stanzas: {defaults: defaults, overrides: overrides}
    bareSpec: Defaults
    strategyField: strategy
    strategyValues: {atomic: Atomic, patch: Patch}
`), "test")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`{` + targetRefs + `, "strategy": "patch", "color": "red"}`,
		`{` + targetRefs + `, "overrides": {"strategy": "patch", "color": "red"}}`,
	} {
		in := p.Interpret(spec(t, s))
		if in.Invalid == "" {
			t.Errorf("Interpret(%s) = %s, want Invalid", s, in.Strategy)
			continue
		}
		for _, w := range []string{"AtomicPolicy", "Patch", "Atomic defaults", "Atomic overrides"} {
			if !strings.Contains(in.Invalid, w) {
				t.Errorf("Interpret(%s): Invalid %q does not contain %q", s, in.Invalid, w)
			}
		}
	}
	// The strategies it does implement are still selectable.
	if in := p.Interpret(spec(t, `{`+targetRefs+`, "overrides": {"color": "red"}}`)); in.Invalid != "" || in.Strategy != profile.AtomicOverrides {
		t.Errorf("overrides stanza: got %s %q, want Atomic overrides", in.Strategy, in.Invalid)
	}
}

// TestInterpretNone: a None kind has nothing to select; the spec proper is
// the spec minus targetRefs (GEP-713, Policy structure).
func TestInterpretNone(t *testing.T) {
	p := builtin(t, "backendtlspolicy")
	in := p.Interpret(spec(t, `{"targetRefs": [{"group": "", "kind": "Service", "name": "s"}], "validation": {"hostname": "s.example.com"}}`))
	if in.Invalid != "" || in.Strategy != profile.None {
		t.Fatalf("got %s %q, want None", in.Strategy, in.Invalid)
	}
	if want := spec(t, `{"validation": {"hostname": "s.example.com"}}`); !reflect.DeepEqual(in.SpecProper, want) {
		t.Errorf("spec proper = %v, want %v", in.SpecProper, want)
	}
}

func TestBuiltins(t *testing.T) {
	b, err := profile.Builtins()
	if err != nil {
		t.Fatalf("a built-in profile does not parse: %v", err)
	}
	names := profile.BuiltinNames()
	if !sort.StringsAreSorted(names) {
		t.Errorf("BuiltinNames() = %v, not sorted", names)
	}
	if len(names) != len(b) {
		t.Errorf("BuiltinNames() = %v, Builtins() has %d profiles", names, len(b))
	}
	// The built-ins docs/profiles.md and README.md document.
	for _, want := range []string{"backendtlspolicy", "color-direct", "color-inherited"} {
		if _, ok := b[want]; !ok {
			t.Errorf("no built-in profile %q (have %v)", want, names)
		}
	}
	for name, p := range b {
		if p.Metadata.Name != name {
			t.Errorf("built-in %q has metadata.name %q", name, p.Metadata.Name)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("built-in %q: %v", name, err)
		}
		if p.Spec.Citation == "" {
			t.Errorf("built-in %q cites no spec", name)
		}
	}
	// What each models, from the spec it cites.
	strategies := map[string][]profile.Strategy{
		// GEP-713, Example 1: Direct; Direct class: "None is the only merge
		// strategy supported".
		"color-direct": {profile.None},
		// GEP-713, Current use of policies: BackendTLSPolicy | Service,
		// Port | None | Direct.
		"backendtlspolicy": {profile.None},
		// GEP-713, Examples 2 and 3: atomic and patch, defaults and
		// overrides.
		"color-inherited": {profile.AtomicDefaults, profile.PatchDefaults, profile.AtomicOverrides, profile.PatchOverrides},
	}
	for name, want := range strategies {
		if p := b[name]; p != nil && !reflect.DeepEqual(p.Strategies(), want) {
			t.Errorf("built-in %q implements %v, want %v", name, p.Strategies(), want)
		}
	}
	// BackendTLSPolicy targets a Service or one of its ports (GEP-713,
	// implementations table: "Service, Port").
	if p := b["backendtlspolicy"]; p != nil {
		tg, ok := p.Target("", "Service")
		if !ok || tg.SectionName != profile.SectionOptional {
			t.Errorf("backendtlspolicy Service target = %+v, %v; want sectionName Optional", tg, ok)
		}
	}
}
