// Package engine is gepcheck's reference implementation of GEP-713 Policy
// Attachment: given a hierarchy of targetable objects and the policies of one
// kind, it computes the effective policy of every path, the status of every
// policy and affected object, and the provenance of every effective field.
//
// The engine is pure: no I/O, no randomness, and one clock only, the
// wall-clock limit of a CEL evaluation (CELLimits), which can do nothing
// but make a policy Invalid. The same Input yields the same Result whenever
// no evaluation reaches that limit.
package engine

import (
	"fmt"
	"time"

	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/topology"
)

// Semantics selects how a path's stack of policies is reduced.
type Semantics string

const (
	// StickyOverrides: an override set higher in the hierarchy is never
	// beaten by anything below it. Per field, A override > B override >
	// C override > C default > B default > A default (GEP-2649,
	// "Hierarchy"; Kuadrant RFC, "Defaults & Overrides"). This is what
	// GEP-713's own definition of the overrides strategies says ("the
	// policy attached to the HTTPRoute MUST NOT be enforced") and what
	// implementations do, so it is the default.
	StickyOverrides Semantics = "sticky-overrides"
	// GEP713 follows GEP-713's "Abstract process for calculating Effective
	// policies" literally: pop two policies, combine them with the strategy
	// of the first (the established), give the result the strategy of the
	// second (the challenger), push it back. An override two levels up can
	// then be beaten by a default one level down.
	// Its name is the GEP's, spelled as gepcheck spells specs everywhere
	// (requirements --spec gep-713); gep713, its older spelling, is read
	// as an alias (GEP713Alias) and never printed.
	GEP713 Semantics = "gep-713"
)

// GEP713Alias is the older spelling of GEP713, still read (flags,
// scenario files' spec.semantics, results files, an exec implementation's
// claim).
const GEP713Alias = "gep713"

// ParseSemantics reads a semantics name: sticky-overrides, gep-713, or
// gep713 (GEP713Alias).
func ParseSemantics(s string) (Semantics, error) {
	switch Semantics(s) {
	case StickyOverrides, GEP713:
		return Semantics(s), nil
	case GEP713Alias:
		return GEP713, nil
	}
	return "", fmt.Errorf("unknown semantics %q (gep-713, or its older spelling gep713, or sticky-overrides)", s)
}

// Vocabulary selects the status conditions a policy is reported with.
type Vocabulary string

const (
	// VocabularyMerged is GEP-713 as merged upstream (gateway-api v1.6.3,
	// geps/gep-713/index.md, "Status reporting", Status conditions):
	// Accepted (Accepted; Conflicted, Invalid, TargetNotFound) and, for an
	// accepted policy only, Programmed (True: Programmed,
	// PartiallyProgrammed; False: Reconciling, Overridden). The default.
	VocabularyMerged Vocabulary = "merged"
	// VocabularyDraft is the 2025 draft of GEP-713 ("Status reporting",
	// Policy status): Accepted and Enforced (Enforced, PartiallyEnforced,
	// Overridden).
	VocabularyDraft Vocabulary = "draft"
)

// ParseVocabulary reads a status vocabulary name.
func ParseVocabulary(s string) (Vocabulary, error) {
	switch Vocabulary(s) {
	case VocabularyMerged, VocabularyDraft:
		return Vocabulary(s), nil
	}
	return "", fmt.Errorf("unknown status vocabulary %q (merged or draft)", s)
}

// Policy is one policy object as the engine sees it.
type Policy struct {
	// Ref names the policy: group, kind, namespace and name.
	Ref ref.Ref
	// CreationTimestamp is nil when the object does not give one; such
	// policies count as created after every policy that gives one, and tie
	// among themselves (GEP-713, Conflict resolution rule 3 then decides).
	CreationTimestamp *time.Time
	TargetRefs        []TargetRef
	Intent            profile.Intent
}

// TargetRef is one entry of spec.targetRefs.
type TargetRef struct {
	Group       string
	Kind        string
	Namespace   string // empty: the policy's namespace
	Name        string
	SectionName string
	// Selector, when set, is the label-selector target that selected this
	// object (e.g. "spec.targetSelectors[0]", profile.TargetSelectors): a
	// target in another namespace was selected only because a
	// ReferenceGrant allows it.
	Selector string
}

// Input is everything the engine needs for one policy kind.
type Input struct {
	Graph     *topology.Graph
	Profile   *profile.Profile
	Policies  []Policy
	Grants    topology.Grants
	Semantics Semantics
	// Vocabulary selects the status conditions written; empty: merged.
	Vocabulary Vocabulary
	// Exclude names a policy to leave out, to answer "what would change if
	// it were deleted" without copying the input.
	Exclude *ref.Ref
	// Detail names a policy whose Beaten entries list every path rather
	// than a few examples.
	Detail *ref.Ref
	// Decisions asks the engine to record, on every effective policy, the
	// decision it made against each field of the stacked policies that is
	// not in effect (EffectivePolicy.Decisions), for gepcheck explain. Off,
	// the engine records nothing more than the Result's JSON shows.
	Decisions bool
	// Mutant selects a deliberately broken engine, for testing the tests.
	Mutant Mutant
	// OwnFields holds, by object ref, the values objects set themselves in
	// the fields of a field-level kind (profile.FieldLevel): for defaults,
	// "the most specific value is the one inside the object" (GEP-2649).
	OwnFields map[string]map[string]any
	// CEL bounds the evaluation of `when` conditions (cellimits.go).
	CEL CELLimits

	// rejected are the policies a None kind with NoneRejects Policy
	// rejects whole, by ref, with the reason (Run's second round).
	rejected map[string]string
}

// Result is the outcome for one policy kind.
type Result struct {
	PolicyKind        string            `json:"policyKind"`
	EffectivePolicies []EffectivePolicy `json:"effectivePolicies"`
	Policies          []PolicyStatus    `json:"policies"`
	Targets           []TargetStatus    `json:"targets"`
	// LimitErrors lists the policies made Invalid by a CEL limit, in the
	// order met: the CLI refuses such input, a controller writes them as
	// status (docs/limits.md).
	LimitErrors []*LimitError `json:"-"`
}

// EffectivePolicy is the effective policy of one path from a root of the
// hierarchy to an effective target (GEP-713, "Effective policies"). Paths are
// projected onto the kinds the policy kind may target or augment. Paths that
// share a spec, a stack or a prefix share the values that render them:
// treat them as read-only.
type EffectivePolicy struct {
	PolicyKind string   `json:"policyKind"`
	Path       []string `json:"path"`
	// Spec is the effective spec proper.
	Spec any `json:"spec"`
	// Provenance maps each dotted field path of Spec to the policy that set
	// it.
	Provenance map[string]string `json:"provenance"`
	// StoredDefaults names, sorted, the fields of Provenance whose value
	// is not what the policy Provenance names wrote but a default its
	// kind's CRD schema set when the API server stored it (profile
	// spec.stored; Kubernetes, "Defaulting and Nullable"); omitted when
	// none is. docs/output.md.
	StoredDefaults []string `json:"storedDefaults,omitempty"`
	// Policies lists the policies on the path, established first (the order
	// of GEP-713's stack, least specific on top).
	Policies []string `json:"policies"`
	// Decisions is the engine's record of the path, filled only when
	// Input.Decisions asks for it; not part of the output (docs/output.md).
	Decisions *Decisions `json:"-"`
}

// Decisions records how the engine decided the fields of one path. The
// winner of each effective field is Provenance; Beaten names, for every
// field of a stacked policy that is not in effect, the policy that beat it,
// as PolicyStatus.Beaten counts it.
type Decisions struct {
	// Won says, for every field of the effective spec (as Provenance
	// names them, sorted), who set it and by which rule.
	Won []FieldWin
	// Beaten is ordered as the stack (established first), then as each
	// policy's leaves.
	Beaten []FieldBeat
}

// FieldWin says that By (a policy, or the object itself) set Field of the
// effective spec of a path, attached At an element of the path, by Step:
// the rule of the policy kind's family that made it win, in the words of
// its spec.
type FieldWin struct {
	Field string
	By    string
	At    string
	Step  string
	// StoredDefault: By did not write the value; its kind's CRD schema
	// set it as the API server stored By (EffectivePolicy.StoredDefaults).
	StoredDefault bool
}

// FieldBeat says that Field of Policy is not in the effective policy of a
// path because of By: By's value is in effect in its place, or (Removed) By
// left no value there: its merge patch's null or unset list removed the
// field, its spec or set of rules was taken whole without it, or (None) it
// is the policy established on the path.
type FieldBeat struct {
	Policy  string
	Field   string
	By      string
	Removed bool
}

// Condition is a status condition.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message,omitempty"`
	// Undefined, when set, says why neither GEP-713 text settles this
	// condition's status and reason (docs/semantics.md): the reference
	// writes one, and no comparison judges an implementation by it. It
	// is not part of any output's JSON.
	Undefined string `json:"-"`
}

// Why a condition's value is not settled by the texts (Condition.Undefined).
const (
	UndefinedUnreached = "no status reason of either GEP-713 text covers a target through which no path reaches an effective target (docs/semantics.md, Status vocabularies)"
	UndefinedNoValue   = "the policy sets no value, and whether it is then in effect or overridden is a reading neither GEP-713 text settles (docs/semantics.md, A policy that sets no value)"
)

// PolicyStatus is the status of one policy.
type PolicyStatus struct {
	Ref        string         `json:"ref"`
	Strategy   string         `json:"strategy,omitempty"`
	Conditions []Condition    `json:"conditions"`
	Targets    []PolicyTarget `json:"targets"`
	// Ancestors is the status per ancestor, for kinds whose profile says
	// so (profile.Spec.StatusAncestors; Gateway API's
	// PolicyStatus.Ancestors): one entry per Gateway from which a route
	// reaches a target of the policy, in ref order. Filled by the
	// simulator, which knows the objects references name.
	Ancestors []PolicyTarget `json:"ancestors,omitempty"`
	// Paths counts the paths the policy is in effect on, fully or in part.
	Paths int `json:"paths"`
	// Beaten lists the fields of the spec proper that did not make it into
	// an effective policy, which policy beat them, on how many paths, with
	// example paths (gepcheck explain --policy lists every path).
	Beaten []Beaten `json:"beaten,omitempty"`
}

// PolicyTarget is the status of a policy with respect to one of its targets
// (Gateway API's PolicyAncestorStatus plays this role in real clusters).
type PolicyTarget struct {
	Ref        string      `json:"ref"`
	Conditions []Condition `json:"conditions"`
}

// Beaten says that Field of a policy lost to By on Paths paths, such as
// those in Examples.
type Beaten struct {
	Field    string     `json:"field"`
	By       string     `json:"by"`
	Paths    int        `json:"paths"`
	Examples [][]string `json:"examples"`
}

// TargetStatus is the condition written on an affected object or section
// (GEP-713, "Target object status").
type TargetStatus struct {
	Ref        string      `json:"ref"`
	Conditions []Condition `json:"conditions"`
	AffectedBy []string    `json:"affectedBy"`
}

// FindCondition returns the condition of type typ in cs.
func FindCondition(cs []Condition, typ string) (Condition, bool) {
	for _, c := range cs {
		if c.Type == typ {
			return c, true
		}
	}
	return Condition{}, false
}

// Condition types and reasons of GEP-713 and Gateway API policy status.
const (
	TypeAccepted = "Accepted"
	TypeEnforced = "Enforced"
	// TypeProgrammed is merged GEP-713's second policy condition.
	TypeProgrammed = "Programmed"

	ReasonAccepted          = "Accepted"
	ReasonConflicted        = "Conflicted"
	ReasonInvalid           = "Invalid"
	ReasonTargetNotFound    = "TargetNotFound"
	ReasonEnforced          = "Enforced"
	ReasonPartiallyEnforced = "PartiallyEnforced"
	ReasonOverridden        = "Overridden"
	ReasonUnknown           = "Unknown"
	ReasonAffected          = "Affected"

	ReasonProgrammed          = "Programmed"
	ReasonPartiallyProgrammed = "PartiallyProgrammed"
	ReasonReconciling         = "Reconciling"
)
