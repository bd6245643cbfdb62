package engine

import (
	"slices"
	"sync/atomic"

	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/topology"
	"github.com/gepcheck/gepcheck/simulator/tree"
)

// Mutant names a deliberately broken variant of the engine. gepcheck's
// property suite runs against each one to prove that its properties can
// fail (suite/mutants_test.go). The zero value is the reference engine;
// nothing outside the suite sets another.
type Mutant string

// The mutants, each breaking one rule.
const (
	// MutantNewerWins reverses Conflict resolution rule 2: the newer policy
	// is established.
	MutantNewerWins Mutant = "newer-wins"
	// MutantNameDescending reverses rule 3: the last by {namespace}/{name}
	// is established.
	MutantNameDescending Mutant = "name-descending"
	// MutantInputOrder drops rule 3: policies with equal timestamps keep
	// the order of the input, so the order is neither total nor
	// independent of how documents were read.
	MutantInputOrder Mutant = "input-order"
	// MutantFlakyTies breaks timestamp ties differently from call to call.
	MutantFlakyTies Mutant = "flaky-ties"
	// MutantLowerEstablished reverses rule 1: at each level the policies
	// below, not above, are established.
	MutantLowerEstablished Mutant = "lower-established"
	// MutantNoneAcceptsAll lets every policy of a None kind be accepted.
	MutantNoneAcceptsAll Mutant = "none-accepts-all"
	// MutantNullKept keeps null values in merge patches instead of
	// deleting the fields (RFC 7386 section 2).
	MutantNullKept Mutant = "null-kept"
	// MutantOverridesAsDefaults merges overrides as defaults.
	MutantOverridesAsDefaults Mutant = "overrides-as-defaults"
	// MutantAtomicAsPatch merges atomic strategies as merge patches.
	MutantAtomicAsPatch Mutant = "atomic-as-patch"
	// MutantStickyIsGEP713 reduces sticky-overrides paths as gep713 does.
	MutantStickyIsGEP713 Mutant = "sticky-is-gep713"
	// MutantAlwaysEnforced reports every policy on a path as Enforced.
	MutantAlwaysEnforced Mutant = "always-enforced"
	// MutantAffectedByAll reports every stacked policy as affecting its
	// targets, whether or not it contributes a field.
	MutantAffectedByAll Mutant = "affected-by-all"
	// MutantLeakyTargets ignores sectionName: a policy on one listener or
	// rule applies to the whole object.
	MutantLeakyTargets Mutant = "leaky-targets"
	// MutantWhenIgnored applies Kuadrant blocks whatever their when
	// condition says.
	MutantWhenIgnored Mutant = "when-ignored"
	// MutantUnsetOverrides lets spec.unset remove override rules too.
	MutantUnsetOverrides Mutant = "unset-overrides"
	// MutantMergeAsAtomic applies Kuadrant merge blocks as atomic ones.
	MutantMergeAsAtomic Mutant = "merge-as-atomic"
	// MutantPatchOntoNothing applies the lowest Patch override of a path
	// with no defaults as a merge patch onto nothing, which drops its
	// null fields: a lone policy's spec would depend on its strategy.
	MutantPatchOntoNothing Mutant = "patch-onto-nothing"
	// MutantListsMerged merges a list of a merge patch with the list it
	// patches element by element (the patch's elements first, then the
	// target's beyond them), where RFC 7386 replaces it whole.
	MutantListsMerged Mutant = "lists-merged"
	// MutantTargetConflictsOnPath ignores noneConflicts Target: a None
	// policy on a section conflicts with one on the whole object, the
	// older winning.
	MutantTargetConflictsOnPath Mutant = "target-conflicts-on-path"
	// MutantOtherVocabulary writes the other status vocabulary's condition
	// type and reasons: the draft's Enforced where merged GEP-713's
	// Programmed is asked for, and the other way round.
	MutantOtherVocabulary Mutant = "other-vocabulary"
	// MutantStoredDefaultUnnamed attributes a field a CRD default set to
	// the policy it was stored for, as if its author had written it: no
	// effective policy names its stored defaults.
	MutantStoredDefaultUnnamed Mutant = "stored-default-unnamed"
	// MutantListenerSetUnattached ignores routes' ListenerSet parentRefs:
	// a route attached to a ListenerSet's listener is not beneath it, so
	// its paths start at the route and no policy of the Gateway or the
	// ListenerSet reaches it (GEP-1713, Summary of Attachments: "Routes
	// attach to all relevant Listeners in their direct parent object").
	MutantListenerSetUnattached Mutant = "listenerset-unattached"
	// MutantListenerSetOnGateway applies a policy on a whole ListenerSet
	// to its parent Gateway, so that it reaches the Gateway's own
	// listeners too (GEP-1713, Policy Attachment: policies on a
	// ListenerSet "do not impact listeners in the parent Gateway").
	MutantListenerSetOnGateway Mutant = "listenerset-on-gateway"
	// MutantSelectorAnyNamespace resolves a label-selector target by kind
	// and name in every namespace: a route selected in the policy's
	// namespace brings along the routes of the same kind and name in
	// other namespaces, which its labels were never matched against.
	MutantSelectorAnyNamespace Mutant = "selector-any-namespace"
)

// Mutants lists every mutant.
var Mutants = []Mutant{
	MutantNewerWins, MutantNameDescending, MutantInputOrder, MutantFlakyTies,
	MutantLowerEstablished, MutantNoneAcceptsAll, MutantNullKept, MutantOverridesAsDefaults,
	MutantAtomicAsPatch, MutantStickyIsGEP713, MutantAlwaysEnforced, MutantAffectedByAll, MutantLeakyTargets,
	MutantWhenIgnored, MutantUnsetOverrides, MutantMergeAsAtomic, MutantPatchOntoNothing,
	MutantListsMerged, MutantTargetConflictsOnPath, MutantOtherVocabulary, MutantStoredDefaultUnnamed,
	MutantListenerSetUnattached, MutantListenerSetOnGateway, MutantSelectorAnyNamespace,
}

var flaky atomic.Uint64

// strategy returns the strategy policy i selected, as a mutant sees it.
func (r *run) strategy(i int32) profile.Strategy {
	st := r.policies[i].Intent.Strategy
	switch r.in.Mutant {
	case MutantOverridesAsDefaults:
		switch st {
		case profile.AtomicOverrides:
			return profile.AtomicDefaults
		case profile.PatchOverrides:
			return profile.PatchDefaults
		}
	case MutantAtomicAsPatch:
		switch st {
		case profile.AtomicDefaults:
			return profile.PatchDefaults
		case profile.AtomicOverrides:
			return profile.PatchOverrides
		}
	}
	return st
}

// mergePatch is RFC 7386, or the null-keeping mutant of it.
func (r *run) mergePatch(target, patch *tree.Node) *tree.Node {
	if r.in.Mutant == MutantNullKept {
		return keepNulls(target, patch)
	}
	res := tree.MergePatch(target, patch)
	if r.in.Mutant == MutantListsMerged {
		res = mergeLists(target, patch, res)
	}
	return res
}

// mergeLists is MutantListsMerged: where patch and target hold lists at
// the same place, res gets the patch's elements followed by the target's
// beyond them.
func mergeLists(target, patch, res *tree.Node) *tree.Node {
	if target == nil || patch == nil || res == nil {
		return res
	}
	if patch.IsObject() && target.IsObject() && res.IsObject() {
		out := *res
		out.Fields = map[string]*tree.Node{}
		for k, v := range res.Fields {
			out.Fields[k] = mergeLists(target.Fields[k], patch.Fields[k], v)
		}
		return &out
	}
	tl, ok1 := target.Value.([]any)
	pl, ok2 := patch.Value.([]any)
	if !ok1 || !ok2 || len(tl) <= len(pl) {
		return res
	}
	out := *res
	out.Value = append(append([]any{}, pl...), tl[len(pl):]...)
	return &out
}

func keepNulls(target, patch *tree.Node) *tree.Node {
	if patch == nil {
		return target
	}
	if !patch.IsObject() {
		return patch
	}
	out := &tree.Node{Fields: map[string]*tree.Node{}, Origin: patch.Origin}
	if target.IsObject() {
		out.Origin = target.Origin
		for k, v := range target.Fields {
			out.Fields[k] = v
		}
	}
	for k, v := range patch.Fields {
		out.Fields[k] = keepNulls(out.Fields[k], v)
	}
	return out
}

// pushReversed stacks the policies of node above, rather than beneath, the
// ones already on the path (MutantLowerEstablished): the path's stack is
// rebuilt with node's policies first.
func (r *run) pushReversed(s state, node topology.NodeID) state {
	old := established(s.stack)
	t := state{winner: -1}
	for _, i := range r.attached[node] {
		t = r.pushOne(t, i, node)
	}
	for _, e := range old {
		t = r.pushOne(t, e.origin, e.node)
	}
	return t
}

// unattachListenerSets is MutantListenerSetUnattached: g without the edges
// from a ListenerSet's listeners to the routes attached to them (g itself
// is not changed).
func unattachListenerSets(g *topology.Graph) *topology.Graph {
	out := *g
	out.Nodes = slices.Clone(g.Nodes)
	isSetListener := func(id topology.NodeID) bool {
		r := g.Nodes[id].Ref
		return r.Kind == "ListenerSet" && r.Section != ""
	}
	for i := range out.Nodes {
		n := &out.Nodes[i]
		if isSetListener(topology.NodeID(i)) {
			n.Children = nil
			continue
		}
		n.Parents = slices.DeleteFunc(slices.Clone(n.Parents), isSetListener)
	}
	return &out
}

// otherNamespaces is MutantSelectorAnyNamespace: the nodes of the
// object o's kind and name in namespaces other than o's.
func otherNamespaces(g *topology.Graph, o ref.Ref) []topology.NodeID {
	var out []topology.NodeID
	for i := range g.Nodes {
		r := g.Nodes[i].Ref
		if r.Group == o.Group && r.Kind == o.Kind && r.Name == o.Name && r.Section == o.Section && r.Namespace != o.Namespace && !g.Nodes[i].Virtual {
			out = append(out, topology.NodeID(i))
		}
	}
	return out
}
