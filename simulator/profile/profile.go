// Package profile describes policy kinds: what they may target, which merge
// strategies they implement (GEP-713, "Merge strategies"), how a policy
// object selects one at runtime ("Selecting a merge strategy at runtime") and
// which part of its spec is the "spec proper" ("Policy structure").
//
// A profile is a YAML document of kind PolicyProfile; see docs/profiles.md.
package profile

import (
	"embed"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/simulator/crd"
)

// APIVersion is the apiVersion of gepcheck's own documents.
const APIVersion = "gepcheck.dev/v1alpha1"

// Strategy is a merge strategy of GEP-713. The order of the constants after
// None is the GEP's default order: "whenever the merge strategy is not
// specified, the first of the following merge strategies associated with the
// Policy kind, in order, SHOULD be assumed: Atomic Defaults, Patch Defaults,
// Atomic Overrides, Patch Overrides, Custom".
type Strategy int

// The merge strategies of GEP-713.
const (
	None Strategy = iota
	AtomicDefaults
	PatchDefaults
	AtomicOverrides
	PatchOverrides
	Custom
)

var strategyNames = []string{"None", "AtomicDefaults", "PatchDefaults", "AtomicOverrides", "PatchOverrides", "Custom"}
var strategyTitles = []string{"None", "Atomic defaults", "Patch defaults", "Atomic overrides", "Patch overrides", "Custom"}

// String returns the identifier used in profiles, e.g. "PatchOverrides".
func (s Strategy) String() string {
	if s < 0 || int(s) >= len(strategyNames) {
		return fmt.Sprintf("Strategy(%d)", int(s))
	}
	return strategyNames[s]
}

// Title returns the GEP's name of the strategy, e.g. "Patch overrides"
// (GEP-713: "Merge strategies referred in the status message MUST use the same
// name of strategy as defined in this GEP").
func (s Strategy) Title() string {
	if s < 0 || int(s) >= len(strategyTitles) {
		return s.String()
	}
	return strategyTitles[s]
}

// IsOverride reports whether s is an overrides strategy.
func (s Strategy) IsOverride() bool { return s == AtomicOverrides || s == PatchOverrides }

// IsPatch reports whether s merges with RFC 7386.
func (s Strategy) IsPatch() bool { return s == PatchDefaults || s == PatchOverrides }

// ParseStrategy reads a strategy identifier.
func ParseStrategy(s string) (Strategy, error) {
	for i, n := range strategyNames {
		if n == s {
			return Strategy(i), nil
		}
	}
	return 0, fmt.Errorf("unknown merge strategy %q (one of %s)", s, strings.Join(strategyNames, ", "))
}

// SectionRule says whether a target may name a section.
type SectionRule string

// Section rules of a target kind.
const (
	SectionForbidden SectionRule = "Forbidden"
	SectionOptional  SectionRule = "Optional"
	SectionRequired  SectionRule = "Required"
)

// Profile is a PolicyProfile document.
type Profile struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   Metadata `json:"metadata"`
	Spec       Spec     `json:"spec"`

	// Source says where the profile came from (a file, or builtin:NAME).
	Source string `json:"-"`
	// CRD, when set, is the kind's built-in CustomResourceDefinition
	// (crd.Builtin): Interpret reads every policy as the API server stores
	// it with that schema's storage version (simulator/crd), and
	// Spec.Stored is not used (docs/profiles.md, What is stored). Every
	// built-in profile of a kind with a built-in CRD gets it; the
	// simulator stores a policy with an input's or a cluster's CRD of its
	// kind first (InterpretStored).
	CRD        *crd.Handle `json:"-"`
	strategies []Strategy  // parsed Spec.MergeStrategies
}

// Metadata names a profile.
type Metadata struct {
	Name string `json:"name"`
}

// Spec describes one policy kind.
type Spec struct {
	Description string `json:"description,omitempty"`
	// Citation names the spec section the profile models.
	Citation string    `json:"citation,omitempty"`
	Policy   GroupKind `json:"policy"`
	// Targets are the declared target kinds (GEP-713, "Declared targets
	// versus Effective targets").
	Targets []Target `json:"targets"`
	// EffectiveTargets are the kinds whose behaviour the policy augments.
	EffectiveTargets []EffectiveTarget `json:"effectiveTargets"`
	// TargetSelectors, when set, says the kind also targets objects by
	// label, as implementations' policy kinds do (docs/profiles.md,
	// Label-selector targets; the direction of GEP-3779, Label Selectors): every object of a
	// selector's kind whose labels match is a target, as if a targetRef
	// named it.
	TargetSelectors *TargetSelectors `json:"targetSelectors,omitempty"`
	// CrossNamespace allows targetRefs with a namespace, honoured only with a
	// ReferenceGrant (GEP-713, "Cross namespace references").
	CrossNamespace bool `json:"crossNamespace,omitempty"`
	// MergeStrategies the kind implements, e.g. [None] or [AtomicDefaults,
	// PatchDefaults, AtomicOverrides, PatchOverrides].
	MergeStrategies []string   `json:"mergeStrategies"`
	Selection       *Selection `json:"selection,omitempty"`
	SpecProper      SpecProper `json:"specProper,omitempty"`
	// FieldLevel, when set, merges policies field by field as GEP-2649
	// describes instead of with GEP-713's strategies: per field, A override
	// > B override > C override > the object's own value > C default > B
	// default > A default; a policy may hold both stanzas.
	FieldLevel *FieldLevel `json:"fieldLevel,omitempty"`
	// Kuadrant, when set, merges policies as the Kuadrant RFC "Defaults &
	// Overrides" flowcharts describe: blocks of named rules with an
	// atomic|merge strategy, when conditions in CEL, and unset.
	Kuadrant *Kuadrant `json:"kuadrant,omitempty"`
	// NoneRejects says what a None kind's challenger loses, where GEP-713
	// can be read two ways (docs/semantics.md, A None policy that loses on
	// one target): Target (the default) rejects it on the targets where
	// an established policy beats it, as Gateway API's per-ancestor status
	// reports; Policy rejects the whole policy resource ("All challenger
	// specs (policy resources) MUST be rejected", GEP-713, Merge strategy:
	// None), on every target.
	NoneRejects string `json:"noneRejects,omitempty"`
	// References are fields of the spec proper that list references to
	// other objects; a policy none of whose references in a field
	// resolves is rejected (Accepted=False with the field's Reason).
	References []Reference `json:"references,omitempty"`
	// StatusAncestors, when set (only "Gateway"), says the kind reports
	// its status per ancestor of that kind as well as per policy: one
	// entry per Gateway from which a route reaches one of the policy's
	// targets (Gateway API v1, PolicyAncestorStatus: "For example, for a
	// BackendTLSPolicy, its Policy's Ancestors are, in order, the
	// Service, the HTTPRoute, the Gateway ... implementations SHOULD use
	// Gateway as the PolicyAncestorStatus object"), keyed by ancestorRef.
	StatusAncestors string `json:"statusAncestors,omitempty"`
	// Alternative marks a second reading of a kind that has a default
	// built-in profile: chosen only by name (--profile, a scenario's
	// profiles), never for a kind found in the input.
	Alternative bool `json:"alternative,omitempty"`
	// NoneConflicts says which policies of a None kind conflict, where the
	// specs read two ways (docs/semantics.md, Which None policies
	// conflict): Path (the default) — every policy on a path, the
	// established one by rules 2 and 3 only (GEP-713, Merge strategy
	// None); Target — only policies that select the same target and
	// section, the most specific target's applying ("When more than one
	// BackendTLSPolicy selects the same target and sectionName,
	// implementations MUST determine precedence", Gateway API,
	// BackendTLSPolicySpec.TargetRefs). Not with noneRejects Policy.
	NoneConflicts string `json:"noneConflicts,omitempty"`
	// ConditionDomain prefixes the <Kind>Affected condition on targets
	// (GEP-713, "Target object status"); the policy group when empty.
	ConditionDomain string `json:"conditionDomain,omitempty"`
	// Stored, when set, says what an API server does to a policy's spec
	// as it stores it, for kinds served from a CustomResourceDefinition
	// with a structural schema: the reference merges the stored spec, as
	// a controller reads it.
	Stored *Stored `json:"stored,omitempty"`
}

// TargetSelectors names the spec field of a kind that lists label-selector
// targets, each {group, kind, matchLabels, matchExpressions, namespaces}
// (docs/profiles.md, Label-selector targets): group defaults to
// gateway.networking.k8s.io; the selected objects are those of the kind, in
// the policy's namespace unless namespaces.from is All or Selector (then
// only those a ReferenceGrant allows), whose labels match matchLabels and
// matchExpressions (ANDed; none matches every object).
type TargetSelectors struct {
	// Field is the top-level spec field, e.g. targetSelectors.
	Field string `json:"field"`
}

// Stored is the part of a CRD's structural schema that changes a spec as
// it is stored (Kubernetes, "Defaulting and Nullable" for custom resources;
// KEP-575): nulls of fields that are not nullable are pruned, then each
// default is set where its field is missing and its parent object is
// present.
type Stored struct {
	// PruneNulls removes null values from objects: "Null values for fields
	// that either don't specify the nullable flag, or set it to false, will
	// be pruned before defaulting happens. If a default is present, it will
	// be applied." Gateway API's and most implementations' CRDs mark no
	// field nullable.
	PruneNulls bool `json:"pruneNulls,omitempty"`
	// Defaults maps dotted fields of the spec (in objects, not lists) to
	// their schema default (+kubebuilder:default).
	Defaults map[string]any `json:"defaults,omitempty"`
}

// Reference is a field of the spec proper listing object references
// ({group, kind, name}, in the policy's namespace), e.g. BackendTLSPolicy's
// validation.caCertificateRefs: "If ALL CACertificateRefs are invalid, the
// implementation MUST also ensure the Accepted Condition on the
// BackendTLSPolicy is set to status: False, with a Reason
// NoValidCACertificate" (Gateway API v1, BackendTLSPolicyValidation). A
// reference resolves when an object of an allowed kind has its name; what
// the object holds is not checked.
type Reference struct {
	// Field is the dotted field of the spec proper.
	Field string `json:"field"`
	// Kinds a reference may name.
	Kinds []GroupKind `json:"kinds"`
	// Reason of the Accepted=False condition when none resolves.
	Reason string `json:"reason"`
	// Keys, when set, are the keys of data a referenced object must hold,
	// each non-empty, to resolve: "is misconfigured (e.g., a ConfigMap
	// does not contain a key named `ca.crt`)" (Gateway API v1,
	// BackendTLSPolicyValidation.CACertificateRefs).
	Keys []string `json:"keys,omitempty"`
	// Condition, when set, is the condition that says whether every
	// reference of the field resolves, written on the policy and on each
	// of its ancestors ("In all cases, the implementation MUST ensure the
	// `ResolvedRefs` Condition on the BackendTLSPolicy is set to `status:
	// False`, with a Reason and Message that indicate the cause of the
	// error", ibid.).
	Condition *RefsCondition `json:"condition,omitempty"`
}

// RefsCondition names a references condition and its reasons.
type RefsCondition struct {
	// Type of the condition, e.g. ResolvedRefs.
	Type string `json:"type"`
	// Resolved is the reason of status True: every reference resolves.
	Resolved string `json:"resolved"`
	// InvalidKind is the reason of status False when a reference names a
	// kind not in Kinds ("refers to an unknown or unsupported kind of
	// resource").
	InvalidKind string `json:"invalidKind"`
	// Invalid is the reason of status False when a reference of an allowed
	// kind does not resolve, or its object lacks one of Keys ("refers to a
	// resource that cannot be resolved ... or is misconfigured").
	Invalid string `json:"invalid"`
}

// StatusAncestors values (Spec.StatusAncestors).
const StatusAncestorsGateway = "Gateway"

// NoneConflicts values (Spec.NoneConflicts).
const (
	NoneConflictsPath   = "Path"
	NoneConflictsTarget = "Target"
)

// NoneRejects values (Spec.NoneRejects).
const (
	NoneRejectsTarget = "Target"
	NoneRejectsPolicy = "Policy"
)

// GroupKind names a kind.
type GroupKind struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
}

// Target is a kind policies may target.
type Target struct {
	Group       string      `json:"group"`
	Kind        string      `json:"kind"`
	SectionName SectionRule `json:"sectionName,omitempty"`
	// Virtual kinds are unknown to the API server but known to the
	// controller (GEP-713, "Targeting virtual types"): a reference to one
	// creates the target.
	Virtual bool `json:"virtual,omitempty"`
}

// EffectiveTarget is a kind whose behaviour policies augment; Section selects
// sections of that kind (e.g. route rules) rather than whole objects.
type EffectiveTarget struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Section bool   `json:"section,omitempty"`
}

// Selection says how a policy object selects its merge strategy at runtime.
type Selection struct {
	// Stanzas names the fields wrapping the spec proper, e.g. defaults and
	// overrides (GEP-713: "The definition of defaults and/or overrides fields
	// in the spec stanza of the policy wrapping the spec proper fields").
	Stanzas *Stanzas `json:"stanzas,omitempty"`
	// BareSpec is the class of a spec without stanza: Defaults or Overrides.
	BareSpec string `json:"bareSpec,omitempty"`
	// StrategyField is a field, at spec level or inside a stanza, naming the
	// strategy ("The definition of a strategy field ... or equivalently a
	// mergeType field").
	StrategyField string `json:"strategyField,omitempty"`
	// StrategyValues maps values of StrategyField to Atomic or Patch.
	StrategyValues map[string]string `json:"strategyValues,omitempty"`
}

// FieldLevel describes the fields of a GEP-2649 policy kind (GEP-2649,
// Merging into existing spec fields).
type FieldLevel struct {
	// AtomicFields are dotted fields whose object values (e.g.
	// map[string]string) are replaced whole, not merged field by field.
	// Lists are always replaced whole.
	AtomicFields []string `json:"atomicFields,omitempty"`
	// ListMapKeys maps dotted fields holding listMapType lists to their key:
	// such lists are merged entry by entry, by key.
	ListMapKeys map[string]string `json:"listMapKeys,omitempty"`
}

// Kuadrant describes where a Kuadrant policy kind keeps its named rules.
type Kuadrant struct {
	// RuleSets are the dotted fields holding maps of named rules, e.g.
	// rules.authentication or limits. A rule's id is its set and name.
	RuleSets []string `json:"ruleSets"`
}

// Stanzas names the defaults and overrides fields.
type Stanzas struct {
	Defaults  string `json:"defaults,omitempty"`
	Overrides string `json:"overrides,omitempty"`
}

// SpecProper selects the spec proper: Fields, when set, lists its top-level
// fields; otherwise it is the spec (or stanza) minus targetRefs, the
// selection fields and Exclude.
type SpecProper struct {
	Fields  []string `json:"fields,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

//go:embed builtin/*.yaml
var builtinFS embed.FS

// Builtins returns the built-in profiles by name: the specs' own
// (builtin/) and those implementations registered (Register).
func Builtins() (map[string]*Profile, error) {
	out := map[string]*Profile{}
	err := fs.WalkDir(builtinFS, "builtin", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := builtinFS.ReadFile(path)
		if err != nil {
			return err
		}
		p, err := Parse(data, "builtin:"+strings.TrimSuffix(d.Name(), ".yaml"))
		if err != nil {
			return err
		}
		if p.CRD, err = crd.Builtin(p.Spec.Policy.Group, p.Spec.Policy.Kind); err != nil {
			return fmt.Errorf("built-in CRDs: %w", err)
		}
		out[p.Metadata.Name] = p
		return nil
	})
	if err != nil {
		return nil, err
	}
	registeredMu.Lock()
	defer registeredMu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(registered)) {
		p, err := Parse(registered[name], "builtin:"+name)
		if err != nil {
			return nil, err
		}
		if p.CRD, err = crd.Builtin(p.Spec.Policy.Group, p.Spec.Policy.Kind); err != nil {
			return nil, fmt.Errorf("built-in CRDs: %w", err)
		}
		out[p.Metadata.Name] = p
	}
	return out, nil
}

// Register adds a built-in profile: the documented semantics of an
// implementation's own policy kind, kept with the implementation
// (impl/…). Call it from an init function; a second profile of the
// same name panics.
func Register(name string, data []byte) {
	registeredMu.Lock()
	defer registeredMu.Unlock()
	if _, dup := registered[name]; dup {
		panic("profile: two built-in profiles named " + name)
	}
	registered[name] = data
	builtinNamesOnce = sync.Once{}
	builtinNames = nil
}

var (
	registeredMu sync.Mutex
	registered   = map[string][]byte{}
)

// BuiltinNames lists the built-in profiles. The list is read once: every
// command's help names them, and parsing the built-ins is most of the cost
// of a short run.
func BuiltinNames() []string {
	builtinNamesOnce.Do(func() {
		b, _ := Builtins()
		for n := range b {
			builtinNames = append(builtinNames, n)
		}
		sort.Strings(builtinNames)
	})
	return slices.Clone(builtinNames)
}

var (
	builtinNamesOnce sync.Once
	builtinNames     []string
)

// Parse reads and validates a profile document. Errors name the source and
// the field.
func Parse(data []byte, source string) (*Profile, error) {
	var p Profile
	if err := yaml.UnmarshalStrict(data, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	p.Source = source
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return &p, nil
}

// FieldError is a validation error naming a field of the profile.
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return "field " + e.Field + ": " + e.Msg }

// Validate checks the profile and prepares it for use: each section in
// turn (docs/profiles.md), the first error found returned.
func (p *Profile) Validate() error {
	for _, check := range []func(*Profile) error{
		(*Profile).validateIdentity,
		(*Profile).validateNoneRejects,
		(*Profile).validateReferences,
		(*Profile).validateStatusAncestors,
		(*Profile).validateTargetSelectors,
		(*Profile).validateNone,
		(*Profile).validateStored,
		(*Profile).validateTargets,
		(*Profile).validateStrategies,
		(*Profile).validateSelection,
	} {
		if err := check(p); err != nil {
			return err
		}
	}
	return nil
}

func fieldErr(field, format string, a ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, a...)}
}

// validateIdentity checks what names the profile and its policy kind.
func (p *Profile) validateIdentity() error {
	if p.Kind != "PolicyProfile" {
		return fieldErr("kind", "must be PolicyProfile, not %q", p.Kind)
	}
	if p.Metadata.Name == "" {
		return fieldErr("metadata.name", "is required")
	}
	if p.Spec.Policy.Kind == "" {
		return fieldErr("spec.policy.kind", "is required")
	}
	return nil
}

func (p *Profile) validateNoneRejects() error {
	switch s := &p.Spec; s.NoneRejects {
	case "", NoneRejectsTarget, NoneRejectsPolicy:
		return nil
	default:
		return fieldErr("spec.noneRejects", "must be %s or %s, not %q", NoneRejectsTarget, NoneRejectsPolicy, s.NoneRejects)
	}
}

func (p *Profile) validateReferences() error {
	for i, r := range p.Spec.References {
		if r.Field == "" || len(r.Kinds) == 0 || r.Reason == "" {
			return fieldErr(fmt.Sprintf("spec.references[%d]", i), "needs field, kinds and reason")
		}
		if c := r.Condition; c != nil && (c.Type == "" || c.Resolved == "" || c.InvalidKind == "" || c.Invalid == "") {
			return fieldErr(fmt.Sprintf("spec.references[%d].condition", i), "needs type, resolved, invalidKind and invalid")
		}
		if slices.Contains(r.Keys, "") {
			return fieldErr(fmt.Sprintf("spec.references[%d].keys", i), "a key may not be empty")
		}
	}
	return nil
}

func (p *Profile) validateStatusAncestors() error {
	switch s := &p.Spec; s.StatusAncestors {
	case "", StatusAncestorsGateway:
		return nil
	default:
		return fieldErr("spec.statusAncestors", "must be %s or absent, not %q", StatusAncestorsGateway, s.StatusAncestors)
	}
}

func (p *Profile) validateTargetSelectors() error {
	if ts := p.Spec.TargetSelectors; ts != nil && (ts.Field == "" || strings.Contains(ts.Field, ".") || ts.Field == "targetRefs" || ts.Field == "targetRef") {
		return fieldErr("spec.targetSelectors.field", "must name a top-level spec field other than targetRef(s), not %q", ts.Field)
	}
	return nil
}

// validateNone checks the settings of the None merge strategy's family:
// noneConflicts and noneRejects apply to a kind that implements None alone.
func (p *Profile) validateNone() error {
	s := &p.Spec
	switch s.NoneConflicts {
	case "", NoneConflictsPath, NoneConflictsTarget:
	default:
		return fieldErr("spec.noneConflicts", "must be %s or %s, not %q", NoneConflictsPath, NoneConflictsTarget, s.NoneConflicts)
	}
	noneOnly := slices.Equal(s.MergeStrategies, []string{"None"})
	if s.NoneConflicts != "" && !noneOnly {
		return fieldErr("spec.noneConflicts", "applies to a kind whose only merge strategy is None")
	}
	if s.NoneConflicts == NoneConflictsTarget && s.NoneRejects == NoneRejectsPolicy {
		return fieldErr("spec.noneConflicts", "Target does not go with noneRejects Policy: a policy then conflicts on its own target only")
	}
	if s.NoneRejects != "" && !noneOnly {
		return fieldErr("spec.noneRejects", "applies to a kind whose only merge strategy is None (GEP-713: None \"MUST NOT be implemented in combination with any other merge strategy\")")
	}
	return nil
}

func (p *Profile) validateStored() error {
	if p.Spec.Stored == nil {
		return nil
	}
	defaults := p.Spec.Stored.Defaults
	for _, f := range slices.Sorted(maps.Keys(defaults)) {
		if slices.Contains(strings.Split(f, "."), "") {
			return fieldErr("spec.stored.defaults", "%q is not a dotted field name", f)
		}
		if defaults[f] == nil {
			return fieldErr("spec.stored.defaults."+f, "a default of null sets nothing")
		}
	}
	return nil
}

// validateTargets checks the target kinds and the effective target kinds,
// and defaults a target's sectionName to Forbidden.
func (p *Profile) validateTargets() error {
	s := &p.Spec
	if len(s.Targets) == 0 {
		return fieldErr("spec.targets", "must list at least one target kind")
	}
	for i, t := range s.Targets {
		if t.Kind == "" {
			return fieldErr(fmt.Sprintf("spec.targets[%d].kind", i), "is required")
		}
		switch t.SectionName {
		case "":
			s.Targets[i].SectionName = SectionForbidden
		case SectionForbidden, SectionOptional, SectionRequired:
		default:
			return fieldErr(fmt.Sprintf("spec.targets[%d].sectionName", i), "must be Forbidden, Optional or Required, not %q", t.SectionName)
		}
	}
	if len(s.EffectiveTargets) == 0 {
		return fieldErr("spec.effectiveTargets", "must list at least one kind")
	}
	for i, t := range s.EffectiveTargets {
		if t.Kind == "" {
			return fieldErr(fmt.Sprintf("spec.effectiveTargets[%d].kind", i), "is required")
		}
	}
	return nil
}

// validateStrategies parses the merge strategies into p.strategies, in the
// GEP's default order (GEP-713, Merge strategies).
func (p *Profile) validateStrategies() error {
	s := &p.Spec
	if len(s.MergeStrategies) == 0 {
		return fieldErr("spec.mergeStrategies", "must list at least one merge strategy (GEP-713: Policy CRDs MUST implement at least one of the merge strategies)")
	}
	p.strategies = nil
	seen := map[Strategy]bool{}
	for i, n := range s.MergeStrategies {
		st, err := ParseStrategy(n)
		if err != nil {
			return fieldErr(fmt.Sprintf("spec.mergeStrategies[%d]", i), "%v", err)
		}
		if seen[st] {
			return fieldErr(fmt.Sprintf("spec.mergeStrategies[%d]", i), "%s is listed twice", n)
		}
		seen[st] = true
		p.strategies = append(p.strategies, st)
	}
	sort.Slice(p.strategies, func(a, b int) bool { return p.strategies[a] < p.strategies[b] })
	if seen[None] && len(p.strategies) > 1 {
		var others []string
		for _, st := range p.strategies[1:] {
			others = append(others, st.String())
		}
		return fieldErr("spec.mergeStrategies", "None is combined with %s: GEP-713, Merge strategy: None: \"The None merge strategy MUST NOT be implemented in combination with any other merge strategy\"", strings.Join(others, ", "))
	}
	if seen[Custom] {
		return fieldErr("spec.mergeStrategies", "Custom strategies are implementation code, not profile data: gepcheck has no custom strategy registered for %s", s.Policy.Kind)
	}
	return nil
}

// validateSelection checks how a user selects the merge strategy at run
// time, and the families that build on it: field-level merging (GEP-2649)
// and Kuadrant's named rules.
func (p *Profile) validateSelection() error {
	s := &p.Spec
	sel := s.Selection
	switch {
	case sel != nil:
		return p.validateSelector()
	case s.FieldLevel != nil:
		return fieldErr("spec.selection", "a field-level kind needs selection.stanzas (GEP-2649: defaults and overrides stanzas)")
	case len(p.strategies) > 1:
		// GEP-713: "Policy CRD that implement more than one merge strategy
		// MUST provide a way for users to select the merge strategy at
		// runtime."
		return fieldErr("spec.selection", "is required when more than one merge strategy is implemented (GEP-713, Merge strategies)")
	}
	return nil
}

// validateSelector checks a profile's spec.selection.
func (p *Profile) validateSelector() error {
	s := &p.Spec
	sel := s.Selection
	if p.Implements(None) {
		return fieldErr("spec.selection", "a kind implementing None has nothing to select")
	}
	if sel.BareSpec != "" && sel.BareSpec != "Defaults" && sel.BareSpec != "Overrides" {
		return fieldErr("spec.selection.bareSpec", "must be Defaults or Overrides, not %q", sel.BareSpec)
	}
	if (sel.StrategyField == "") != (len(sel.StrategyValues) == 0) {
		return fieldErr("spec.selection.strategyValues", "strategyField and strategyValues go together")
	}
	for v, k := range sel.StrategyValues {
		if k != "Atomic" && k != "Patch" {
			return fieldErr("spec.selection.strategyValues."+v, "must be Atomic or Patch, not %q", k)
		}
	}
	if sel.Stanzas != nil && sel.Stanzas.Defaults == "" && sel.Stanzas.Overrides == "" {
		return fieldErr("spec.selection.stanzas", "names neither defaults nor overrides")
	}
	if s.Kuadrant != nil && (sel.Stanzas == nil || len(s.Kuadrant.RuleSets) == 0) {
		return fieldErr("spec.kuadrant", "needs selection.stanzas and at least one rule set")
	}
	if s.Kuadrant != nil && s.FieldLevel != nil {
		return fieldErr("spec.kuadrant", "a kind merges either field by field (fieldLevel) or by named rules (kuadrant)")
	}
	if s.FieldLevel != nil && sel.StrategyField != "" {
		return fieldErr("spec.selection.strategyField", "a field-level kind merges field by field: it has no atomic/patch strategy to select")
	}
	return nil
}

// Strategies returns the implemented strategies in the GEP's default order.
func (p *Profile) Strategies() []Strategy { return p.strategies }

// Implements reports whether the kind implements s.
func (p *Profile) Implements(s Strategy) bool {
	for _, x := range p.strategies {
		if x == s {
			return true
		}
	}
	return false
}

// Domain returns the prefix of the <Kind>Affected condition.
func (p *Profile) Domain() string {
	if p.Spec.ConditionDomain != "" {
		return p.Spec.ConditionDomain
	}
	return p.Spec.Policy.Group
}

// AffectedCondition returns the condition type written on affected objects,
// e.g. policies.controller.io/ColorPolicyAffected.
func (p *Profile) AffectedCondition() string {
	return p.Domain() + "/" + p.Spec.Policy.Kind + "Affected"
}

// Target returns the target rule for a group and kind.
func (p *Profile) Target(group, kind string) (Target, bool) {
	for _, t := range p.Spec.Targets {
		if t.Kind == kind && t.Group == group {
			return t, true
		}
	}
	return Target{}, false
}

// NodeType is the type of a node in the hierarchy: a kind, and whether the
// node is a section of an object of that kind.
type NodeType struct {
	Group, Kind string
	Section     bool
}

// Levels returns the node types that matter to this kind: those it may target
// and its effective targets. Paths are projected onto these types.
func (p *Profile) Levels() map[NodeType]bool {
	out := map[NodeType]bool{}
	for _, t := range p.Spec.Targets {
		if t.SectionName != SectionRequired {
			out[NodeType{t.Group, t.Kind, false}] = true
		}
		if t.SectionName != SectionForbidden {
			out[NodeType{t.Group, t.Kind, true}] = true
		}
	}
	for _, t := range p.Spec.EffectiveTargets {
		out[NodeType{t.Group, t.Kind, t.Section}] = true
	}
	return out
}

// Effective returns the effective target node types.
func (p *Profile) Effective() map[NodeType]bool {
	out := map[NodeType]bool{}
	for _, t := range p.Spec.EffectiveTargets {
		out[NodeType{t.Group, t.Kind, t.Section}] = true
	}
	return out
}
