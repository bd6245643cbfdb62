package simulator

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/tree"
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
	// The level of each stacked policy: where on the path it is attached.
	level := map[string]string{}
	for _, ps := range out.Policies {
		for _, t := range ps.Targets {
			for _, el := range e.Path {
				if el == t.Ref {
					level[ps.Ref] = el
				}
			}
		}
	}
	prof := kind.Profile
	for _, f := range slices.Sorted(maps.Keys(e.Provenance)) {
		from := e.Provenance[f]
		d.Fields = append(d.Fields, FieldDecision{Field: f, From: from, Step: step(prof, byRef[from], f, level[from])})
	}
	dec := e.Decisions
	if dec == nil {
		dec = m.decisions(out.Semantics, e)
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

// step says which precedence rule made p (at level) win field f.
func step(prof *profile.Profile, p *engine.Policy, f, level string) string {
	switch {
	case p == nil:
		return "the object's own value: it beats every default (GEP-2649: \"the most specific value is the one inside the object\")"
	case prof.Spec.FieldLevel != nil:
		if hasField(p.Intent.Overrides, f) {
			return fmt.Sprintf("override at %s: the least specific override wins (GEP-2649, Hierarchy)", level)
		}
		return fmt.Sprintf("default at %s: no override sets it and the object does not, so the most specific default wins (GEP-2649, Hierarchy)", level)
	case prof.Spec.Kuadrant != nil:
		for _, b := range p.Intent.Blocks {
			if _, ok := b.Rules[f]; ok {
				return fmt.Sprintf("%s at %s (Kuadrant RFC, Merge a %s block)", blockName(b), level, map[bool]string{false: "defaults", true: "overrides"}[b.Overrides])
			}
		}
	}
	return fmt.Sprintf("%s at %s", p.Intent.Strategy.Title(), level)
}

func blockName(b profile.Block) string {
	s := "defaults"
	if b.Overrides {
		s = "overrides"
	}
	if b.Merge {
		return s + " (merge)"
	}
	return s + " (atomic)"
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

func hasField(spec map[string]any, f string) bool {
	for _, l := range tree.From(spec, 0).Leaves() {
		if p := tree.FieldPath(l.Path); p == f || strings.HasPrefix(f, p+".") || strings.HasPrefix(f, p+"[") {
			return true
		}
	}
	return false
}
