// Package tree holds policy specs as immutable JSON trees whose every node
// remembers the policy that set it (its origin), and implements JSON Merge
// Patch (RFC 7386) on them so that effective policies keep their provenance.
//
// Trees are never modified after construction: merges share unchanged
// subtrees, which lets the engine reuse the work done for a path prefix.
package tree

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Origin identifies the policy that set a value. The engine assigns origins;
// NoOrigin marks values of unknown provenance.
type Origin int32

// NoOrigin is the origin of values not set by any policy.
const NoOrigin Origin = -1

// Node is one value of a JSON document: an object (Fields != nil) or a leaf
// holding any other JSON value (string, number, bool, null or list; lists are
// atomic in RFC 7386).
type Node struct {
	Fields map[string]*Node
	// Deleted records keys that a merge patch removed (null in the patch),
	// with the origin of the patch, so that provenance can say who removed
	// a field.
	Deleted map[string]Origin
	Value   any
	Origin  Origin
}

// IsObject reports whether n is a JSON object.
func (n *Node) IsObject() bool { return n != nil && n.Fields != nil }

// From converts a decoded JSON value (map[string]any, []any, string,
// float64/int64/json.Number, bool, nil) into a tree whose every node has
// origin o.
func From(v any, o Origin) *Node {
	if m, ok := v.(map[string]any); ok {
		n := &Node{Fields: make(map[string]*Node, len(m)), Origin: o}
		for k, c := range m {
			n.Fields[k] = From(c, o)
		}
		return n
	}
	return &Node{Value: v, Origin: o}
}

// JSON converts n back into a plain JSON value. A nil tree is nil.
func (n *Node) JSON() any {
	if n == nil {
		return nil
	}
	if n.Fields == nil {
		return n.Value
	}
	m := make(map[string]any, len(n.Fields))
	for k, c := range n.Fields {
		m[k] = c.JSON()
	}
	return m
}

// MergePatch applies patch to target as RFC 7386 section 2 defines:
//
//	define MergePatch(Target, Patch):
//	  if Patch is an Object:
//	    if Target is not an Object:
//	      Target = {} # Ignore the contents and set it to an empty Object
//	    for each Name/Value pair in Patch:
//	      if Value is null:
//	        if Name exists in Target:
//	          remove the Name/Value pair from Target
//	      else:
//	        Target[Name] = MergePatch(Target[Name], Value)
//	    return Target
//	  else:
//	    return Patch
//
// A nil target is absent. Neither argument is modified; the result shares
// unchanged subtrees with them. Nodes keep their origins: a value taken from
// the patch keeps the patch's origin, and an object created because the target
// was not one takes the patch object's origin.
func MergePatch(target, patch *Node) *Node {
	if patch == nil {
		return target
	}
	if !patch.IsObject() {
		return patch
	}
	if !target.IsObject() {
		target = &Node{Fields: map[string]*Node{}, Origin: patch.Origin}
	}
	out := &Node{
		Fields:  make(map[string]*Node, len(target.Fields)+len(patch.Fields)),
		Deleted: target.Deleted,
		Origin:  target.Origin,
	}
	for k, v := range target.Fields {
		out.Fields[k] = v
	}
	copied := false
	for k, v := range patch.Fields {
		if !v.IsObject() && v.Value == nil {
			if _, ok := out.Fields[k]; ok {
				delete(out.Fields, k)
			}
			if !copied {
				out.Deleted = make(map[string]Origin, len(target.Deleted)+1)
				for dk, dv := range target.Deleted {
					out.Deleted[dk] = dv
				}
				copied = true
			}
			out.Deleted[k] = v.Origin
			continue
		}
		out.Fields[k] = MergePatch(out.Fields[k], v)
	}
	return out
}

// Leaf is one field path of a tree, written as the dotted path of its keys.
type Leaf struct {
	Path  []string
	Value *Node
}

// Leaves lists every leaf of n (non-object values, and empty objects) in a
// stable order of their dotted paths. The root of a non-object tree is the
// leaf with an empty path.
func (n *Node) Leaves() []Leaf {
	var out []Leaf
	var walk func(p []string, n *Node)
	walk = func(p []string, n *Node) {
		if !n.IsObject() || len(n.Fields) == 0 {
			out = append(out, Leaf{Path: append([]string(nil), p...), Value: n})
			return
		}
		for _, k := range slices.Sorted(maps.Keys(n.Fields)) {
			walk(append(p, k), n.Fields[k])
		}
	}
	if n != nil {
		walk(nil, n)
	}
	return out
}

// Lookup follows path from n. It returns the node found, or, when the path
// leaves the tree, the origin responsible for its absence: the origin of a
// merge patch that deleted the key, else the origin of the deepest node
// reached (the policy whose value replaced or established that part of the
// spec).
func (n *Node) Lookup(path []string) (found *Node, absentBecause Origin) {
	if n == nil {
		return nil, NoOrigin
	}
	cur := n
	for _, k := range path {
		if !cur.IsObject() {
			return nil, cur.Origin
		}
		next, ok := cur.Fields[k]
		if !ok {
			if o, deleted := cur.Deleted[k]; deleted {
				return nil, o
			}
			return nil, cur.Origin
		}
		cur = next
	}
	return cur, NoOrigin
}

// FieldPath renders a list of keys as a dotted field path. Keys that are
// empty or contain '.', '[', ']' or '"' are written as ["key"].
func FieldPath(path []string) string {
	var b strings.Builder
	for i, k := range path {
		if k == "" || strings.ContainsAny(k, ".[]\"") {
			b.WriteString("[")
			b.WriteString(strconv.Quote(k))
			b.WriteString("]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(k)
	}
	return b.String()
}

// Equal reports whether a and b hold the same JSON value, ignoring origins.
func Equal(a, b *Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.IsObject() != b.IsObject() {
		return false
	}
	if a.IsObject() {
		if len(a.Fields) != len(b.Fields) {
			return false
		}
		for k, av := range a.Fields {
			bv, ok := b.Fields[k]
			if !ok || !Equal(av, bv) {
				return false
			}
		}
		return true
	}
	return JSONEqual(a.Value, b.Value)
}

// JSONEqual compares two decoded JSON values by their canonical encoding.
func JSONEqual(a, b any) bool {
	ab, err1 := json.Marshal(a)
	bb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ab, bb)
}
