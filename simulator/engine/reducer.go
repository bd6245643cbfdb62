package engine

import (
	"fmt"

	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/topology"
	"github.com/gepcheck/gepcheck/simulator/tree"
)

// reducer is one family of rules for reducing the stack of policies on a
// path into an effective policy, and for the status that follows from it:
// GEP-713's merge strategies, GEP-2649's field-level defaults and
// overrides, or the Kuadrant RFC's blocks. A run holds the one its profile
// chooses (forProfile), instead of testing flags where the families differ.
type reducer interface {
	// prepare returns policy i's tree (its fields, or its rules, with
	// origin i), or why the policy is invalid.
	prepare(r *run, i int32) (*tree.Node, string)
	// push stacks policy i, attached at node, beneath the prefix state s
	// (s.stack already holds it); a family that reduces per path returns
	// s as it is.
	push(r *run, s state, i int32, node topology.NodeID) state
	// final returns the effective spec of the path whose state is s and
	// whose last element is leaf.
	final(r *run, s *state, leaf topology.NodeID) *tree.Node
	// title names how policy i merges, in the words of its spec.
	title(r *run, i int32) string
	// step says where and by which rule policy i set the field at path of
	// a path's effective spec, given its least and most specific
	// attachments on the path: overrides (and None's established policy)
	// win from the least specific, defaults from the most specific.
	step(r *run, i int32, path []string, least, most string) (at, step string)
	// enforced returns the outcome of a policy whose tally t has paths,
	// with its message, when the family words it itself (ok false:
	// GEP-713's wording).
	enforced(r *run, t *tally, scope string) (o outcome, msg string, ok bool)
	// affected returns the <Kind>Affected condition of n, when the family
	// words it itself.
	affected(r *run, n topology.NodeID, by []string, all map[topology.NodeID]map[int32]bool) (c Condition, ok bool)
}

// forProfile is the reducer of a profile's family.
func forProfile(p *profile.Profile) reducer {
	switch {
	case p.Spec.FieldLevel != nil:
		return fieldLevelReducer{}
	case p.Spec.Kuadrant != nil:
		return kuadrantReducer{}
	}
	return strategyReducer{}
}

// strategyReducer is GEP-713: each policy's spec proper, merged along the
// path by the merge strategies (None, Atomic and Patch defaults and
// overrides), under the run's path semantics.
type strategyReducer struct{}

func (strategyReducer) prepare(r *run, i int32) (*tree.Node, string) {
	spec := r.policies[i].Intent.SpecProper
	if spec == nil {
		spec = map[string]any{}
	}
	return tree.From(spec, tree.Origin(i)), ""
}

func (strategyReducer) push(r *run, s state, i int32, n topology.NodeID) state {
	if r.none {
		// GEP-713, Merge strategy None: rules 2 and 3 only; the
		// established (oldest, then first by {namespace}/{name}) wins.
		// NoneConflicts Target: a policy on a more specific target
		// (pushed later, top down) applies instead; only policies on the
		// same target conflict.
		if s.winner < 0 || i < s.winner || r.byTarget && n != s.winnerAt && r.in.Mutant != MutantTargetConflictsOnPath {
			s.winner, s.winnerAt = i, n
		}
		return s
	}
	spec, st := r.specs[i], r.strategy(i)
	if r.in.Semantics == GEP713 || r.in.Mutant == MutantStickyIsGEP713 {
		// Combine with the established strategy; the result takes the
		// challenger's ("make the merge strategy specified by pB the
		// merge strategy of pX").
		res := r.combine(s.acc, profile.Strategy(s.accStrategy), spec)
		if s.acc != nil && profile.Strategy(s.accStrategy) == profile.AtomicOverrides && res.Origin != tree.Origin(s.accBy) {
			// The established spec is kept whole because the policy
			// whose strategy it carries is an Atomic override: a field
			// of the challenger absent from it was beaten by that
			// policy, not by whichever policy the established spec's
			// root came from (a default merged at the same level, itself
			// overridden).
			decided := *res
			decided.Origin = tree.Origin(s.accBy)
			res = &decided
		}
		s.acc, s.accStrategy, s.accBy = res, int32(st), i
		return s
	}
	// sticky-overrides
	switch {
	case s.locked != nil:
		// An Atomic override above beats everything beneath it.
	case st == profile.AtomicOverrides:
		res := spec
		for o := s.overrides; o != nil; o = o.prev {
			res = r.mergePatch(res, o.spec) // higher overrides win
		}
		s.locked = res
	case st == profile.PatchOverrides:
		s.overrides = &patchList{spec: spec, prev: s.overrides}
	default: // defaults, reduced as GEP-713 does
		s.acc, s.accStrategy = r.combine(s.acc, profile.Strategy(s.accStrategy), spec), int32(st)
	}
	return s
}

func (strategyReducer) final(r *run, s *state, _ topology.NodeID) *tree.Node {
	if r.none {
		if s.winner < 0 {
			return nil
		}
		return r.specs[s.winner]
	}
	if r.in.Semantics == GEP713 || r.in.Mutant == MutantStickyIsGEP713 {
		return s.acc
	}
	if s.locked != nil {
		return s.locked
	}
	res, o := s.acc, s.overrides
	if res == nil && o != nil && r.in.Mutant != MutantPatchOntoNothing {
		// No defaults beneath: the lowest override is taken as written,
		// as a policy of any other strategy is when nothing challenges
		// it (merging needs an established and a challenger, GEP-713,
		// "Merge strategies"); a merge patch onto nothing would drop
		// its null fields.
		res, o = o.spec, o.prev
	}
	// Patch overrides, lowest first, so that higher ones win.
	for ; o != nil; o = o.prev {
		res = r.mergePatch(res, o.spec)
	}
	return res
}

func (strategyReducer) title(r *run, i int32) string { return r.policies[i].Intent.Strategy.Title() }

func (strategyReducer) step(r *run, i int32, _ []string, least, most string) (string, string) {
	at := most
	if st := r.policies[i].Intent.Strategy; r.none || st == profile.AtomicOverrides || st == profile.PatchOverrides {
		at = least
	}
	return at, r.policies[i].Intent.Strategy.Title() + " at " + at
}

func (strategyReducer) enforced(*run, *tally, string) (outcome, string, bool) { return 0, "", false }

func (strategyReducer) affected(*run, topology.NodeID, []string, map[topology.NodeID]map[int32]bool) (Condition, bool) {
	return Condition{}, false
}

// fieldLevelReducer is GEP-2649: each field decided on its own, overrides
// from the least specific level, then the object's own value, then
// defaults from the most specific level.
type fieldLevelReducer struct{}

func (fieldLevelReducer) prepare(r *run, i int32) (*tree.Node, string) {
	if r.fdef == nil {
		r.fdef, r.fovr = make([]*tree.Node, len(r.policies)), make([]*tree.Node, len(r.policies))
	}
	in := r.policies[i].Intent
	r.fdef[i] = r.fieldTree(in.Defaults, tree.Origin(i), false)
	r.fovr[i] = r.fieldTree(in.Overrides, tree.Origin(i), false)
	// A field set in both stanzas is the override's.
	spec := firstWins(r.fovr[i], r.fdef[i])
	if spec == nil {
		spec = tree.From(map[string]any{}, tree.Origin(i))
	}
	return spec, ""
}

func (fieldLevelReducer) push(_ *run, s state, _ int32, _ topology.NodeID) state { return s }

func (fieldLevelReducer) final(r *run, s *state, leaf topology.NodeID) *tree.Node {
	return r.fieldLevel(s, leaf)
}

func (fieldLevelReducer) title(r *run, i int32) string {
	in := r.policies[i].Intent
	switch {
	case in.Defaults != nil && in.Overrides != nil:
		return "Defaults and overrides (GEP-2649, field by field)"
	case in.Overrides != nil:
		return "Overrides (GEP-2649, field by field)"
	}
	return "Defaults (GEP-2649, field by field)"
}

func (fieldLevelReducer) step(r *run, i int32, path []string, least, most string) (string, string) {
	if int(i) >= len(r.policies) {
		return "", "the object's own value: it beats every default (GEP-2649: \"the most specific value is the one inside the object\")"
	}
	if n, _ := r.fovr[i].Lookup(path); n != nil && n.Origin == tree.Origin(i) {
		return least, "override at " + least + ": the least specific override wins (GEP-2649, Hierarchy)"
	}
	return most, "default at " + most + ": no override sets it and the object does not, so the most specific default wins (GEP-2649, Hierarchy)"
}

func (fieldLevelReducer) enforced(*run, *tally, string) (outcome, string, bool) { return 0, "", false }

func (fieldLevelReducer) affected(*run, topology.NodeID, []string, map[topology.NodeID]map[int32]bool) (Condition, bool) {
	return Condition{}, false
}

// kuadrantReducer is the Kuadrant RFC: defaults and overrides blocks of
// named rules, atomic or merged, under when conditions, with unset.
type kuadrantReducer struct{}

func (kuadrantReducer) prepare(r *run, i int32) (*tree.Node, string) {
	if invalid := r.compileWhen(i); invalid != "" {
		return nil, invalid
	}
	return r.kuadrantRules(i), ""
}

func (kuadrantReducer) push(_ *run, s state, _ int32, _ topology.NodeID) state { return s }

func (kuadrantReducer) final(r *run, s *state, leaf topology.NodeID) *tree.Node {
	return r.kuadrant(s, leaf)
}

func (kuadrantReducer) title(r *run, i int32) string { return r.kuadrantTitle(i) }

func (kuadrantReducer) step(r *run, i int32, path []string, least, most string) (string, string) {
	id := r.renderPath(path)
	for _, b := range r.policies[i].Intent.Blocks {
		if _, ok := b.Rules[id]; ok {
			kind, how, at := "defaults", "atomic", most
			if b.Overrides {
				kind, at = "overrides", least
			}
			if b.Merge {
				how = "merge"
			}
			return at, fmt.Sprintf("%s (%s) at %s (Kuadrant RFC, Merge a %s block)", kind, how, at, kind)
		}
	}
	return most, r.policies[i].Intent.Strategy.Title() + " at " + most
}

func (kuadrantReducer) enforced(r *run, t *tally, scope string) (outcome, string, bool) {
	o, msg := r.kuadrantEnforced(t, scope)
	return o, msg, true
}

func (kuadrantReducer) affected(r *run, n topology.NodeID, by []string, all map[topology.NodeID]map[int32]bool) (Condition, bool) {
	return r.kuadrantAffected(n, by, all), true
}
