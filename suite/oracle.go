package suite

import (
	"sort"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/tree"
)

// The oracles below recompute, from a scenario's own data, what the engine
// must output. They share no code with the engine's reduction; they take
// target resolution from the engine's per-target status (resolution has its
// own tests and scenarios).

// policies indexes the engine input's policies by ref.
func policies(m *simulator.Model) map[string]*engine.Policy {
	out := map[string]*engine.Policy{}
	for _, k := range m.Kinds {
		for i := range k.Policies {
			out[k.Policies[i].Ref.String()] = &k.Policies[i]
		}
	}
	return out
}

// acceptedTargets lists, per policy, the refs of the targets it was
// accepted on.
func acceptedTargets(res engine.Result) map[string][]string {
	return targetsWhere(res, func(c engine.Condition) bool { return c.Status == "True" })
}

// resolvedTargets lists, per policy, the refs of the targets it resolved
// to: accepted ones, and those where it lost under None (Conflicted), which
// are still stacked on their paths.
func resolvedTargets(res engine.Result) map[string][]string {
	return targetsWhere(res, func(c engine.Condition) bool {
		return c.Status == "True" || c.Reason == engine.ReasonConflicted
	})
}

func targetsWhere(res engine.Result, ok func(engine.Condition) bool) map[string][]string {
	out := map[string][]string{}
	for _, p := range res.Policies {
		for _, t := range p.Targets {
			for _, c := range t.Conditions {
				if c.Type == engine.TypeAccepted && ok(c) {
					out[p.Ref] = append(out[p.Ref], t.Ref)
				}
			}
		}
	}
	return out
}

// olderFirst orders policies at one level: GEP-713 Conflict resolution rule
// 2 (older first; no timestamp counts as newest, docs/semantics.md), then
// rule 3 ({namespace}/{name}).
func olderFirst(a, b *engine.Policy) bool {
	at, bt := a.CreationTimestamp, b.CreationTimestamp
	switch {
	case at != nil && bt == nil:
		return true
	case at == nil && bt != nil:
		return false
	case at != nil && !at.Equal(*bt):
		return at.Before(*bt)
	}
	return a.Ref.Namespace+"/"+a.Ref.Name < b.Ref.Namespace+"/"+b.Ref.Name
}

type stacked struct {
	ref   string
	level int
	p     *engine.Policy
}

// expectedStack orders the policies attached along path, established first:
// rule 1 (higher on the path first), then rules 2 and 3.
func expectedStack(path []string, pols map[string]*engine.Policy, targets map[string][]string) []stacked {
	var out []stacked
	for ref, ts := range targets {
		for _, t := range ts {
			for i, el := range path {
				if el == t {
					out = append(out, stacked{ref: ref, level: i, p: pols[ref]})
				}
			}
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if out[a].level != out[b].level {
			return out[a].level < out[b].level
		}
		return olderFirst(out[a].p, out[b].p)
	})
	return out
}

func refs(s []stacked) []string {
	out := make([]string, len(s))
	for i, e := range s {
		out[i] = e.ref
	}
	return out
}

// leafFields lists the dotted fields of a spec proper, and whether it has a
// field whose contribution provenance cannot show (a null, which deletes, or
// an empty object, which merges into nothing).
func leafFields(spec map[string]any) (fields []string, opaque bool) {
	for _, l := range tree.From(spec, 0).Leaves() {
		if len(l.Path) == 0 {
			continue // the empty spec
		}
		if l.Value.IsObject() || l.Value.Value == nil {
			opaque = true
		}
		fields = append(fields, tree.FieldPath(l.Path))
	}
	return fields, opaque
}
