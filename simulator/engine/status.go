package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gepcheck/gepcheck/simulator/topology"
	"github.com/gepcheck/gepcheck/simulator/tree"
)

// tally counts how a policy fared on the paths through one of its targets.
type tally struct {
	policy int32
	paths  int // paths the policy is stacked on
	full   int // paths where every field of its spec proper is effective
	zero   int // paths where none is
	lost   int // None: paths where another policy is established
	// winners on lost paths (None)
	winners map[int32]bool
	beaten  map[beatKey]*beatGroup
}

// beatKey is one field (by its index among the policy's leaves) and the
// policy that beat it.
type beatKey struct {
	leaf int32
	by   int32
}

// beatGroup counts the paths where a field lost to one policy, keeping the
// first few as examples.
type beatGroup struct {
	paths    int
	examples []int32 // prefixes
}

const maxExamples = 3

func (t *tally) beat(k beatKey, prefix int32, all bool) {
	if t.beaten == nil {
		t.beaten = map[beatKey]*beatGroup{}
	}
	g := t.beaten[k]
	if g == nil {
		g = &beatGroup{}
		t.beaten[k] = g
	}
	g.paths++
	if all || len(g.examples) < maxExamples {
		g.examples = append(g.examples, prefix)
	}
}

// add accumulates u into t.
func (t *tally) add(u *tally) {
	t.paths += u.paths
	t.full += u.full
	t.zero += u.zero
	t.lost += u.lost
	for w := range u.winners {
		if t.winners == nil {
			t.winners = map[int32]bool{}
		}
		t.winners[w] = true
	}
	for k, g := range u.beaten {
		for _, ex := range g.examples {
			t.beat(k, ex, true)
		}
		t.beaten[k].paths += g.paths - len(g.examples)
	}
}

type attachKey struct {
	origin int32
	node   topology.NodeID
}

func (r *run) result() Result {
	res := Result{PolicyKind: r.in.Profile.Spec.Policy.Kind}
	tallies := map[attachKey]*tally{}
	affected := map[topology.NodeID]map[int32]bool{}
	provCache := map[*tree.Node]map[string]string{}
	affect := func(n topology.NodeID, origin int32) {
		if affected[n] == nil {
			affected[n] = map[int32]bool{}
		}
		affected[n][origin] = true
	}
	for _, e := range r.paths {
		stack := established(e.stack)
		eff := EffectivePolicy{
			PolicyKind: res.PolicyKind,
			Path:       r.pathStrings(e.prefix),
			Spec:       e.spec.JSON(),
			Provenance: provCache[e.spec],
		}
		if eff.Provenance == nil {
			eff.Provenance = map[string]string{}
			for _, l := range e.spec.Leaves() {
				eff.Provenance[tree.FieldPath(l.Path)] = r.refs[l.Value.Origin]
			}
			provCache[e.spec] = eff.Provenance
		}
		leaf := r.prefixes[e.prefix].node
		for _, s := range stack {
			eff.Policies = append(eff.Policies, r.refs[s.origin])
			k := attachKey{s.origin, s.node}
			t := tallies[k]
			if t == nil {
				t = &tally{policy: s.origin}
				tallies[k] = t
			}
			t.paths++
			if r.none {
				if s.origin != e.winner {
					t.lost++
					t.zero++
					if t.winners == nil {
						t.winners = map[int32]bool{}
					}
					t.winners[e.winner] = true
					continue
				}
				t.full++
				affect(leaf, s.origin)
				affect(s.node, s.origin)
				continue
			}
			kept := 0
			for li, l := range r.leaves[s.origin] {
				found, because := e.spec.Lookup(l.Path)
				if survived(l, found, because, s.origin) {
					kept++
					continue
				}
				by := because
				if found != nil {
					by = found.Origin
				}
				t.beat(beatKey{leaf: int32(li), by: int32(by)}, e.prefix, s.origin == r.detail)
			}
			switch {
			case kept == len(r.leaves[s.origin]):
				t.full++
			case kept == 0:
				t.zero++
			}
			if kept > 0 || len(r.leaves[s.origin]) == 0 {
				affect(leaf, s.origin)
				affect(s.node, s.origin)
			}
		}
		res.EffectivePolicies = append(res.EffectivePolicies, eff)
	}
	sort.Slice(res.EffectivePolicies, func(a, b int) bool {
		return strings.Join(res.EffectivePolicies[a].Path, " ") < strings.Join(res.EffectivePolicies[b].Path, " ")
	})
	for i := range r.policies {
		res.Policies = append(res.Policies, r.policyStatus(int32(i), tallies))
	}
	sort.Slice(res.Policies, func(a, b int) bool { return res.Policies[a].Ref < res.Policies[b].Ref })
	cond := r.in.Profile.AffectedCondition()
	for n, set := range affected {
		ts := TargetStatus{Ref: r.in.Graph.Nodes[n].Ref.String()}
		for o := range set {
			ts.AffectedBy = append(ts.AffectedBy, r.refs[o])
		}
		sort.Strings(ts.AffectedBy)
		ts.Conditions = []Condition{{Type: cond, Status: "True", Reason: ReasonAffected,
			Message: "Affected by " + strings.Join(ts.AffectedBy, ", ")}}
		res.Targets = append(res.Targets, ts)
	}
	sort.Slice(res.Targets, func(a, b int) bool { return res.Targets[a].Ref < res.Targets[b].Ref })
	return res
}

// survived reports whether a field of policy origin made it into the
// effective spec: the value found there is the policy's own, or the policy's
// null removed it.
func survived(l tree.Leaf, found *tree.Node, because tree.Origin, origin int32) bool {
	if found != nil {
		if found.Origin == tree.Origin(origin) {
			return true
		}
		// An empty object of the policy merged with another's object.
		return l.Value.IsObject() && found.IsObject()
	}
	return !l.Value.IsObject() && l.Value.Value == nil && because == tree.Origin(origin)
}

// established lists a stack from the established (least specific) policy
// down.
func established(s *onPath) []*onPath {
	var out []*onPath
	for ; s != nil; s = s.prev {
		out = append(out, s)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// pathStrings renders the path of a prefix. Results are cached and shared:
// callers must not modify them.
func (r *run) pathStrings(pre int32) []string {
	if r.pathCache == nil {
		r.pathCache = make([][]string, len(r.prefixes))
		r.nodeStr = make([]string, len(r.in.Graph.Nodes))
	}
	if p := r.pathCache[pre]; p != nil || pre == 0 {
		return p
	}
	parent := r.pathStrings(r.prefixes[pre].parent)
	n := r.prefixes[pre].node
	if r.nodeStr[n] == "" {
		r.nodeStr[n] = r.in.Graph.Nodes[n].Ref.String()
	}
	p := make([]string, len(parent)+1)
	copy(p, parent)
	p[len(parent)] = r.nodeStr[n]
	r.pathCache[pre] = p
	return p
}

func (r *run) policyStatus(i int32, tallies map[attachKey]*tally) PolicyStatus {
	p := r.policies[i]
	ps := PolicyStatus{Ref: r.refs[i]}
	if p.Intent.Invalid != "" {
		ps.Conditions = []Condition{{Type: TypeAccepted, Status: "False", Reason: ReasonInvalid, Message: p.Intent.Invalid}}
		return ps
	}
	ps.Strategy = p.Intent.Strategy.Title()
	total := tally{policy: i}
	var problems []string
	accepted, conflicted := 0, 0
	reasons := map[string]bool{}
	for _, o := range r.accepted[i] {
		pt := PolicyTarget{Ref: o.ref.String()}
		if !o.ok {
			pt.Conditions = []Condition{{Type: TypeAccepted, Status: "False", Reason: o.reason, Message: o.msg}}
			problems = append(problems, o.msg)
			reasons[o.reason] = true
			ps.Targets = append(ps.Targets, pt)
			continue
		}
		t := tallies[attachKey{i, o.node}]
		if t == nil {
			t = &tally{policy: i}
		}
		if r.none && t.paths > 0 && t.lost == t.paths {
			// GEP-713, Merge strategy None: "All challenger specs MUST be
			// rejected" and "the Accepted status condition of the policy
			// SHOULD be set to false".
			conflicted++
			msg := fmt.Sprintf("conflicts with %s on %s: %s", r.names(t.winners), pt.Ref, noneRule)
			pt.Conditions = []Condition{{Type: TypeAccepted, Status: "False", Reason: ReasonConflicted, Message: msg}}
			problems = append(problems, msg)
			ps.Targets = append(ps.Targets, pt)
			continue
		}
		accepted++
		pt.Conditions = []Condition{
			{Type: TypeAccepted, Status: "True", Reason: ReasonAccepted, Message: "Policy has been accepted"},
			r.enforced(p.Intent.Strategy.Title(), t, pt.Ref),
		}
		ps.Targets = append(ps.Targets, pt)
		total.add(t)
	}
	switch {
	case accepted > 0:
		msg := "Policy has been accepted"
		if len(problems) > 0 {
			msg += "; " + strings.Join(problems, "; ")
		}
		ps.Conditions = []Condition{
			{Type: TypeAccepted, Status: "True", Reason: ReasonAccepted, Message: msg},
			r.enforced(p.Intent.Strategy.Title(), &total, ""),
		}
	case conflicted > 0:
		ps.Conditions = []Condition{{Type: TypeAccepted, Status: "False", Reason: ReasonConflicted, Message: strings.Join(problems, "; ")}}
	default:
		reason := ReasonTargetNotFound
		for _, rs := range []string{ReasonInvalid, ReasonRefNotPermitted, ReasonTargetNotFound} {
			if reasons[rs] {
				reason = rs
				break
			}
		}
		ps.Conditions = []Condition{{Type: TypeAccepted, Status: "False", Reason: reason, Message: strings.Join(problems, "; ")}}
	}
	ps.Paths = total.paths - total.zero
	for k, g := range total.beaten {
		b := Beaten{Field: r.field(i, k.leaf), By: r.ref(k.by), Paths: g.paths}
		for _, ex := range g.examples {
			b.Examples = append(b.Examples, r.pathStrings(ex))
		}
		ps.Beaten = append(ps.Beaten, b)
	}
	sort.Slice(ps.Beaten, func(a, b int) bool {
		if ps.Beaten[a].Field != ps.Beaten[b].Field {
			return ps.Beaten[a].Field < ps.Beaten[b].Field
		}
		return ps.Beaten[a].By < ps.Beaten[b].By
	})
	return ps
}

const noneRule = "the established policy (oldest, then first by {namespace}/{name}) wins (GEP-713, Merge strategy: None)"

// enforced derives the Enforced condition from a tally (GEP-713, "Policy
// status": Enforced, PartiallyEnforced, Overridden).
func (r *run) enforced(strategy string, t *tally, target string) Condition {
	scope := ""
	if target != "" {
		scope = " through " + target
	}
	switch {
	case t.paths == 0:
		return Condition{Type: TypeEnforced, Status: "False", Reason: ReasonUnknown,
			Message: fmt.Sprintf("no path%s reaches an effective target (%s)", scope, r.effectiveKinds())}
	case t.full == t.paths:
		return Condition{Type: TypeEnforced, Status: "True", Reason: ReasonEnforced,
			Message: fmt.Sprintf("%s: enforced on %s%s", strategy, count(t.paths), scope)}
	case t.zero == t.paths:
		return Condition{Type: TypeEnforced, Status: "False", Reason: ReasonOverridden,
			Message: fmt.Sprintf("%s: overridden on %s%s by %s", strategy, count(t.paths), scope, r.beaters(t))}
	}
	return Condition{Type: TypeEnforced, Status: "True", Reason: ReasonPartiallyEnforced,
		Message: fmt.Sprintf("%s: fully enforced on %d of %s%s; superseded: %s", strategy, t.full, count(t.paths), scope, r.superseded(t))}
}

func count(n int) string {
	if n == 1 {
		return "1 path"
	}
	return fmt.Sprintf("%d paths", n)
}

func (r *run) effectiveKinds() string {
	var ks []string
	for _, t := range r.in.Profile.Spec.EffectiveTargets {
		k := t.Kind
		if t.Section {
			k += " section"
		}
		ks = append(ks, k)
	}
	return strings.Join(ks, ", ")
}

// beaters names the policies that beat the fields in t.
func (r *run) beaters(t *tally) string {
	set := map[int32]bool{}
	for w := range t.winners {
		set[w] = true
	}
	for k := range t.beaten {
		set[k.by] = true
	}
	return r.names(set)
}

// field renders the dotted path of leaf j of policy i.
func (r *run) field(i, j int32) string {
	return tree.FieldPath(r.leaves[i][j].Path)
}

// ref names the policy with origin o.
func (r *run) ref(o int32) string {
	if o < 0 || int(o) >= len(r.refs) {
		return "(no policy)"
	}
	return r.refs[o]
}

func (r *run) names(set map[int32]bool) string {
	var names []string
	for o := range set {
		if o >= 0 && int(o) < len(r.refs) {
			names = append(names, r.refs[o])
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// superseded summarizes, per field, which policies superseded it and on how
// many paths.
func (r *run) superseded(t *tally) string {
	type fb struct {
		field string
		by    int32
	}
	n := map[fb]int{}
	for k, g := range t.beaten {
		n[fb{r.field(t.policy, k.leaf), k.by}] += g.paths
	}
	keys := make([]fb, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if keys[a].field != keys[b].field {
			return keys[a].field < keys[b].field
		}
		return r.ref(keys[a].by) < r.ref(keys[b].by)
	})
	var parts []string
	for i, k := range keys {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("and %d more", len(keys)-i))
			break
		}
		parts = append(parts, fmt.Sprintf("%s by %s on %s", k.field, r.ref(k.by), count(n[k])))
	}
	return strings.Join(parts, ", ")
}
