package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gepcheck/gepcheck/simulator/profile"
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
	// specific: the policies on more specific targets that apply where
	// this one does not (None, noneConflicts Target)
	specific map[int32]bool
	beaten   map[beatKey]*beatGroup
	// summaries, computed once for the target and the aggregate conditions
	superseded, beaters string
}

// sum adds t, the tally of the n-th accepted target, into total.
func (total *tally) sum(t *tally, n int) {
	switch n {
	case 1:
		*total = *t // the common case: one target, nothing to add up
	case 2:
		first := *total // shares t's maps: add into a fresh tally
		*total = tally{policy: first.policy}
		total.add(&first)
		total.add(t)
	default:
		total.add(t)
	}
}

// with adds k to set, made when nil.
func with(set map[int32]bool, k int32) map[int32]bool {
	if set == nil {
		set = map[int32]bool{}
	}
	set[k] = true
	return set
}

// noneBeaten records in dec, when asked for, that every field of policy o
// is not in effect on e's paths: e's winner's spec is taken whole (None).
func (r *run) noneBeaten(dec *Decisions, o int32, e emitted) {
	if dec == nil {
		return
	}
	for li, l := range r.leaves[o] {
		found, _ := e.spec.Lookup(l.Path)
		dec.Beaten = append(dec.Beaten, FieldBeat{Policy: r.refs[o], Field: r.field(o, int32(li)), By: r.ref(e.winner), Removed: found == nil})
	}
}

// beatKey is one field (by its index among the policy's leaves, high 32
// bits) and the policy that beat it (low 32 bits).
type beatKey uint64

func newBeatKey(leaf, by int32) beatKey {
	return beatKey(uint64(uint32(leaf))<<32 | uint64(uint32(by)))
}
func (k beatKey) leaf() int32 { return int32(uint32(k >> 32)) }
func (k beatKey) by() int32   { return int32(uint32(k)) }

// beatGroup counts the paths where a field lost to one policy, keeping the
// first few as examples.
type beatGroup struct {
	paths    int
	examples []int32 // prefixes
}

const maxExamples = 3

// beat records that field k.leaf lost to k.by on the paths of prefixes,
// keeping every path when all is set and a few examples otherwise.
func (t *tally) beat(k beatKey, prefixes []int32, all bool) {
	if t.beaten == nil {
		t.beaten = map[beatKey]*beatGroup{}
	}
	g := t.beaten[k]
	if g == nil {
		g = &beatGroup{}
		t.beaten[k] = g
	}
	g.paths += len(prefixes)
	room := len(prefixes)
	if !all {
		room = min(room, maxExamples-len(g.examples))
	}
	if room > 0 {
		g.examples = append(g.examples, prefixes[:room]...)
	}
}

// add accumulates u into t.
func (t *tally) add(u *tally) {
	t.paths += u.paths
	t.full += u.full
	t.zero += u.zero
	t.lost += u.lost
	for w := range u.winners {
		t.winners = with(t.winners, w)
	}
	for w := range u.specific {
		t.specific = with(t.specific, w)
	}
	for k, g := range u.beaten {
		t.beat(k, g.examples, true)
		t.beaten[k].paths += g.paths - len(g.examples)
	}
}

type attachKey struct {
	origin int32
	node   topology.NodeID
}

// pathGroup is paths that share their effective spec and their stack (they
// differ only below the last policy): result evaluates each group once.
type pathGroup struct {
	e        emitted
	prefixes []int32
}

// pathGroups groups r.paths by effective spec and stack, in order of first
// appearance.
func (r *run) pathGroups() []*pathGroup {
	type groupKey struct {
		spec  *tree.Node
		stack *onPath
	}
	var groups []*pathGroup
	byKey := map[groupKey]*pathGroup{}
	for _, e := range r.paths {
		k := groupKey{e.spec, e.stack}
		g := byKey[k]
		if g == nil {
			g = &pathGroup{e: e}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.prefixes = append(g.prefixes, e.prefix)
	}
	return groups
}

// affectedBy holds, for each target, the policies that affect it.
type affectedBy map[topology.NodeID]map[int32]bool

func (a affectedBy) add(n topology.NodeID, origin int32) {
	if a[n] == nil {
		a[n] = map[int32]bool{}
	}
	a[n][origin] = true
}

// results is what result gathers over the path groups.
type results struct {
	res        Result
	tallies    map[attachKey]*tally
	affected   affectedBy
	provCache  map[*tree.Node]map[string]string
	pathPrefix []int32 // the prefix of each effective policy
}

// tally returns the tally of a policy's attachment, made when new.
func (out *results) tally(s *onPath) *tally {
	k := attachKey{s.origin, s.node}
	t := out.tallies[k]
	if t == nil {
		t = &tally{policy: s.origin}
		out.tallies[k] = t
	}
	return t
}

func (r *run) result() Result {
	out := &results{
		res:       Result{PolicyKind: r.in.Profile.Spec.Policy.Kind},
		tallies:   map[attachKey]*tally{},
		affected:  affectedBy{},
		provCache: map[*tree.Node]map[string]string{},
	}
	out.res.EffectivePolicies = make([]EffectivePolicy, 0, len(r.paths))
	for _, g := range r.pathGroups() {
		r.groupResult(out, g)
	}
	res := out.res
	r.sortByPath(res.EffectivePolicies, out.pathPrefix)
	for i := range r.policies {
		res.Policies = append(res.Policies, r.policyStatus(int32(i), out.tallies))
	}
	sort.Slice(res.Policies, func(a, b int) bool { return res.Policies[a].Ref < res.Policies[b].Ref })
	res.Targets = r.targetStatuses(out.affected)
	return res
}

// provenance maps each field of an effective spec to the policy that set
// it, computed once per spec.
func (r *run) provenance(spec *tree.Node, cache map[*tree.Node]map[string]string) map[string]string {
	prov := cache[spec]
	if prov == nil {
		prov = map[string]string{}
		for _, l := range spec.Leaves() {
			if len(l.Path) == 0 {
				continue // an empty spec has no fields to trace
			}
			prov[r.renderPath(l.Path)] = r.ref(int32(l.Value.Origin))
		}
		cache[spec] = prov
	}
	return prov
}

// groupResult adds a path group's effective policies to out, and tallies
// what became of each policy stacked on its paths.
func (r *run) groupResult(out *results, g *pathGroup) {
	e := g.e
	n := len(g.prefixes)
	stack := established(e.stack)
	refs := make([]string, len(stack))
	for i, s := range stack {
		refs[i] = r.refs[s.origin]
	}
	spec := r.toJSON(e.spec, r.prefixes[g.prefixes[0]].node)
	prov := r.provenance(e.spec, out.provCache)
	first := len(out.res.EffectivePolicies)
	for _, pre := range g.prefixes {
		out.pathPrefix = append(out.pathPrefix, pre)
		out.res.EffectivePolicies = append(out.res.EffectivePolicies, EffectivePolicy{
			PolicyKind: out.res.PolicyKind,
			Path:       r.pathStrings(pre),
			Spec:       spec,
			Provenance: prov,
			// Fields whose value a CRD default set (stored.go).
			StoredDefaults: r.storedDefaults(e.spec),
			Policies:       refs,
		})
	}
	var dec *Decisions // the record of the group's paths, when asked
	if r.in.Decisions {
		dec = &Decisions{Won: r.won(e.spec, stack), Beaten: []FieldBeat{}}
	}
	patched := r.patched(stack)
	own := ownEstablished(stack)
	for _, s := range stack {
		t := out.tally(s)
		t.paths += n
		var contributes bool
		if r.none {
			contributes = r.tallyNone(t, s, e, dec, own, n)
		} else {
			contributes = r.tallyFields(t, s, g, dec, patched)
		}
		if contributes {
			out.affected.add(s.node, s.origin)
			for _, pre := range g.prefixes {
				out.affected.add(r.prefixes[pre].node, s.origin)
			}
		}
	}
	if dec != nil {
		for i := first; i < len(out.res.EffectivePolicies); i++ {
			out.res.EffectivePolicies[i].Decisions = dec
		}
	}
}

// patched reports whether a stack merged specs (Patch): an empty object
// survives another's object only there; under Atomic strategies the beaten
// spec is gone "in its entirety" (GEP-713, Merge strategy: Atomic
// defaults).
func (r *run) patched(stack []*onPath) bool {
	patched := false
	for _, s := range stack {
		if st := r.strategy(s.origin); st == profile.PatchDefaults || st == profile.PatchOverrides {
			patched = true
		}
	}
	return patched
}

// ownEstablished maps each target on a path to its established policy, the
// first in precedence order attached there (NoneConflicts Target).
func ownEstablished(stack []*onPath) map[topology.NodeID]int32 {
	own := map[topology.NodeID]int32{}
	for _, s := range stack {
		if w, ok := own[s.node]; !ok || s.origin < w {
			own[s.node] = s.origin
		}
	}
	return own
}

// tallyNone tallies a policy of a kind that implements None on the n paths
// of emitted e, and reports whether it is in effect there.
func (r *run) tallyNone(t *tally, s *onPath, e emitted, dec *Decisions, own map[topology.NodeID]int32, n int) bool {
	if r.byTarget && r.in.Mutant != MutantTargetConflictsOnPath {
		// NoneConflicts Target: a policy loses to the established policy
		// of its own target (Conflicted); the established one of a less
		// specific target is not in effect where one on a more specific
		// target applies, and conflicts with nothing.
		switch own := own[s.node]; {
		case s.origin != own:
			t.lost += n
			t.zero += n
			t.winners = with(t.winners, own)
			r.noneBeaten(dec, s.origin, e)
			return false
		case s.origin != e.winner:
			t.zero += n
			t.specific = with(t.specific, e.winner)
			r.noneBeaten(dec, s.origin, e)
			return false
		}
	} else if s.origin != e.winner && r.in.Mutant != MutantNoneAcceptsAll {
		t.lost += n
		t.zero += n
		t.winners = with(t.winners, e.winner)
		r.noneBeaten(dec, s.origin, e)
		return false
	}
	t.full += n
	return true
}

// tallyFields tallies, field by field, a policy of a kind that merges on
// the paths of group g, and reports whether it contributes to them.
func (r *run) tallyFields(t *tally, s *onPath, g *pathGroup, dec *Decisions, patched bool) bool {
	n := len(g.prefixes)
	kept := 0
	for li, l := range r.leaves[s.origin] {
		found, because := g.e.spec.Lookup(l.Path)
		if survived(l, found, because, s.origin, patched) {
			kept++
			continue
		}
		by := because
		if found != nil {
			by = found.Origin
		}
		t.beat(newBeatKey(int32(li), int32(by)), g.prefixes, s.origin == r.detail)
		if dec != nil {
			dec.Beaten = append(dec.Beaten, FieldBeat{Policy: r.refs[s.origin], Field: r.field(s.origin, int32(li)), By: r.ref(int32(by)), Removed: found == nil})
		}
	}
	switch {
	case kept == len(r.leaves[s.origin]):
		t.full += n
	case kept == 0:
		t.zero += n
	}
	return kept > 0 || len(r.leaves[s.origin]) == 0 || r.in.Mutant == MutantAffectedByAll
}

// targetStatuses writes the <Kind>Affected condition of every affected
// target, in order of its ref.
func (r *run) targetStatuses(affected affectedBy) []TargetStatus {
	var out []TargetStatus
	cond := r.in.Profile.AffectedCondition()
	for n, set := range affected {
		ts := TargetStatus{Ref: r.in.Graph.Nodes[n].Ref.String()}
		for o := range set {
			ts.AffectedBy = append(ts.AffectedBy, r.refs[o])
		}
		sort.Strings(ts.AffectedBy)
		c, ok := r.family.affected(r, n, ts.AffectedBy, affected)
		if !ok {
			c = Condition{Type: cond, Status: "True", Reason: ReasonAffected, Message: "Affected by " + strings.Join(ts.AffectedBy, ", ")}
		}
		ts.Conditions = []Condition{c}
		out = append(out, ts)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Ref < out[b].Ref })
	return out
}

// won records who set each field of spec, on a path whose stack is
// stack (established first, least specific first), and by which rule
// (reducer.step).
func (r *run) won(spec *tree.Node, stack []*onPath) []FieldWin {
	// Where each policy is attached on the path: a policy may be stacked
	// at two elements (an object and its section, a GatewayClass and a
	// Gateway); the family's rule says which attachment decided.
	least, most := map[int32]string{}, map[int32]string{}
	for _, s := range stack {
		at := r.in.Graph.Nodes[s.node].Ref.String()
		if _, ok := least[s.origin]; !ok {
			least[s.origin] = at
		}
		most[s.origin] = at
	}
	out := []FieldWin{}
	for _, l := range spec.Leaves() {
		if len(l.Path) == 0 {
			continue
		}
		o := int32(l.Value.Origin)
		w := FieldWin{Field: r.renderPath(l.Path), By: r.ref(o)}
		w.StoredDefault = r.hasStored && r.in.Mutant != MutantStoredDefaultUnnamed && o >= 0 && int(o) < len(r.policies) && r.policies[o].Intent.Stored.IsDefault(l.Path)
		w.At, w.Step = r.family.step(r, o, l.Path, least[o], most[o])
		out = append(out, w)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Field < out[b].Field })
	return out
}

// sortByPath orders effective policies by path, element by element, as
// slices.Compare on the rendered paths would: a preorder walk of the prefix
// trie with children in order of their rendered node.
func (r *run) sortByPath(eps []EffectivePolicy, prefixOf []int32) {
	children := make([][]int32, len(r.prefixes))
	for i := 1; i < len(r.prefixes); i++ {
		p := r.prefixes[i].parent
		children[p] = append(children[p], int32(i))
	}
	at := make([]int32, len(r.prefixes)) // effective policy index + 1
	for i, pre := range prefixOf {
		at[pre] = int32(i) + 1
	}
	sorted := make([]EffectivePolicy, 0, len(eps))
	stack := []int32{0}
	for len(stack) > 0 {
		pre := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if at[pre] > 0 {
			sorted = append(sorted, eps[at[pre]-1])
		}
		cs := children[pre]
		sort.Slice(cs, func(a, b int) bool {
			return r.nodeName(r.prefixes[cs[a]].node) > r.nodeName(r.prefixes[cs[b]].node)
		})
		stack = append(stack, cs...) // reverse order: the smallest is popped first
	}
	copy(eps, sorted)
}

func (r *run) nodeName(n topology.NodeID) string {
	if r.nodeStr == nil {
		r.nodeStr = make([]string, len(r.in.Graph.Nodes))
	}
	if r.nodeStr[n] == "" {
		r.nodeStr[n] = r.in.Graph.Nodes[n].Ref.String()
	}
	return r.nodeStr[n]
}

// survived reports whether a field of policy origin made it into the
// effective spec: the value found there is the policy's own, or the policy's
// null removed it, or (patched: specs on the path were merged) the policy's
// empty object was merged with another's object.
func survived(l tree.Leaf, found *tree.Node, because tree.Origin, origin int32, patched bool) bool {
	if found != nil {
		if found.Origin == tree.Origin(origin) {
			return true
		}
		return patched && l.Value.IsObject() && found.IsObject()
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
	}
	if p := r.pathCache[pre]; p != nil || pre == 0 {
		return p
	}
	parent := r.pathStrings(r.prefixes[pre].parent)
	p := make([]string, len(parent)+1)
	copy(p, parent)
	p[len(parent)] = r.nodeName(r.prefixes[pre].node)
	r.pathCache[pre] = p
	return p
}

// invalidCondition is the Accepted condition of invalid policy i, with
// the reason its interpretation gave, if any.
func (r *run) invalidCondition(i int32) Condition {
	reason := ReasonInvalid
	if ir := r.policies[i].Intent.InvalidReason; ir != "" && r.policies[i].Intent.Invalid == r.invalid[i] {
		reason = ir
	}
	return Condition{Type: TypeAccepted, Status: "False", Reason: reason, Message: r.invalid[i]}
}

// conflictedStatus writes the status of policy i, rejected as a whole:
// GEP-713, Merge strategy None: "All challenger specs (policy resources)
// MUST be rejected", read as the whole resource.
func (r *run) conflictedStatus(ps *PolicyStatus, i int32, msg string) {
	for _, o := range r.accepted[i] {
		reason, m := ReasonConflicted, msg
		if !o.ok {
			reason, m = o.reason, o.msg
		}
		ps.Targets = append(ps.Targets, PolicyTarget{Ref: o.ref.String(), Conditions: []Condition{{Type: TypeAccepted, Status: "False", Reason: reason, Message: m}}})
	}
	ps.Conditions = []Condition{{Type: TypeAccepted, Status: "False", Reason: ReasonConflicted, Message: msg}}
}

func (r *run) policyStatus(i int32, tallies map[attachKey]*tally) PolicyStatus {
	ps := PolicyStatus{Ref: r.refs[i], Targets: []PolicyTarget{}}
	if r.invalid[i] != "" {
		ps.Conditions = []Condition{r.invalidCondition(i)}
		return ps
	}
	ps.Strategy = r.strategyTitle(i)
	if msg := r.conflicted[i]; msg != "" {
		r.conflictedStatus(&ps, i, msg)
		return ps
	}
	total := tally{policy: i}
	var problems []string
	accepted, conflicted := 0, 0
	reasons := map[string]bool{}
	reported := map[string]bool{}
	for _, o := range r.accepted[i] {
		pt := PolicyTarget{Ref: o.ref.String()}
		if !o.ok {
			// Gateway API PolicyStatus.Ancestors: one entry per ancestor,
			// also for two targetRefs naming one missing target.
			if reported[pt.Ref] {
				continue
			}
			reported[pt.Ref] = true
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
			r.enforced(ps.Strategy, t, pt.Ref),
		}
		ps.Targets = append(ps.Targets, pt)
		total.sum(t, accepted)
	}
	switch {
	case accepted > 0:
		msg := "Policy has been accepted"
		if len(problems) > 0 {
			msg += "; " + strings.Join(problems, "; ")
		}
		ps.Conditions = []Condition{
			{Type: TypeAccepted, Status: "True", Reason: ReasonAccepted, Message: msg},
			r.enforced(ps.Strategy, &total, ""),
		}
	case conflicted > 0:
		ps.Conditions = []Condition{{Type: TypeAccepted, Status: "False", Reason: ReasonConflicted, Message: strings.Join(problems, "; ")}}
	default:
		reason := ReasonTargetNotFound
		for _, rs := range []string{ReasonInvalid, ReasonTargetNotFound} {
			if reasons[rs] {
				reason = rs
				break
			}
		}
		msg := strings.Join(problems, "; ")
		if len(r.policies[i].TargetRefs) == 0 {
			// Only label-selector targets, and they select nothing
			// (profile.TargetSelectors).
			msg = "no target: the policy's target selectors select no object"
		}
		ps.Conditions = []Condition{{Type: TypeAccepted, Status: "False", Reason: reason, Message: msg}}
	}
	ps.Paths = total.paths - total.zero
	for k, g := range total.beaten {
		b := Beaten{Field: r.field(i, k.leaf()), By: r.ref(k.by()), Paths: g.paths}
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

// strategyTitle names how policy i merges, by its spec's names.
func (r *run) strategyTitle(i int32) string { return r.family.title(r, i) }

const noneRule = "the established policy (oldest, then first by {namespace}/{name}) wins (GEP-713, Merge strategy: None)"

// enforced derives the condition that says how much of an accepted policy
// is in effect from a tally, in the run's status vocabulary (GEP-713 as
// merged, "Status reporting": Programmed, PartiallyProgrammed, Overridden;
// its 2025 draft, "Policy status": Enforced, PartiallyEnforced,
// Overridden). The outcome and the message are the same in both; the
// wording (vocabulary.go) names them.
func (r *run) enforced(strategy string, t *tally, target string) Condition {
	o, msg := r.outcome(strategy, t, target)
	c := r.words.condition(o, msg)
	switch {
	case o == outcomeUnreached:
		c.Undefined = UndefinedUnreached
	case r.noValue[t.policy]:
		c.Undefined = UndefinedNoValue
		c.Message += "; " + UndefinedNoValue
	}
	return c
}

// outcome is what became of policy t.policy on t's paths, and the message
// that says so, naming the policies that superseded which fields (merged
// GEP-713, PolicyReasonPartiallyProgrammed: "The status message SHOULD
// include details highlighting which parts of the policy/scope are
// reconciled and which parts have been superseded, with the references to
// all other related policies"; PolicyReasonOverridden: "The status message
// SHOULD include the references to the other related policies").
func (r *run) outcome(strategy string, t *tally, target string) (outcome, string) {
	scope := ""
	if target != "" {
		scope = " through " + target
	}
	if t.paths == 0 {
		return outcomeUnreached, fmt.Sprintf("no path%s reaches an effective target (%s)", scope, r.effectiveKinds())
	}
	if o, msg, ok := r.family.enforced(r, t, scope); ok {
		return o, msg
	}
	verb := r.words.verb
	switch {
	case t.full == t.paths || r.in.Mutant == MutantAlwaysEnforced:
		return outcomeFull, fmt.Sprintf("%s: %s on %s%s", strategy, verb, count(t.paths), scope)
	case t.zero == t.paths && len(t.specific) > 0:
		return outcomeOverridden, fmt.Sprintf("%s: on %s%s %s on a more specific target applies instead", strategy, count(t.paths), scope, r.names(t.specific))
	case t.zero == t.paths:
		return outcomeOverridden, fmt.Sprintf("%s: overridden on %s%s by %s", strategy, count(t.paths), scope, r.beatersOf(t))
	case len(t.specific) > 0:
		return outcomePartial, fmt.Sprintf("%s: fully %s on %d of %s%s; elsewhere %s on a more specific target applies", strategy, verb, t.full, count(t.paths), scope, r.names(t.specific))
	}
	return outcomePartial, fmt.Sprintf("%s: fully %s on %d of %s%s; superseded: %s", strategy, verb, t.full, count(t.paths), scope, r.supersededOf(t))
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

func (r *run) beatersOf(t *tally) string {
	if t.beaters == "" {
		t.beaters = r.beaters(t)
	}
	return t.beaters
}

func (r *run) supersededOf(t *tally) string {
	if t.superseded == "" {
		t.superseded = r.superseded(t)
	}
	return t.superseded
}

// beaters names the policies that beat the fields in t.
func (r *run) beaters(t *tally) string {
	set := map[int32]bool{}
	for w := range t.winners {
		set[w] = true
	}
	for k := range t.beaten {
		set[k.by()] = true
	}
	return r.names(set)
}

// maxNamed bounds the policies a message names beyond its first fields:
// a condition's message holds at most 32,768 bytes (Gateway API,
// metav1.Condition), and explain --policy lists every one.
const maxNamed = 32

// someBeaters names the policies that beat fields in t, the first
// maxNamed by name and a count of the rest.
func (r *run) someBeaters(t *tally) string {
	set := map[int32]bool{}
	for w := range t.winners {
		set[w] = true
	}
	for k := range t.beaten {
		set[k.by()] = true
	}
	var names []string
	for o := range set {
		names = append(names, r.ref(o))
	}
	sort.Strings(names)
	if len(names) > maxNamed {
		return fmt.Sprintf("%s and %d more (explain --policy lists them)", strings.Join(names[:maxNamed], ", "), len(names)-maxNamed)
	}
	return strings.Join(names, ", ")
}

// field renders the dotted path of leaf j of policy i.
func (r *run) field(i, j int32) string {
	if r.fields[i] == nil {
		r.fields[i] = make([]string, len(r.leaves[i]))
		for k, l := range r.leaves[i] {
			r.fields[i][k] = r.renderPath(l.Path)
		}
	}
	return r.fields[i][j]
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
		n[fb{r.field(t.policy, k.leaf()), k.by()}] += g.paths
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
			// The fields left out are not named, their policies are:
			// "with the references to all other related policies".
			parts = append(parts, fmt.Sprintf("and %d more; the policies that superseded a field: %s", len(keys)-i, r.someBeaters(t)))
			break
		}
		parts = append(parts, fmt.Sprintf("%s by %s on %s", k.field, r.ref(k.by), count(n[k])))
	}
	return strings.Join(parts, ", ")
}
