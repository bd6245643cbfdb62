package simulator

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/tree"
)

// StateDiff is what changes between two states of the same objects, each
// simulated by the engine (Model.Run): the effective fields that change
// on each path, with the policy that set them before and after, and the
// conditions that flip (docs/diff.md). It is read from the two Outputs
// only: nothing is derived again.
type StateDiff struct {
	// Before and After are the readings that produced the two states
	// (docs/output.md).
	Before Reading `json:"before"`
	After  Reading `json:"after"`
	// Fields are the changed effective fields, sorted by policy kind, path
	// and field.
	Fields []FieldChange `json:"fields"`
	// Conditions are the flipped conditions, sorted by object, entry and
	// type.
	Conditions []ConditionFlip `json:"conditions"`
}

// FieldChange is one effective field of one path whose value or
// provenance changes (GEP-713, Effective policy).
type FieldChange struct {
	PolicyKind string   `json:"policyKind"`
	Path       []string `json:"path"`
	// Field is the dotted field of the spec proper (tree.FieldPath);
	// empty when the effective spec is not an object.
	Field string `json:"field"`
	// Before and After are the field's values; BeforeSet and AfterSet
	// say whether the field is in effect at all (absent: the path has no
	// effective policy, or the effective policy does not set the field).
	Before    any  `json:"before,omitempty"`
	BeforeSet bool `json:"beforeSet"`
	After     any  `json:"after,omitempty"`
	AfterSet  bool `json:"afterSet"`
	// BeforeFrom and AfterFrom name the policy that set the field
	// (the effective policy's provenance).
	BeforeFrom string `json:"beforeFrom,omitempty"`
	AfterFrom  string `json:"afterFrom,omitempty"`
}

// ConditionFlip is one condition whose status or reason changes (a
// message alone is no flip).
type ConditionFlip struct {
	// Object is the policy or the target the condition is on.
	Object string `json:"object"`
	// Entry names where the condition is written: "policy" (the
	// policy's own conditions), "target TARGET" (its status for one
	// target), "ancestor ANCESTOR" (Gateway API PolicyAncestorStatus), or
	// "object" (a target's Affected conditions, GEP-713 Status
	// reporting).
	Entry  string            `json:"entry"`
	Type   string            `json:"type"`
	Before *engine.Condition `json:"before,omitempty"`
	After  *engine.Condition `json:"after,omitempty"`
}

// Changed reports whether anything changed.
func (d *StateDiff) Changed() bool { return len(d.Fields) > 0 || len(d.Conditions) > 0 }

// DiffOutputs compares two engine outputs of the same reading.
func DiffOutputs(before, after *Output) *StateDiff {
	d := &StateDiff{Before: before.Reading(), After: after.Reading(), Fields: []FieldChange{}, Conditions: []ConditionFlip{}}
	type pathState struct {
		e  engine.EffectivePolicy
		ok bool
	}
	key := func(e engine.EffectivePolicy) string { return e.PolicyKind + "\x00" + pathKey(e.Path) }
	paths := map[string][2]pathState{}
	for i, out := range []*Output{before, after} {
		for _, e := range out.EffectivePolicies {
			s := paths[key(e)]
			s[i] = pathState{e, true}
			paths[key(e)] = s
		}
	}
	for _, s := range paths {
		d.Fields = append(d.Fields, fieldChanges(s[0].e, s[0].ok, s[1].e, s[1].ok)...)
	}
	slices.SortFunc(d.Fields, func(a, b FieldChange) int {
		return cmp.Or(cmp.Compare(a.PolicyKind, b.PolicyKind), cmp.Compare(pathKey(a.Path), pathKey(b.Path)), cmp.Compare(a.Field, b.Field))
	})
	b, a := unchanged(before, after)
	conds := [2]map[condKey]engine.Condition{conditionsOf(before, b), conditionsOf(after, a)}
	keys := map[condKey]bool{}
	for _, m := range conds {
		for k := range m {
			keys[k] = true
		}
	}
	for k := range keys {
		b, bok := conds[0][k]
		a, aok := conds[1][k]
		if bok && aok && b.Status == a.Status && b.Reason == a.Reason {
			continue
		}
		f := ConditionFlip{Object: k.object, Entry: k.entry, Type: k.typ}
		if bok {
			f.Before = &b
		}
		if aok {
			f.After = &a
		}
		d.Conditions = append(d.Conditions, f)
	}
	slices.SortFunc(d.Conditions, func(a, b ConditionFlip) int {
		return cmp.Or(cmp.Compare(a.Object, b.Object), cmp.Compare(a.Entry, b.Entry), cmp.Compare(a.Type, b.Type))
	})
	return d
}

type condKey struct{ object, entry, typ string }

// unchanged marks, in each of two outputs, the policies and the targets
// whose status is the same in both (most of them, for a small change):
// they cannot flip, and are not indexed.
func unchanged(before, after *Output) (b, a map[string]bool) {
	b, a = map[string]bool{}, map[string]bool{}
	policies := make(map[string]*engine.PolicyStatus, len(before.Policies))
	for i := range before.Policies {
		policies[before.Policies[i].Ref] = &before.Policies[i]
	}
	for i := range after.Policies {
		p := &after.Policies[i]
		if o, ok := policies[p.Ref]; ok && reflect.DeepEqual(o.Conditions, p.Conditions) && reflect.DeepEqual(o.Targets, p.Targets) && reflect.DeepEqual(o.Ancestors, p.Ancestors) {
			b["p"+p.Ref], a["p"+p.Ref] = true, true
		}
	}
	targets := make(map[string]*engine.TargetStatus, len(before.Targets))
	for i := range before.Targets {
		targets[before.Targets[i].Ref] = &before.Targets[i]
	}
	for i := range after.Targets {
		t := &after.Targets[i]
		if o, ok := targets[t.Ref]; ok && reflect.DeepEqual(o.Conditions, t.Conditions) {
			b["t"+t.Ref], a["t"+t.Ref] = true, true
		}
	}
	return b, a
}

// conditionsOf indexes every condition of an output but those of the
// policies and targets skip marks (unchanged; nil: none).
func conditionsOf(out *Output, skip map[string]bool) map[condKey]engine.Condition {
	m := map[condKey]engine.Condition{}
	for _, p := range out.Policies {
		if skip["p"+p.Ref] {
			continue
		}
		for _, c := range p.Conditions {
			m[condKey{p.Ref, "policy", c.Type}] = c
		}
		for _, t := range p.Targets {
			for _, c := range t.Conditions {
				m[condKey{p.Ref, "target " + t.Ref, c.Type}] = c
			}
		}
		for _, t := range p.Ancestors {
			for _, c := range t.Conditions {
				m[condKey{p.Ref, "ancestor " + t.Ref, c.Type}] = c
			}
		}
	}
	for _, t := range out.Targets {
		if skip["t"+t.Ref] {
			continue
		}
		for _, c := range t.Conditions {
			m[condKey{t.Ref, "object", c.Type}] = c
		}
	}
	return m
}

// fieldChanges compares the effective policy of one path in two states.
func fieldChanges(b engine.EffectivePolicy, bok bool, a engine.EffectivePolicy, aok bool) []FieldChange {
	if bok && aok && maps.Equal(b.Provenance, a.Provenance) && reflect.DeepEqual(b.Spec, a.Spec) {
		return nil // the same (most paths of a small change)
	}
	bf, af := leaves(b, bok), leaves(a, aok)
	names := map[string]bool{}
	for f := range bf {
		names[f] = true
	}
	for f := range af {
		names[f] = true
	}
	ref := a
	if !aok {
		ref = b
	}
	var out []FieldChange
	for f := range names {
		bv, bset := bf[f]
		av, aset := af[f]
		c := FieldChange{PolicyKind: ref.PolicyKind, Path: ref.Path, Field: f, BeforeSet: bset, AfterSet: aset}
		if bset {
			c.Before, c.BeforeFrom = bv, provenanceOf(b.Provenance, f)
		}
		if aset {
			c.After, c.AfterFrom = av, provenanceOf(a.Provenance, f)
		}
		if bset == aset && tree.JSONEqual(bv, av) && c.BeforeFrom == c.AfterFrom {
			continue
		}
		out = append(out, c)
	}
	return out
}

// leaves maps the dotted fields of an effective spec to their values.
func leaves(e engine.EffectivePolicy, ok bool) map[string]any {
	m := map[string]any{}
	if !ok || e.Spec == nil {
		return m
	}
	for _, l := range tree.From(e.Spec, tree.NoOrigin).Leaves() {
		m[tree.FieldPath(l.Path)] = l.Value.JSON()
	}
	return m
}

// provenanceOf is the policy that set field, read from the provenance of
// the field or of the nearest enclosing field that has one.
func provenanceOf(prov map[string]string, field string) string {
	for f := field; ; {
		if p, ok := prov[f]; ok {
			return p
		}
		i := strings.LastIndexAny(f, ".[")
		if i < 0 {
			if f != "" {
				if p, ok := prov[""]; ok {
					return p
				}
			}
			return ""
		}
		f = f[:i]
	}
}

// FailOn names a state GEP-713 status a run can be made to fail on
// (--fail-on; docs/diff.md).
type FailOn string

// The --fail-on values: Changed trips on any change of a diff; the others
// on a policy whose status (its own conditions, or any target or ancestor
// entry) in the state after has that reason (GEP-713, Status reporting,
// Status conditions).
const (
	FailChanged        FailOn = "changed"
	FailConflicted     FailOn = "conflicted"
	FailInvalid        FailOn = "invalid"
	FailTargetNotFound FailOn = "targetnotfound"
	FailOverridden     FailOn = "overridden"
)

// FailOnValues lists the --fail-on values, in order.
var FailOnValues = []FailOn{FailChanged, FailConflicted, FailInvalid, FailTargetNotFound, FailOverridden}

// ParseFailOn reads --fail-on values, each a value or a comma list;
// withChanged says whether "changed" is allowed (diff, not simulate).
func ParseFailOn(values []string, withChanged bool) ([]FailOn, error) {
	var out []FailOn
	for _, v := range values {
		for _, s := range strings.Split(v, ",") {
			f := FailOn(strings.ToLower(strings.TrimSpace(s)))
			switch {
			case f == FailChanged && !withChanged:
				return nil, fmt.Errorf("%q: a single state has nothing that changes (only gepcheck diff takes it); one of conflicted, invalid, targetnotfound, overridden", s)
			case !slices.Contains(FailOnValues, f):
				return nil, fmt.Errorf("%q: one of changed, conflicted, invalid, targetnotfound, overridden", s)
			}
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// Tripped lists, sorted, one line per policy entry of out whose status
// has a reason of fail (every value but FailChanged): "Conflicted:
// ColorPolicy/default/p1 (policy)".
func Tripped(out *Output, fail []FailOn) []string {
	reasons := map[string]bool{}
	for _, f := range fail {
		switch f {
		case FailConflicted:
			reasons[engine.ReasonConflicted] = true
		case FailInvalid:
			reasons[engine.ReasonInvalid] = true
		case FailTargetNotFound:
			reasons[engine.ReasonTargetNotFound] = true
		case FailOverridden:
			reasons[engine.ReasonOverridden] = true
		}
	}
	var lines []string
	for k, c := range conditionsOf(out, nil) {
		if k.entry != "object" && reasons[c.Reason] && c.Status != "True" {
			lines = append(lines, fmt.Sprintf("%s: %s (%s, %s)", c.Reason, k.object, k.entry, k.typ))
		}
	}
	slices.Sort(lines)
	return lines
}
