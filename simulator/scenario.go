package simulator

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gepcheck/gepcheck/simulator/crd"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/fault"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/tree"
)

// Scenario is the header document of a scenario file: which profiles and
// semantics to simulate with, and the outcome a spec states, with its
// citation. The other documents of the file are the objects. See
// scenarios/README.md.
type Scenario struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Metadata   ScenarioMeta `json:"metadata"`
	Spec       ScenarioSpec `json:"spec"`

	Source load.Source `json:"-"`
}

// ScenarioMeta names a scenario.
type ScenarioMeta struct {
	Name string `json:"name"`
}

// ScenarioSpec is the body of a Scenario.
type ScenarioSpec struct {
	Description string `json:"description,omitempty"`
	// Citation names the spec section the expected outcome comes from.
	Citation string `json:"citation"`
	// Profiles to simulate with (built-in names, or PolicyProfile documents
	// of the file by name).
	Profiles []string `json:"profiles,omitempty"`
	// Semantics under which Expect holds; both when empty.
	Semantics []string `json:"semantics,omitempty"`
	// StatusVocabulary names the conditions Expect's policy conditions
	// are written in: merged (GEP-713 as merged: Programmed), the
	// default, or draft (its 2025 draft: Enforced). docs/semantics.md,
	// Status vocabularies.
	StatusVocabulary string `json:"statusVocabulary,omitempty"`
	// FieldValidation is what storing does with a field a policy's CRD
	// does not know while the scenario is checked: warn (the default),
	// strict or ignore (Options.FieldValidation; docs/profiles.md, What
	// is stored). Read before the objects are (FieldValidationOf).
	FieldValidation string `json:"fieldValidation,omitempty"`
	Expect          Expect `json:"expect"`
	// Steps change the objects over time; each states the outcome after
	// it (States).
	Steps []Step `json:"steps,omitempty"`
	// Faults are the perturbations the case is run under in a cluster
	// (docs/faults.md); the reference ignores them.
	Faults []fault.Fault `json:"faults,omitempty"`
}

// Expect is the outcome the spec states. Every list is checked as written:
// EffectivePolicies is exhaustive (no other path may have an effective
// policy); Policies and Targets name only what the spec says something about.
type Expect struct {
	EffectivePolicies []ExpectedPath   `json:"effectivePolicies"`
	Policies          []ExpectedPolicy `json:"policies,omitempty"`
	Targets           []ExpectedTarget `json:"targets,omitempty"`
	// Warnings each name a part of one of the run's warnings: what
	// storing the policies (CRD defaults, pruned nulls) changes, for
	// example (docs/profiles.md, What is stored).
	Warnings []string `json:"warnings,omitempty"`
}

// ExpectedPath is the effective policy of one path.
type ExpectedPath struct {
	Path []string       `json:"path"`
	Spec map[string]any `json:"spec"`
	// Provenance, when given, must equal the computed provenance.
	Provenance map[string]string `json:"provenance,omitempty"`
	// StoredDefaults, when given, must equal the fields the computed
	// provenance names as CRD defaults (engine.EffectivePolicy); [] for
	// none.
	StoredDefaults []string `json:"storedDefaults,omitempty"`
}

// ExpectedPolicy lists conditions a policy must carry.
type ExpectedPolicy struct {
	Ref        string              `json:"ref"`
	Conditions []ExpectedCondition `json:"conditions"`
	// Ancestors, when given, is the exact set of the policy's status
	// ancestors (Gateway API's PolicyStatus.Ancestors, for a kind whose
	// profile has statusAncestors), each with the conditions checked.
	Ancestors []ExpectedAncestor `json:"ancestors,omitempty"`
}

// ExpectedAncestor is a policy's status for one ancestor
// (Gateway/namespace/name).
type ExpectedAncestor struct {
	Ref        string              `json:"ref"`
	Conditions []ExpectedCondition `json:"conditions"`
}

// ExpectedCondition matches a condition by type, status and reason, and
// optionally by a substring of its message.
type ExpectedCondition struct {
	Type            string `json:"type"`
	Status          string `json:"status"`
	Reason          string `json:"reason,omitempty"`
	MessageContains string `json:"messageContains,omitempty"`
}

// ExpectedTarget says which policies affect an object, or that none does.
type ExpectedTarget struct {
	Ref string `json:"ref"`
	// AffectedBy is the exact set of policies reported on the object; empty
	// means the object must not be reported as affected.
	AffectedBy []string `json:"affectedBy"`
}

// Check compares an output with the expected outcome and describes every
// difference. An empty result means the outcome is the expected one.
func (exp *Expect) Check(out *Output) []string {
	var diffs []string
	add := func(format string, a ...any) { diffs = append(diffs, fmt.Sprintf(format, a...)) }
	exp.checkEffective(out, add)
	exp.checkPolicies(out, add)
	exp.checkTargets(out, add)
	for _, w := range exp.Warnings {
		if !slices.ContainsFunc(out.Warnings, func(m string) bool { return strings.Contains(m, w) }) {
			add("no warning contains %q", w)
		}
	}
	sort.Strings(diffs)
	return diffs
}

// checkEffective compares the effective policy of every path, expected or
// not.
func (exp *Expect) checkEffective(out *Output, add func(string, ...any)) {
	got := map[string]engine.EffectivePolicy{}
	for _, e := range out.EffectivePolicies {
		got[pathKey(e.Path)] = e
	}
	want := map[string]bool{}
	for _, w := range exp.EffectivePolicies {
		k := pathKey(w.Path)
		want[k] = true
		e, ok := got[k]
		if !ok {
			add("path %s: expected effective policy %s, got none", k, compact(w.Spec))
			continue
		}
		if !tree.JSONEqual(normalize(w.Spec), normalize(e.Spec)) {
			add("path %s: expected effective policy %s, got %s", k, compact(w.Spec), compact(e.Spec))
		}
		if w.Provenance != nil && !tree.JSONEqual(w.Provenance, e.Provenance) {
			add("path %s: expected provenance %s, got %s", k, compact(w.Provenance), compact(e.Provenance))
		}
		if w.StoredDefaults != nil && !slices.Equal(w.StoredDefaults, e.StoredDefaults) {
			add("path %s: expected stored defaults %s, got %s", k, compact(w.StoredDefaults), compact(e.StoredDefaults))
		}
	}
	for k, e := range got {
		if !want[k] {
			add("path %s: unexpected effective policy %s", k, compact(e.Spec))
		}
	}
}

// checkPolicies compares the conditions of every expected policy, and of
// its ancestors where they are expected.
func (exp *Expect) checkPolicies(out *Output, add func(string, ...any)) {
	policies := map[string]engine.PolicyStatus{}
	for _, p := range out.Policies {
		policies[p.Ref] = p
	}
	for _, w := range exp.Policies {
		p, ok := policies[w.Ref]
		if !ok {
			add("policy %s: not in the output", w.Ref)
			continue
		}
		checkConditions("policy "+w.Ref, w.Conditions, p.Conditions, out.StatusVocabulary, add)
		if w.Ancestors != nil {
			checkAncestors(w, p, out.StatusVocabulary, add)
		}
	}
}

// checkAncestors compares a policy's status per ancestor (GEP-713
// PolicyAncestorStatus) with the expected one, entry by entry.
func checkAncestors(w ExpectedPolicy, p engine.PolicyStatus, vocab engine.Vocabulary, add func(string, ...any)) {
	have := map[string]engine.PolicyTarget{}
	for _, a := range p.Ancestors {
		have[a.Ref] = a
	}
	wanted := map[string]bool{}
	for _, wa := range w.Ancestors {
		wanted[wa.Ref] = true
		a, ok := have[wa.Ref]
		if !ok {
			add("policy %s: no status for ancestor %s", w.Ref, wa.Ref)
			continue
		}
		checkConditions("policy "+w.Ref+" ancestor "+wa.Ref, wa.Conditions, a.Conditions, vocab, add)
	}
	for _, a := range p.Ancestors {
		if !wanted[a.Ref] {
			add("policy %s: unexpected status for ancestor %s", w.Ref, a.Ref)
		}
	}
}

// checkTargets compares the policies each expected target is affected by.
func (exp *Expect) checkTargets(out *Output, add func(string, ...any)) {
	targets := map[string]engine.TargetStatus{}
	for _, t := range out.Targets {
		targets[t.Ref] = t
	}
	for _, w := range exp.Targets {
		t := targets[w.Ref]
		g := append([]string(nil), t.AffectedBy...)
		e := append([]string(nil), w.AffectedBy...)
		sort.Strings(g)
		sort.Strings(e)
		if strings.Join(g, ",") != strings.Join(e, ",") {
			add("target %s: expected affected by [%s], got [%s]", w.Ref, strings.Join(e, ", "), strings.Join(g, ", "))
		}
	}
}

// Vocabulary returns the status vocabulary the expectations are written in.
func (s *Scenario) Vocabulary() (engine.Vocabulary, error) {
	if s.Spec.StatusVocabulary == "" {
		return engine.VocabularyMerged, nil
	}
	v, err := engine.ParseVocabulary(s.Spec.StatusVocabulary)
	if err != nil {
		return "", fmt.Errorf("%s: spec.statusVocabulary: %w", s.Source, err)
	}
	return v, nil
}

// checkConditions adds a difference for each condition of want that got
// does not match (type, status, reason, message), in status vocabulary
// vocab.
func checkConditions(who string, want []ExpectedCondition, got []engine.Condition, vocab engine.Vocabulary, add func(string, ...any)) {
	for _, wc := range want {
		c, ok := engine.FindCondition(got, wc.Type)
		switch {
		case !ok && wc.Type == otherType(vocab):
			add("%s: no %s condition: the run writes status vocabulary %s (%s); a scenario written in the other declares spec.statusVocabulary", who, wc.Type, vocabName(vocab), engine.ProgrammedType(vocab))
		case !ok:
			add("%s: no %s condition", who, wc.Type)
		case c.Status != wc.Status || wc.Reason != "" && c.Reason != wc.Reason:
			add("%s: expected %s=%s (%s), got %s=%s (%s): %s", who, wc.Type, wc.Status, wc.Reason, c.Type, c.Status, c.Reason, c.Message)
		case wc.MessageContains != "" && !strings.Contains(c.Message, wc.MessageContains):
			add("%s: %s message %q does not contain %q", who, wc.Type, c.Message, wc.MessageContains)
		}
	}
}

// SemanticsList returns the semantics the expectations hold under.
func (s *Scenario) SemanticsList() ([]engine.Semantics, error) {
	if len(s.Spec.Semantics) == 0 {
		return []engine.Semantics{engine.StickyOverrides, engine.GEP713}, nil
	}
	var out []engine.Semantics
	for _, n := range s.Spec.Semantics {
		sem, err := engine.ParseSemantics(n)
		if err != nil {
			return nil, fmt.Errorf("%s: spec.semantics: %w", s.Source, err)
		}
		out = append(out, sem)
	}
	return out, nil
}

func pathKey(p []string) string { return strings.Join(p, " > ") }

// otherType is the condition type of the vocabulary v is not.
func otherType(v engine.Vocabulary) string {
	if v == engine.VocabularyDraft {
		return engine.TypeProgrammed
	}
	return engine.TypeEnforced
}

func vocabName(v engine.Vocabulary) engine.Vocabulary {
	if v == "" {
		return engine.VocabularyMerged
	}
	return v
}

// normalize round-trips a value through JSON so that numbers compare alike.
func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// ObjectFields gives the values an object holds itself in fields that
// field-level policies default or override, for fields the object's API
// does not have (yet): GEP-2649's examples assume "at some future point
// HTTPRoute has grown fields to configure retries".
type ObjectFields struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Metadata   ScenarioMeta `json:"metadata"`
	Spec       struct {
		Target struct {
			Group     string `json:"group"`
			Kind      string `json:"kind"`
			Namespace string `json:"namespace,omitempty"`
			Name      string `json:"name"`
		} `json:"target"`
		Fields map[string]any `json:"fields"`
	} `json:"spec"`
}

// FieldValidationOf returns the field validation the Scenario document
// among docs declares (ScenarioSpec.FieldValidation), warn when none
// does: storing happens as the objects are read, so gepcheck check reads
// it first.
func FieldValidationOf(docs []*load.Doc) (crd.FieldValidation, error) {
	for _, d := range docs {
		if d.Group != GepcheckGroup || d.Kind != "Scenario" {
			continue
		}
		spec, _ := d.Raw["spec"].(map[string]any)
		v, ok := spec["fieldValidation"]
		if !ok {
			continue
		}
		s, isString := v.(string)
		fv, err := crd.ParseFieldValidation(s)
		if !isString || err != nil {
			return "", &load.Error{Source: d.At("spec.fieldValidation"), Object: d.Object(), Field: "spec.fieldValidation", Msg: fmt.Sprintf("%v: one of strict, warn, ignore", v)}
		}
		return fv, nil
	}
	return crd.FieldValidationWarn, nil
}
