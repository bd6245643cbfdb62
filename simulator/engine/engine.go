package engine

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/google/cel-go/cel"

	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/topology"
	"github.com/gepcheck/gepcheck/simulator/tree"
)

// run holds the working state of one Run.
type run struct {
	in       *Input
	policies []*Policy    // ordered by Less; the index is the tree.Origin
	specs    []*tree.Node // spec proper of each policy, origin = index
	leaves   [][]tree.Leaf
	fields   [][]string // rendered leaf paths, filled on demand
	refs     []string
	accepted [][]targetOutcome // per policy
	attached map[topology.NodeID][]int32
	levels   map[profile.NodeType]bool
	effType  map[profile.NodeType]bool
	none     bool
	byTarget bool // NoneConflicts Target

	// Paths are projected onto the kinds in levels; prefix i of a path is
	// the pair (prefixes[i].parent, prefixes[i].node) and states[i] is the
	// reduction of the stack for that prefix (work shared by every path that
	// starts with it).
	prefixes []prefix
	states   []state
	visited  map[[2]int32]bool

	paths []emitted

	detail   int32 // origin of Input.Detail, or -1
	ancestor map[topology.NodeID]bool

	// family reduces the stacks (reducer.go); none: the profile is
	// GEP-713's merge strategy None.
	family reducer

	// Field-level kinds (GEP-2649): each policy's defaults and overrides as
	// internal trees, and the origins given to objects' own values.
	fdef, fovr []*tree.Node
	ownOrigin  map[string]tree.Origin

	// Kuadrant kinds: each policy's rules by block kind, compiled when
	// conditions, and why a policy is invalid (the profile's reading or a
	// CEL error).
	kRules  []map[bool]map[string]*tree.Node
	celEnv  *cel.Env
	cel     map[string]cel.Program
	invalid []string
	// conflicted: rejected whole by a None kind with NoneRejects Policy.
	conflicted []string
	// limitErrors records, by policy, a CEL limit the policy's conditions
	// went over (cellimits.go).
	limitErrors []*LimitError
	// words is the status vocabulary's wording (vocabulary.go); noValue
	// marks the policies whose spec proper sets no value (only empty
	// objects and nulls), whose status neither text settles.
	words     *wording
	noValue   []bool
	nodeStr   []string   // rendered refs, by node
	pathCache [][]string // rendered paths, by prefix

	// hasStored: a policy carries a field its kind's schema defaulted
	// (stored.go); storedCache holds the fields named, by effective spec.
	hasStored   bool
	storedCache map[*tree.Node][]string
}

type prefix struct {
	parent int32
	node   topology.NodeID
}

// onPath is a persistent list of the policies stacked on a path prefix,
// most specific first.
type onPath struct {
	origin int32
	node   topology.NodeID
	prev   *onPath
}

// state is the reduction of the stack of a path prefix, top (least specific)
// down.
type state struct {
	stack *onPath
	// acc is the running result of GEP-713's pop-two-combine-push loop
	// (gep713), or of the defaults only (sticky-overrides); accStrategy is
	// the strategy the result carries, a profile.Strategy held in 32 bits
	// so that a state, kept once per path prefix, stays 48 bytes with
	// accBy beside it (TestStateSize; docs/performance.md).
	acc         *tree.Node
	accStrategy int32
	// accBy is the policy whose strategy accStrategy is (gep713): the
	// one that decides how acc meets the next challenger.
	accBy int32
	// sticky-overrides: locked is the final result once an Atomic override
	// was met; overrides are the Patch overrides met so far, lowest first.
	locked    *tree.Node
	overrides *patchList
	// None: the established policy of the path, -1 if none yet, and the
	// node it is attached to.
	winner   int32
	winnerAt topology.NodeID
}

type patchList struct {
	spec *tree.Node
	prev *patchList // the next higher override
}

type emitted struct {
	prefix int32
	spec   *tree.Node
	stack  *onPath
	winner int32
}

// Run computes effective policies, statuses and provenance for one policy
// kind.
func Run(in Input) Result {
	// A condition over a CEL limit when it runs makes its policy Invalid,
	// as one over the estimated limit does when it is compiled: the result
	// is computed again without it. Each round makes at least one more
	// policy Invalid, so there are at most len(in.Policies)+1 rounds.
	var hit []*LimitError
	if in.Mutant == MutantListenerSetUnattached {
		in.Graph = unattachListenerSets(in.Graph)
	}
	for {
		r := newRun(in)
		r.order()
		r.walk()
		res := r.result()
		if r.none && in.Profile.Spec.NoneRejects == profile.NoneRejectsPolicy && in.rejected == nil {
			if in.rejected = r.wholeRejections(res); len(in.rejected) > 0 {
				continue
			}
		}
		var again []*LimitError
		for i, le := range r.limitErrors {
			if le != nil && r.policies[i].Intent.Invalid == "" && r.invalid[i] == "" {
				again = append(again, le)
			}
		}
		if len(again) == 0 {
			res.LimitErrors = append(hit, r.compileLimitErrors()...)
			return res
		}
		hit = append(hit, again...)
		in.Policies = slices.Clone(in.Policies)
		for k := range in.Policies {
			p := &in.Policies[k]
			for _, le := range again {
				if p.Ref.String() == le.Policy {
					p.Intent.Invalid = le.Error()
				}
			}
		}
	}
}

func newRun(in Input) *run {
	r := &run{
		in:       &in,
		attached: map[topology.NodeID][]int32{},
		levels:   in.Profile.Levels(),
		effType:  in.Profile.Effective(),
		none:     in.Profile.Implements(profile.None),
		byTarget: in.Profile.Spec.NoneConflicts == profile.NoneConflictsTarget,
		family:   forProfile(in.Profile),
		visited:  map[[2]int32]bool{},
		words:    wordingOf(in.Vocabulary, in.Mutant),
	}
	if in.Semantics == "" {
		r.in.Semantics = StickyOverrides
	}
	return r
}

// compileLimitErrors are the limit errors found when conditions were
// compiled: those policies are Invalid already.
func (r *run) compileLimitErrors() []*LimitError {
	var out []*LimitError
	for i, le := range r.limitErrors {
		if le != nil && r.invalid[i] != "" && r.policies[i].Intent.Invalid == "" {
			out = append(out, le)
		}
	}
	return out
}

// wholeRejections reads GEP-713's None rule as rejecting challengers as
// policy resources: in precedence order (rules 2 and 3), a policy is
// accepted unless it shares a path with a policy accepted before it, in
// which case it is rejected on every target. It returns the rejected
// policies, by ref, with the reason, from res, a round in which every
// policy took part.
func (r *run) wholeRejections(res Result) map[string]string {
	index := map[string]int{}
	for i, ref := range r.refs {
		index[ref] = i
	}
	shares := map[[2]int]string{} // pairs of policies on one path, and a path they share
	for _, e := range res.EffectivePolicies {
		for a := range e.Policies {
			for b := a + 1; b < len(e.Policies); b++ {
				i, j := index[e.Policies[a]], index[e.Policies[b]]
				if i > j {
					i, j = j, i
				}
				if _, seen := shares[[2]int{i, j}]; !seen {
					shares[[2]int{i, j}] = strings.Join(e.Path, " > ")
				}
			}
		}
	}
	out := map[string]string{}
	var accepted []int
	for i := range r.refs {
		if r.invalid[i] != "" {
			continue
		}
		lost := false
		for _, j := range accepted {
			if path, ok := shares[[2]int{j, i}]; ok {
				out[r.refs[i]] = fmt.Sprintf("conflicts with %s on %s: %s; the whole policy is rejected (profile noneRejects: Policy)", r.refs[j], path, noneRule)
				lost = true
				break
			}
		}
		if !lost {
			accepted = append(accepted, i)
		}
	}
	return out
}

// order sorts the policies by GEP-713 conflict resolution rules 2 and 3 and
// resolves their targets. Rule 1 (higher level is established) is applied by
// walking each path from its root.
func (r *run) order() {
	for i := range r.in.Policies {
		p := &r.in.Policies[i]
		if r.in.Exclude != nil && p.Ref == *r.in.Exclude {
			continue
		}
		r.policies = append(r.policies, p)
	}
	less := LessFor(r.in.Mutant)
	sort.SliceStable(r.policies, func(a, b int) bool { return less(r.policies[a], r.policies[b]) })
	r.detail = -1
	for i, p := range r.policies {
		if r.in.Detail != nil && p.Ref == *r.in.Detail {
			r.detail = int32(i)
		}
	}
	r.specs = make([]*tree.Node, len(r.policies))
	r.leaves = make([][]tree.Leaf, len(r.policies))
	r.fields = make([][]string, len(r.policies))
	r.invalid = make([]string, len(r.policies))
	r.limitErrors = make([]*LimitError, len(r.policies))
	r.kRules = make([]map[bool]map[string]*tree.Node, len(r.policies))
	r.refs = make([]string, len(r.policies))
	r.accepted = make([][]targetOutcome, len(r.policies))
	r.conflicted = make([]string, len(r.policies))
	r.noValue = make([]bool, len(r.policies))
	r.hasStored = r.anyStoredDefaults()
	for i, p := range r.policies {
		r.refs[i] = p.Ref.String()
		r.invalid[i] = p.Intent.Invalid
		if msg := r.in.rejected[r.refs[i]]; msg != "" && r.invalid[i] == "" {
			// Rejected whole (NoneRejects Policy): on no path, Conflicted
			// on every target.
			r.conflicted[i] = msg
			r.accepted[i] = resolve(r.in, p)
			continue
		}
		if r.invalid[i] == "" {
			r.specs[i], r.invalid[i] = r.family.prepare(r, int32(i))
		}
		if r.invalid[i] != "" {
			continue
		}
		r.leaves[i] = r.specs[i].Leaves()
		r.noValue[i] = setsNoValue(r.leaves[i])
		r.accepted[i] = resolve(r.in, p)
		for _, o := range r.accepted[i] {
			if o.ok {
				r.attached[o.node] = append(r.attached[o.node], int32(i))
			}
		}
	}
}

func (r *run) nodeType(id topology.NodeID) profile.NodeType {
	n := &r.in.Graph.Nodes[id]
	return profile.NodeType{Group: n.Ref.Group, Kind: n.Ref.Kind, Section: n.Ref.Section != ""}
}

// walk visits every path of the hierarchy from its roots (GEP-713: "For each
// path of target objects in the DAG").
func (r *run) walk() {
	r.prefixes = append(r.prefixes, prefix{parent: -1, node: -1})
	r.states = append(r.states, state{winner: -1})
	for _, root := range r.in.Graph.Roots() {
		r.visit(root, 0)
	}
}

func (r *run) visit(id topology.NodeID, pre int32) {
	key := [2]int32{int32(id), pre}
	if r.visited[key] {
		return // same object reached again with the same projected prefix
	}
	r.visited[key] = true
	g := r.in.Graph
	t := r.nodeType(id)
	if r.levels[t] && pre == 0 && r.hasLevelAncestor(id) {
		// Paths run over the kinds that matter to the policy kind: a node
		// with an ancestor of such a kind starts no path of its own (e.g. a
		// Gateway under a Namespace, for a kind that targets Namespaces,
		// is not reached again from its GatewayClass).
		return
	}
	if r.levels[t] {
		// (id, pre) is visited once, so each new prefix is met once.
		r.prefixes = append(r.prefixes, prefix{parent: pre, node: id})
		r.states = append(r.states, r.push(r.states[pre], id))
		pre = int32(len(r.prefixes) - 1)
		if r.effType[t] && !r.hasEffectiveChild(id) {
			s := &r.states[pre]
			if s.stack != nil {
				r.paths = append(r.paths, emitted{prefix: pre, spec: r.final(s, id), stack: s.stack, winner: s.winner})
			}
		}
	}
	for _, c := range g.Nodes[id].Children {
		r.visit(c, pre)
	}
}

// hasLevelAncestor reports whether a node of a kind in levels lies above id.
func (r *run) hasLevelAncestor(id topology.NodeID) bool {
	if r.ancestor == nil {
		r.ancestor = map[topology.NodeID]bool{}
	}
	if v, ok := r.ancestor[id]; ok {
		return v
	}
	found := false
	for _, p := range r.in.Graph.Nodes[id].Parents {
		if r.levels[r.nodeType(p)] || r.hasLevelAncestor(p) {
			found = true
			break
		}
	}
	r.ancestor[id] = found
	return found
}

// hasEffectiveChild reports whether a more specific effective target lies
// directly beneath id (e.g. a named port beneath a Service), in which case
// the path goes on to it.
func (r *run) hasEffectiveChild(id topology.NodeID) bool {
	for _, c := range r.in.Graph.Nodes[id].Children {
		if r.effType[r.nodeType(c)] {
			return true
		}
	}
	return false
}

// push stacks the policies attached to node beneath the prefix state s, in
// the order of conflict resolution rules 2 and 3 (the established first).
func (r *run) push(s state, node topology.NodeID) state {
	if r.in.Mutant == MutantLowerEstablished {
		return r.pushReversed(s, node)
	}
	for _, i := range r.attached[node] {
		s = r.pushOne(s, i, node)
	}
	return s
}

// pushOne stacks policy i, attached at node, beneath s.
func (r *run) pushOne(s state, i int32, node topology.NodeID) state {
	s.stack = &onPath{origin: i, node: node, prev: s.stack}
	return r.family.push(r, s, i, node)
}

// combine merges a challenger into the established result with the
// established strategy (GEP-713: "the spec assigned as established MUST
// dictate the merge strategy").
func (r *run) combine(established *tree.Node, st profile.Strategy, challenger *tree.Node) *tree.Node {
	if established == nil {
		return challenger
	}
	switch st {
	case profile.AtomicDefaults: // f(established, challenger) → challenger
		return challenger
	case profile.AtomicOverrides: // f(established, challenger) → established
		return established
	case profile.PatchDefaults: // rfc7386(target = established, patch = challenger)
		return r.mergePatch(established, challenger)
	case profile.PatchOverrides: // rfc7386(target = challenger, patch = established)
		return r.mergePatch(challenger, established)
	}
	return challenger
}

// final returns the effective spec of a prefix.
func (r *run) final(s *state, leaf topology.NodeID) *tree.Node {
	return r.family.final(r, s, leaf)
}

// setsNoValue says whether a spec proper, by its leaves, sets no value:
// only empty objects and nulls ("defaults: {}", a merge patch of nulls).
func setsNoValue(leaves []tree.Leaf) bool {
	for _, l := range leaves {
		if l.Value.IsObject() || l.Value.Value == nil {
			continue
		}
		return false
	}
	return true
}
