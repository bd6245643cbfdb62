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

// Decide explains the effective policy e of out.
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
	for _, ref := range e.Policies {
		p := byRef[ref]
		if p == nil || p.Intent.Invalid != "" {
			continue
		}
		for _, f := range policyFields(prof, p) {
			if e.Provenance[f] == ref {
				continue
			}
			d.NotInEffect = append(d.NotInEffect, Unapplied{Policy: ref, Field: f, Reason: whyNot(prof, e, byRef, ref, f)})
		}
	}
	return d
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

// whyNot explains why field f of policy ref is not in effect.
func whyNot(prof *profile.Profile, e engine.EffectivePolicy, byRef map[string]*engine.Policy, ref, f string) string {
	if prof.Spec.Kuadrant != nil {
		name := f[strings.LastIndexByte(f, '.')+1:]
		for _, other := range e.Policies {
			if other == ref {
				continue
			}
			if q := byRef[other]; q != nil {
				for _, u := range q.Intent.Unset {
					if u == name || u == f {
						if isOverride(byRef[ref], f) {
							break // unset never removes an override
						}
						return "unset by " + other
					}
				}
			}
		}
	}
	if winner, ok := e.Provenance[f]; ok {
		return "beaten by " + winner
	}
	for g, winner := range e.Provenance {
		if strings.HasPrefix(g, f+".") || strings.HasPrefix(f, g+".") {
			return "beaten by " + winner
		}
	}
	if prof.Spec.Kuadrant != nil {
		return "not applied: its block's when condition did not hold, or another policy's set of rules was taken whole"
	}
	return "replaced: another policy's spec was taken whole, or a merge patch removed it"
}

func isOverride(p *engine.Policy, f string) bool {
	if p == nil {
		return false
	}
	for _, b := range p.Intent.Blocks {
		if _, ok := b.Rules[f]; ok && b.Overrides {
			return true
		}
	}
	return false
}

// policyFields lists the fields (or rule ids) a policy sets.
func policyFields(prof *profile.Profile, p *engine.Policy) []string {
	set := map[string]bool{}
	add := func(spec map[string]any) {
		for _, l := range tree.From(spec, 0).Leaves() {
			if len(l.Path) > 0 {
				set[tree.FieldPath(l.Path)] = true
			}
		}
	}
	switch {
	case prof.Spec.Kuadrant != nil:
		for _, b := range p.Intent.Blocks {
			for id := range b.Rules {
				set[id] = true
			}
		}
	case prof.Spec.FieldLevel != nil:
		add(p.Intent.Defaults)
		add(p.Intent.Overrides)
	default:
		add(p.Intent.SpecProper)
	}
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func hasField(spec map[string]any, f string) bool {
	for _, l := range tree.From(spec, 0).Leaves() {
		if p := tree.FieldPath(l.Path); p == f || strings.HasPrefix(f, p+".") || strings.HasPrefix(f, p+"[") {
			return true
		}
	}
	return false
}
