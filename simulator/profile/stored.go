package profile

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/internal/jsonmap"
	"github.com/gepcheck/gepcheck/simulator/crd"
)

// StoredChanges records what storing a spec changed (Profile.StoreRecord):
// the fields the schema's defaults set and the nulls the API server
// pruned, each as the keys leading to it from the spec (Kubernetes,
// "Defaulting and Nullable"). Interpret carries them on the Intent in the
// coordinates of the spec proper, so that the engine can say which
// effective fields are a CRD default rather than what a policy author
// wrote, and the simulator can warn when that changes an answer.
type StoredChanges struct {
	// Defaulted are the fields set by a default, sorted by their dotted
	// path; a default of an object value sets every field beneath it.
	Defaulted [][]string
	// Pruned are the fields whose null was pruned, sorted. A null inside
	// a list is pruned too but not recorded: lists are atomic in RFC 7386,
	// so no such null ever deleted anything.
	Pruned [][]string
}

// Empty reports whether storing changed nothing.
func (c *StoredChanges) Empty() bool {
	return c == nil || len(c.Defaulted) == 0 && len(c.Pruned) == 0
}

// IsDefault reports whether the field at path, or an object holding it,
// was set by a default.
func (c *StoredChanges) IsDefault(path []string) bool {
	if c == nil {
		return false
	}
	for _, d := range c.Defaulted {
		if len(d) <= len(path) && slices.Equal(d, path[:len(d)]) {
			return true
		}
	}
	return false
}

// Store returns spec as an API server stores it (Spec.Stored): a copy with
// nulls pruned from objects and the schema's defaults set. Without
// Spec.Stored it returns spec itself.
func (p *Profile) Store(spec map[string]any) map[string]any {
	out, _ := p.StoreRecord(spec)
	return out
}

// StoreRecord is Store, and what storing changed: nil when it changed
// nothing (always without a CRD or Spec.Stored).
func (p *Profile) StoreRecord(spec map[string]any) (map[string]any, *StoredChanges) {
	_, out, ch := p.storeRecord(spec)
	return out, ch
}

// storeRecord is StoreRecord, and the spec as written: with a CRD, its
// unknown fields pruned (they never reach the controller; the simulator
// warns of each).
func (p *Profile) storeRecord(spec map[string]any) (written, stored map[string]any, changes *StoredChanges) {
	if p.CRD != nil && spec != nil {
		s := p.CRD.Preferred()
		obj := map[string]any{
			"apiVersion": s.Group + "/" + s.Version, "kind": s.Kind,
			"metadata": map[string]any{"name": "policy", "namespace": "default"},
			"spec":     spec,
		}
		return StoredFromCRD(s.Store(context.Background(), obj))
	}
	out, ch := p.storeSpec(spec)
	return spec, out, ch
}

// StoredFromCRD reads what storing a policy object with its CRD did
// (crd.Schema.Store) as specs: the spec as written (unknown fields
// pruned), as stored, and what storing changed in it beyond the unknown
// fields (nil: nothing).
func StoredFromCRD(r crd.Result) (written, stored map[string]any, changes *StoredChanges) {
	written, _ = r.Known["spec"].(map[string]any)
	stored, _ = r.Object["spec"].(map[string]any)
	var ch StoredChanges
	under := func(paths [][]string) [][]string {
		var out [][]string
		for _, p := range paths {
			if len(p) > 1 && p[0] == "spec" {
				out = append(out, p[1:])
			}
		}
		return out
	}
	ch.Defaulted, ch.Pruned = under(r.Defaulted), under(r.PrunedNulls)
	if ch.Empty() {
		return written, stored, nil
	}
	return written, stored, &ch
}

// storeSpec stores spec by Spec.Stored.
func (p *Profile) storeSpec(spec map[string]any) (map[string]any, *StoredChanges) {
	st := p.Spec.Stored
	if st == nil || spec == nil {
		return spec, nil
	}
	out := jsonmap.Clone(spec)
	var ch StoredChanges
	if st.PruneNulls {
		pruneRecord(out, nil, &ch.Pruned)
	}
	// Shorter fields first: a default inside a defaulted object applies
	// too, as the API server's defaulting walks into values it has set.
	fields := slices.SortedFunc(maps.Keys(st.Defaults), func(a, b string) int {
		if d := strings.Count(a, ".") - strings.Count(b, "."); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	for _, f := range fields {
		path := strings.Split(f, ".")
		if setDefault(out, path, st.Defaults[f]) && !ch.IsDefault(path) {
			ch.Defaulted = append(ch.Defaulted, path)
		}
	}
	if ch.Empty() {
		return out, nil
	}
	byPath := func(a, b []string) int { return slices.Compare(a, b) }
	slices.SortFunc(ch.Defaulted, byPath)
	slices.SortFunc(ch.Pruned, byPath)
	return out, &ch
}

// PruneNulls deletes null values from the objects of v, lists' objects
// included, in place.
func PruneNulls(v any) {
	pruneRecord(v, nil, nil)
}

// pruneRecord is PruneNulls; with into, it appends the path of every null
// pruned from an object that no list holds.
func pruneRecord(v any, at []string, into *[][]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if x == nil {
				delete(v, k)
				if into != nil {
					*into = append(*into, append(slices.Clip(at), k))
				}
				continue
			}
			pruneRecord(x, append(slices.Clip(at), k), into)
		}
	case []any:
		for _, x := range v {
			pruneRecord(x, nil, nil)
		}
	}
}

// setDefault sets path to a copy of value where the field is missing (or
// null: a null field with a default is defaulted, not pruned) and its
// parent object is present. It reports whether it set it.
func setDefault(m map[string]any, path []string, value any) bool {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			return false
		}
		m = next
	}
	last := path[len(path)-1]
	if v, ok := m[last]; !ok || v == nil {
		m[last] = jsonmap.Clone(value)
		return true
	}
	return false
}
