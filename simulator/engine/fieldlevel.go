package engine

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/gepcheck/gepcheck/simulator/topology"
	"github.com/gepcheck/gepcheck/simulator/tree"
)

// Field-level merging of GEP-2649 ("Inherited Policy design guidelines",
// "Merging into existing spec fields", "Hierarchy"), for profiles with a
// fieldLevel section:
//
//   - per field, A override > B override > C override > the object's own
//     value > C default > B default > A default;
//   - between two policies at the same level, for defaults and overrides
//     alike, "first created wins, otherwise first alphabetically" (the
//     RetryOnPolicy tables);
//   - scalar values and lists are leaves, replaced whole; so are the objects
//     of atomicFields (map[string]string); listMapType lists are merged
//     entry by entry, by key.
//
// Specs are held internally as trees in which a listMapType list is an object
// keyed by the entries' keys, so that each entry's fields are fields like any
// other; toJSON turns them back into lists.

// fieldTree builds the internal tree of a spec (or an object's own fields)
// with origin o. Unset values (null; and for an object's own fields also "",
// [] and {}) are left out: a default "will only ever replace an empty or
// unset value".
func (r *run) fieldTree(v map[string]any, o tree.Origin, own bool) *tree.Node {
	if v == nil {
		return nil
	}
	return r.fieldNode(v, "", o, own)
}

func (r *run) fieldNode(v any, path string, o tree.Origin, own bool) *tree.Node {
	fl := r.in.Profile.Spec.FieldLevel
	if path != "" && slices.Contains(fl.AtomicFields, path) {
		return &tree.Node{Value: v, Origin: o}
	}
	if key, ok := fl.ListMapKeys[path]; ok && path != "" {
		if list, isList := v.([]any); isList {
			n := &tree.Node{Fields: map[string]*tree.Node{}, Origin: o}
			for _, e := range list {
				m, isMap := e.(map[string]any)
				k, hasKey := m[key].(string)
				if !isMap || !hasKey {
					continue // not an entry of the list map
				}
				// The key names the entry; it is not a field of its own.
				entry := make(map[string]any, len(m))
				for f, v := range m {
					if f != key {
						entry[f] = v
					}
				}
				n.Fields[k] = r.fieldNode(entry, path, o, own)
			}
			return n
		}
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		return &tree.Node{Value: v, Origin: o}
	}
	n := &tree.Node{Fields: map[string]*tree.Node{}, Origin: o}
	for k, c := range m {
		if c == nil || own && empty(c) {
			continue
		}
		n.Fields[k] = r.fieldNode(c, join(path, k), o, own)
	}
	return n
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func empty(v any) bool {
	switch x := v.(type) {
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return v == nil
}

// firstWins merges b under a: every field a sets wins; fields only b sets
// are kept.
func firstWins(a, b *tree.Node) *tree.Node {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case !a.IsObject() || !b.IsObject():
		return a
	}
	out := &tree.Node{Fields: make(map[string]*tree.Node, len(a.Fields)+len(b.Fields)), Origin: a.Origin}
	for k, v := range b.Fields {
		out.Fields[k] = v
	}
	for k, v := range a.Fields {
		out.Fields[k] = firstWins(v, out.Fields[k])
	}
	return out
}

// fieldLevel reduces the stack of a path ending at leaf.
func (r *run) fieldLevel(s *state, leaf topology.NodeID) *tree.Node {
	stack := established(s.stack)
	var overrides, defaults *tree.Node
	if r.in.Mutant == MutantOverridesAsDefaults {
		// Overrides read as defaults: the most specific wins.
		for k := len(stack) - 1; k >= 0; k-- {
			defaults = firstWins(defaults, r.fovr[stack[k].origin])
		}
	} else {
		// Overrides: the least specific wins, so established first.
		for _, e := range stack {
			overrides = firstWins(overrides, r.fovr[e.origin])
		}
	}
	// Defaults: the most specific level wins; within a level the
	// established (first created, then first by name) wins.
	for end := len(stack); end > 0; {
		start := end - 1
		for start > 0 && stack[start-1].node == stack[end-1].node {
			start--
		}
		for _, e := range stack[start:end] {
			defaults = firstWins(defaults, r.fdef[e.origin])
		}
		end = start
	}
	return firstWins(firstWins(overrides, r.own(leaf)), defaults)
}

// own returns the internal tree of the fields the object at node sets
// itself, with an origin naming the object.
func (r *run) own(node topology.NodeID) *tree.Node {
	ref := r.in.Graph.Nodes[node].Ref.Object().String()
	fields, ok := r.in.OwnFields[ref]
	if !ok {
		return nil
	}
	if r.ownOrigin == nil {
		r.ownOrigin = map[string]tree.Origin{}
	}
	o, ok := r.ownOrigin[ref]
	if !ok {
		o = tree.Origin(len(r.refs))
		r.refs = append(r.refs, ref)
		r.ownOrigin[ref] = o
	}
	return r.fieldTree(fields, o, true)
}

// renderPath writes a field path for provenance: dotted, with listMapType
// entries as field[key=value].
func (r *run) renderPath(path []string) string {
	fl := r.in.Profile.Spec.FieldLevel
	if fl == nil || len(fl.ListMapKeys) == 0 {
		return tree.FieldPath(path)
	}
	var b strings.Builder
	plain := ""
	for i := 0; i < len(path); i++ {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tree.FieldPath(path[i : i+1]))
		plain = join(plain, path[i])
		if key, ok := fl.ListMapKeys[plain]; ok && i+1 < len(path) {
			i++
			b.WriteString("[" + key + "=" + path[i] + "]")
		}
	}
	return b.String()
}

// toJSON turns an internal tree back into JSON: listMapType objects become
// lists again, in the order the object itself lists its entries, then by
// key.
func (r *run) toJSON(n *tree.Node, leaf topology.NodeID) any {
	fl := r.in.Profile.Spec.FieldLevel
	if fl == nil {
		return n.JSON()
	}
	ownFields := r.in.OwnFields[r.in.Graph.Nodes[leaf].Ref.Object().String()]
	var conv func(n *tree.Node, path string, own any, entry bool) any
	conv = func(n *tree.Node, path string, own any, entry bool) any {
		if n == nil {
			return nil
		}
		if !n.IsObject() {
			return n.Value
		}
		if key, ok := fl.ListMapKeys[path]; ok && path != "" && !entry {
			order := map[string]int{}
			if list, isList := own.([]any); isList {
				for i, e := range list {
					if m, isMap := e.(map[string]any); isMap {
						if k, hasKey := m[key].(string); hasKey {
							order[k] = i + 1
						}
					}
				}
			}
			keys := slices.Sorted(maps.Keys(n.Fields))
			sort.SliceStable(keys, func(a, b int) bool {
				oa, ob := order[keys[a]], order[keys[b]]
				if (oa > 0) != (ob > 0) {
					return oa > 0
				}
				return oa < ob
			})
			list := make([]any, 0, len(keys))
			for _, k := range keys {
				entry, _ := conv(n.Fields[k], path, nil, true).(map[string]any)
				if entry == nil {
					entry = map[string]any{}
				}
				entry[key] = k
				list = append(list, entry)
			}
			return list
		}
		out := map[string]any{}
		ownMap, _ := own.(map[string]any)
		for k, c := range n.Fields {
			out[k] = conv(c, join(path, k), ownMap[k], false)
		}
		return out
	}
	return conv(n, "", map[string]any(ownFields), false)
}
