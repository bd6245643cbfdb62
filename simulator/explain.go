package simulator

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/tree"
)

// TargetExplanation answers GEP-713's discoverability questions for one
// object ("The discoverability problem"): that policies affect it, which,
// and what settings they set.
type TargetExplanation struct {
	Target string `json:"target"`
	// Reading is what produced the answer (docs/output.md).
	Reading
	// AttachedPolicies target the object (or one of its sections) directly.
	AttachedPolicies []string `json:"attachedPolicies"`
	// AffectedBy lists the policies reported on the object.
	AffectedBy []string `json:"affectedBy"`
	// Paths are the effective policies of every path through the object.
	Paths []engine.EffectivePolicy `json:"paths"`
	// Decisions explain each path field by field (filled by Model.Explain).
	Decisions []PathDecisions `json:"decisions,omitempty"`
}

// Explain is ExplainTarget with, for every path, the decision behind each
// field (Model.Decide). Pass the output of RunDecisions: an output without
// the engine's record of its decisions (Run) is computed again with it.
func (m *Model) Explain(out *Output, target ref.Ref) (*TargetExplanation, error) {
	if !recorded(out) {
		out = m.RunDecisions(out.Semantics)
	}
	x, err := ExplainTarget(out, target)
	if err != nil {
		return x, err
	}
	for _, e := range x.Paths {
		x.Decisions = append(x.Decisions, m.Decide(out, e))
	}
	return x, nil
}

// recorded reports whether every effective policy of out carries the
// engine's record of its decisions.
func recorded(out *Output) bool {
	for _, e := range out.EffectivePolicies {
		if e.Decisions == nil {
			return false
		}
	}
	return true
}

// ExplainTarget explains what affects target: every path through the object
// (or through the named section), its effective policy and where each field
// comes from.
func ExplainTarget(out *Output, target ref.Ref) (*TargetExplanation, error) {
	x := &TargetExplanation{Target: target.String(), Reading: out.Reading(), AttachedPolicies: []string{}, AffectedBy: []string{}, Paths: []engine.EffectivePolicy{}}
	on := func(elem string) bool {
		r, err := ref.Parse(elem)
		if err != nil {
			return false
		}
		if target.Section == "" {
			r.Section = ""
		}
		return r.Matches(target)
	}
	known := false
	for _, e := range out.EffectivePolicies {
		for _, el := range e.Path {
			if on(el) {
				x.Paths = append(x.Paths, e)
				known = true
				break
			}
		}
	}
	for _, p := range out.Policies {
		for _, t := range p.Targets {
			if on(t.Ref) && acceptedTrue(t.Conditions) {
				x.AttachedPolicies = append(x.AttachedPolicies, p.Ref)
				known = true
				break
			}
		}
	}
	seen := map[string]bool{}
	for _, t := range out.Targets {
		if on(t.Ref) {
			known = true
			for _, p := range t.AffectedBy {
				if !seen[p] {
					seen[p] = true
					x.AffectedBy = append(x.AffectedBy, p)
				}
			}
		}
	}
	sort.Strings(x.AffectedBy)
	if !known {
		var names []string
		for _, e := range out.EffectivePolicies {
			names = append(names, e.Path...)
		}
		for _, t := range out.Targets {
			names = append(names, t.Ref)
		}
		return x, fmt.Errorf("%s is on no path of any policy kind and no policy targets it%s", target, didYouMean(target.String(), names))
	}
	return x, nil
}

// PolicyExplanation answers the Policy Admin's questions (GEP-713, "Policy
// Admin Discoverability"): where a policy applies, how many places it is
// used, and what deleting it would change.
type PolicyExplanation struct {
	Policy string `json:"policy"`
	// Reading is what produced the answer (docs/output.md).
	Reading
	Status engine.PolicyStatus `json:"status"`
	// InEffectOn lists the paths whose effective policy takes at least one
	// field from the policy.
	InEffectOn []engine.EffectivePolicy `json:"inEffectOn"`
	// StackedOn counts the paths the policy is stacked on, in effect or not.
	StackedOn int `json:"stackedOn"`
	// IfDeleted lists, per path, how the effective policy would change if
	// the policy were deleted.
	IfDeleted []Change `json:"ifDeleted"`
}

// Change is the difference deleting a policy makes on one path.
type Change struct {
	Path   []string `json:"path"`
	Before any      `json:"before"`
	After  any      `json:"after"`
	// Fields lists the dotted fields whose value or provenance changes.
	Fields []string `json:"fields"`
}

// ExplainPolicy explains policy under semantics sem.
func (m *Model) ExplainPolicy(sem engine.Semantics, policy ref.Ref) (*PolicyExplanation, error) {
	var full *ref.Ref
	var names []string
	for _, k := range m.Kinds {
		for _, p := range k.Policies {
			names = append(names, p.Ref.String())
			if p.Ref.Kind == policy.Kind && p.Ref.Namespace == policy.Namespace && p.Ref.Name == policy.Name {
				r := p.Ref
				full = &r
			}
		}
	}
	if full == nil {
		return nil, fmt.Errorf("no policy %s in the input%s", policy, didYouMean(policy.String(), names))
	}
	before := m.run(sem, nil, full, false)
	if err := m.Limits(before); err != nil {
		return nil, err
	}
	after := m.Run(sem, full)
	name := full.String()
	x := &PolicyExplanation{Policy: name, Reading: before.Reading(), InEffectOn: []engine.EffectivePolicy{}, IfDeleted: []Change{}}
	for _, p := range before.Policies {
		if p.Ref == name {
			x.Status = p
		}
	}
	afterByPath := map[string]engine.EffectivePolicy{}
	for _, e := range after.EffectivePolicies {
		afterByPath[pathKey(e.Path)] = e
	}
	seen := map[string]bool{}
	for _, e := range before.EffectivePolicies {
		k := pathKey(e.Path)
		seen[k] = true
		stacked := false
		for _, p := range e.Policies {
			stacked = stacked || p == name
		}
		if stacked {
			x.StackedOn++
		}
		for _, src := range e.Provenance {
			if src == name {
				x.InEffectOn = append(x.InEffectOn, e)
				break
			}
		}
		a, ok := afterByPath[k]
		if c := diff(e, a, ok); c != nil {
			x.IfDeleted = append(x.IfDeleted, *c)
		}
	}
	for k, a := range afterByPath {
		if !seen[k] {
			x.IfDeleted = append(x.IfDeleted, *diff(engine.EffectivePolicy{Path: a.Path}, a, true))
		}
	}
	sort.Slice(x.IfDeleted, func(i, j int) bool { return pathKey(x.IfDeleted[i].Path) < pathKey(x.IfDeleted[j].Path) })
	return x, nil
}

// diff compares the effective policy of a path before and after.
func diff(before, after engine.EffectivePolicy, present bool) *Change {
	c := &Change{Path: before.Path, Before: before.Spec}
	if present {
		c.After = after.Spec
	}
	fields := map[string]bool{}
	for f, src := range before.Provenance {
		if after.Provenance[f] != src || !present {
			fields[f] = true
		}
	}
	for f, src := range after.Provenance {
		if before.Provenance[f] != src {
			fields[f] = true
		}
	}
	if len(fields) == 0 && tree.JSONEqual(c.Before, c.After) {
		return nil
	}
	for f := range fields {
		c.Fields = append(c.Fields, f)
	}
	sort.Strings(c.Fields)
	return c
}

// String summarizes a change for people.
func (c Change) String() string {
	return fmt.Sprintf("%s: %s -> %s (%s)", strings.Join(c.Path, " > "), compact(c.Before), compact(c.After), strings.Join(c.Fields, ", "))
}

func acceptedTrue(cs []engine.Condition) bool {
	c, _ := engine.FindCondition(cs, engine.TypeAccepted)
	return c.Status == "True"
}
