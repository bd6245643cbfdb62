package simulator

import (
	"slices"
	"sort"
	"strings"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
)

// PathDecisions explains one effective policy field by field: which policy
// (or the object itself) set each field, by which precedence step, and which
// fields of the stacked policies are not in effect, and why.
type PathDecisions struct {
	Path        []string        `json:"path"`
	Fields      []FieldDecision `json:"fields"`
	NotInEffect []Unapplied     `json:"notInEffect"`
}

// FieldDecision names the winner of one field and the rule that decided.
type FieldDecision struct {
	Field string `json:"field"`
	From  string `json:"from"`
	Step  string `json:"step"`
	// StoredDefault: From did not write the value; its kind's CRD schema
	// set it as the API server stored From (engine.FieldWin).
	StoredDefault bool `json:"storedDefault,omitempty"`
}

// Unapplied is a field (or named rule) of a stacked policy that is not in
// the effective policy.
type Unapplied struct {
	Policy string `json:"policy"`
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

// Decide explains the effective policy e of out: the winner of each field
// is its provenance, and the fields not in effect are those the engine
// recorded as beaten on e's path (engine.Decisions), so that Decide names
// the policy simulate's beaten names. When e carries no record (out is not
// from RunDecisions), the engine is run again to get it.
func (m *Model) Decide(out *Output, e engine.EffectivePolicy) PathDecisions {
	d := PathDecisions{Path: e.Path, Fields: []FieldDecision{}, NotInEffect: []Unapplied{}}
	var kind *Kind
	byRef := map[string]*engine.Policy{}
	for _, k := range m.Kinds {
		if k.Profile.Spec.Policy.Kind != e.PolicyKind {
			continue
		}
		kind = k
		for i := range k.Policies {
			byRef[k.Policies[i].Ref.String()] = &k.Policies[i]
		}
	}
	if kind == nil {
		return d
	}
	prof := kind.Profile
	dec := e.Decisions
	if dec == nil {
		dec = m.decisions(out.Semantics, e)
	}
	// Who set each field, and by which rule, as the engine decided it.
	for _, w := range dec.Won {
		d.Fields = append(d.Fields, FieldDecision{Field: w.Field, From: w.By, Step: w.Step, StoredDefault: w.StoredDefault})
	}
	// In the order of the stack, established first, then by field; a
	// policy stacked twice on the path (at an object and its section) is
	// reported once.
	pos := map[string]int{}
	for i, ref := range e.Policies {
		if _, ok := pos[ref]; !ok {
			pos[ref] = i
		}
	}
	beats := slices.Clone(dec.Beaten)
	sort.SliceStable(beats, func(a, b int) bool {
		if pa, pb := pos[beats[a].Policy], pos[beats[b].Policy]; pa != pb {
			return pa < pb
		}
		return beats[a].Field < beats[b].Field
	})
	seen := map[[2]string]bool{}
	for _, b := range beats {
		if k := [2]string{b.Policy, b.Field}; !seen[k] {
			seen[k] = true
			d.NotInEffect = append(d.NotInEffect, Unapplied{Policy: b.Policy, Field: b.Field, Reason: whyNot(prof, byRef, b)})
		}
	}
	return d
}

// decisions runs the engine again, asking for its record, to find the
// decisions behind e.
func (m *Model) decisions(sem engine.Semantics, e engine.EffectivePolicy) *engine.Decisions {
	for _, r := range m.RunDecisions(sem).EffectivePolicies {
		if r.PolicyKind == e.PolicyKind && slices.Equal(r.Path, e.Path) {
			return r.Decisions
		}
	}
	return &engine.Decisions{}
}

// whyNot explains the engine's decision against a field not in effect: who
// beat it, and how when no value is in its place.
func whyNot(prof *profile.Profile, byRef map[string]*engine.Policy, b engine.FieldBeat) string {
	if !b.Removed {
		return "beaten by " + b.By
	}
	switch {
	case prof.Spec.Kuadrant != nil:
		name := b.Field[strings.LastIndexByte(b.Field, '.')+1:]
		if q := byRef[b.By]; q != nil && slices.ContainsFunc(q.Intent.Unset, func(u string) bool { return u == name || u == b.Field }) {
			return "unset by " + b.By
		}
		return "beaten by " + b.By + ": its set of rules was taken whole, without this rule (or the rule's block did not apply: its when condition did not hold)"
	case prof.Implements(profile.None):
		return "beaten by " + b.By + ": the established policy's spec is taken whole (GEP-713, Merge strategy: None)"
	}
	return "beaten by " + b.By + ": its value replaced the field's parent whole, or its merge patch removed the field"
}
