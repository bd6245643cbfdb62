package engine

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/google/cel-go/cel"

	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/topology"
	"github.com/gepcheck/gepcheck/simulator/tree"
)

// Kuadrant semantics, after the reference-level flowcharts of the Kuadrant
// RFC "Defaults & Overrides":
//
//	Apply policies of a kind for an object: sort the policies that affect
//	it from lowest to highest, start from an effective policy without any
//	rules, and merge each policy into it.
//	Merging two policies together: the defaults block, then the overrides
//	block; bare rules as defaults.
//	Merging a block with conditions: only when B.when(p) holds, self being
//	the lower policy p.
//	Merge a defaults block: remove the rules listed in p.unset; if p is
//	empty, p.rules ← B; else atomic: p unchanged; merge: add each rule p
//	does not have.
//	Merge an overrides block: atomic: p.rules ← B; merge: p[r.id] ← r.
//
// Rules are atomic objects identified by set and name (rules.authentication.a,
// limits.x).

// kuadrantEP is an effective policy under construction.
type kuadrantEP struct {
	rules map[string]*tree.Node  // by rule id
	unset map[string]tree.Origin // rule names and ids, by the policy unsetting them
	// removed records defaults left out because a lower policy unset them.
	removed map[string]tree.Origin
	// owner is the policy whose set of rules the effective policy last took
	// whole: the one that beats an absent rule.
	owner tree.Origin
}

// compileWhen compiles the when conditions of every policy's blocks and
// returns why a policy is invalid, if it is: "a CEL error makes the policy
// Invalid with the error in its message".
func (r *run) compileWhen(i int32) string {
	for _, b := range r.policies[i].Intent.Blocks {
		if b.When == "" {
			continue
		}
		if _, err := r.celProgram(b.When); err != nil {
			field := whenField(b.Overrides)
			var le *LimitError
			if errors.As(err, &le) {
				le.Policy, le.Field = r.refs[i], field
				r.limitErrors[i] = le
				return le.Error()
			}
			expr := b.When
			if len(expr) > 200 {
				expr = expr[:200] + "…"
			}
			return fmt.Sprintf("%s %q is not a valid CEL expression: %v", field, expr, err)
		}
	}
	return ""
}

func (r *run) celProgram(expr string) (cel.Program, error) {
	if p, ok := r.cel[expr]; ok {
		return p, nil
	}
	if r.celEnv == nil {
		env, err := celEnvironment()
		if err != nil {
			return nil, err
		}
		r.celEnv = env
		r.cel = map[string]cel.Program{}
	}
	ast, iss := r.celEnv.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return nil, iss.Err()
	}
	if ast.OutputType() != cel.BoolType && ast.OutputType() != cel.DynType {
		return nil, fmt.Errorf("evaluates to %s, not a bool", ast.OutputType())
	}
	lim := r.in.CEL.OrDefault()
	if err := estimate(r.celEnv, ast, lim); err != nil {
		return nil, &LimitError{Limit: "--max-cel-cost", Msg: err.Error()}
	}
	prg, err := r.celEnv.Program(ast, cel.CostLimit(lim.MaxCost), cel.InterruptCheckFrequency(100))
	if err != nil {
		return nil, err
	}
	r.cel[expr] = prg
	return prg, nil
}

// whenField is the field path of a block's condition.
func whenField(overrides bool) string {
	if overrides {
		return "spec.overrides.when"
	}
	return "spec.defaults.when"
}

// when evaluates a block's condition of policy i on the lower policy. An
// evaluation error (e.g. a field the lower policy does not have) counts as
// "conditions do not match"; a limit hit is recorded, and Run computes the
// result again with the policy Invalid.
func (r *run) when(i int32, b profile.Block, ep *kuadrantEP) bool {
	if b.When == "" || r.in.Mutant == MutantWhenIgnored {
		return true
	}
	prg, err := r.celProgram(b.When)
	if err != nil {
		return false
	}
	ok, le, err := evaluate(prg, ep.tree().JSON(), r.in.CEL.OrDefault())
	if le != nil && r.limitErrors[i] == nil {
		le.Policy, le.Field = r.refs[i], whenField(b.Overrides)
		r.limitErrors[i] = le
	}
	return err == nil && ok
}

// kuadrant reduces the stack of a path.
func (r *run) kuadrant(s *state, _ topology.NodeID) *tree.Node {
	stack := established(s.stack)
	ep := &kuadrantEP{rules: map[string]*tree.Node{}, unset: map[string]tree.Origin{}, removed: map[string]tree.Origin{}, owner: tree.NoOrigin}
	// "Sort P from lowest to highest": the reverse of the established-first
	// order of GEP-713's conflict resolution.
	for k := len(stack) - 1; k >= 0; k-- {
		i := stack[k].origin
		in := r.policies[i].Intent
		for _, b := range in.Blocks {
			if !r.when(i, b, ep) {
				continue
			}
			rules := r.kRules[i][b.Overrides]
			merge := b.Merge && r.in.Mutant != MutantMergeAsAtomic || r.in.Mutant == MutantAtomicAsPatch
			if b.Overrides && r.in.Mutant == MutantUnsetOverrides {
				rules = withoutUnset(rules, ep)
			}
			if b.Overrides && r.in.Mutant != MutantOverridesAsDefaults {
				if !merge {
					ep.rules = map[string]*tree.Node{}
					ep.owner = tree.Origin(i)
				}
				for id, n := range rules {
					ep.rules[id] = n
				}
				continue
			}
			// Defaults: remove the rules the lower policies unset.
			kept := withoutUnset(rules, ep)
			switch {
			case len(ep.rules) == 0:
				ep.rules = kept
				ep.owner = tree.Origin(i)
			case merge:
				for id, n := range kept {
					if _, exists := ep.rules[id]; !exists {
						ep.rules[id] = n
					}
				}
			}
		}
		for _, u := range in.Unset {
			if _, ok := ep.unset[u]; !ok {
				ep.unset[u] = tree.Origin(i)
			}
		}
	}
	return ep.tree()
}

// withoutUnset drops the rules named in the unset lists merged so far.
func withoutUnset(rules map[string]*tree.Node, ep *kuadrantEP) map[string]*tree.Node {
	kept := map[string]*tree.Node{}
	for id, n := range rules {
		o, byID := ep.unset[id]
		if !byID {
			o, byID = ep.unset[ruleName(id)]
		}
		if byID {
			ep.removed[id] = o
			continue
		}
		kept[id] = n
	}
	return kept
}

func ruleName(id string) string { return id[strings.LastIndexByte(id, '.')+1:] }

// tree renders the effective policy as a spec: rule sets as objects, rules
// as atomic leaves.
func (ep *kuadrantEP) tree() *tree.Node {
	root := &tree.Node{Fields: map[string]*tree.Node{}, Origin: ep.owner}
	parent := func(id string) (*tree.Node, string) {
		parts := strings.Split(id, ".")
		cur := root
		for _, p := range parts[:len(parts)-1] {
			next := cur.Fields[p]
			if next == nil {
				next = &tree.Node{Fields: map[string]*tree.Node{}, Origin: ep.owner}
				cur.Fields[p] = next
			}
			cur = next
		}
		return cur, parts[len(parts)-1]
	}
	for _, id := range slices.Sorted(maps.Keys(ep.rules)) {
		p, name := parent(id)
		p.Fields[name] = ep.rules[id]
	}
	// A default a lower policy unset is absent because of that policy:
	// mark it where the path to it leaves the tree.
	for _, id := range slices.Sorted(maps.Keys(ep.removed)) {
		if _, present := ep.rules[id]; present {
			continue
		}
		cur := root
		for _, k := range strings.Split(id, ".") {
			next, ok := cur.Fields[k]
			if !ok {
				if cur.Deleted == nil {
					cur.Deleted = map[string]tree.Origin{}
				}
				cur.Deleted[k] = ep.removed[id]
				break
			}
			cur = next
		}
	}
	return root
}

// kuadrantTitle names policy i's blocks: "defaults (atomic) + overrides
// (merge, when)".
func (r *run) kuadrantTitle(i int32) string {
	var parts []string
	for _, b := range r.policies[i].Intent.Blocks {
		kind, how := "defaults", "atomic"
		if b.Overrides {
			kind = "overrides"
		}
		if b.Merge {
			how = "merge"
		}
		if b.When != "" {
			how += ", when"
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", kind, how))
	}
	return strings.Join(parts, " + ")
}

// kuadrantRules prepares the rules of policy i as atomic leaves with origin
// i, per block kind (false: defaults, true: overrides), and the tree of all
// its rules for status.
func (r *run) kuadrantRules(i int32) *tree.Node {
	byKind := map[bool]map[string]*tree.Node{false: {}, true: {}}
	all := &kuadrantEP{rules: map[string]*tree.Node{}, owner: tree.Origin(i)}
	for _, b := range r.policies[i].Intent.Blocks {
		for id, rule := range b.Rules {
			n := &tree.Node{Value: rule, Origin: tree.Origin(i)}
			byKind[b.Overrides][id] = n
			all.rules[id] = n
		}
	}
	r.kRules[i] = byKind
	t := all.tree()
	t.Origin = tree.Origin(i)
	return t
}

// Status of Kuadrant policies and targets, with the reasons and messages of
// the RFC's tables ("Possible statuses of an inherited policy"; "Policy
// discoverability and Effective policy").

const ReasonPartiallyAffected = "PartiallyAffected"

// kuadrantEnforced is the outcome of a Kuadrant policy with the RFC's
// message; the run's vocabulary words the condition (vocabulary.go).
func (r *run) kuadrantEnforced(t *tally, scope string) (outcome, string) {
	switch {
	case t.full == t.paths || r.in.Mutant == MutantAlwaysEnforced:
		return outcomeFull, "Policy has been successfully enforced" + paths(t, scope)
	case t.zero == t.paths:
		return outcomeOverridden, "Policy has been overridden by " + r.beatersOf(t) + paths(t, scope)
	}
	// "The following rules have been overridden by <policy>: a, b"
	byPolicy := map[string][]string{}
	for k := range t.beaten {
		by := r.ref(k.by())
		byPolicy[by] = append(byPolicy[by], r.field(t.policy, k.leaf()))
	}
	var parts []string
	for _, by := range slices.Sorted(maps.Keys(byPolicy)) {
		rules := byPolicy[by]
		sort.Strings(rules)
		parts = append(parts, fmt.Sprintf("%s: %s", by, strings.Join(dedupe(rules), ", ")))
	}
	return outcomePartial, "Policy has been successfully enforced. The following rules have been overridden by " + strings.Join(parts, "; ") + paths(t, scope)
}

func paths(t *tally, scope string) string {
	return fmt.Sprintf(" (in full on %d of %s%s)", t.full, count(t.paths), scope)
}

func dedupe(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// kuadrantAffected is the <Kind>Affected condition of node: Affected, or
// PartiallyAffected naming the sections that are affected when only some of
// the object's effective sections (e.g. route rules) are.
func (r *run) kuadrantAffected(n topology.NodeID, by []string, affected map[topology.NodeID]map[int32]bool) Condition {
	kind := r.in.Profile.Spec.Policy.Kind
	c := Condition{Type: r.in.Profile.AffectedCondition(), Status: "True", Reason: ReasonAffected,
		Message: fmt.Sprintf("The object is affected by %s %s", kind, strings.Join(by, ", "))}
	var sections, hit []string
	for _, ch := range r.in.Graph.Nodes[n].Children {
		if r.effType[r.nodeType(ch)] && r.in.Graph.Nodes[ch].Ref.Section != "" {
			sections = append(sections, r.in.Graph.Nodes[ch].Ref.Section)
			if len(affected[ch]) > 0 {
				hit = append(hit, r.in.Graph.Nodes[ch].Ref.Section)
			}
		}
	}
	if len(hit) > 0 && len(hit) < len(sections) {
		c.Reason = ReasonPartiallyAffected
		c.Message = fmt.Sprintf("The following sections of the object are affected by %s %s: %s", kind, strings.Join(by, ", "), strings.Join(hit, ", "))
	}
	return c
}
