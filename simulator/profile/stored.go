package profile

import (
	"maps"
	"slices"
	"strings"
)

// Store returns spec as an API server stores it (Spec.Stored): a copy with
// nulls pruned from objects and the schema's defaults set. Without
// Spec.Stored it returns spec itself.
func (p *Profile) Store(spec map[string]any) map[string]any {
	st := p.Spec.Stored
	if st == nil || spec == nil {
		return spec
	}
	out := copyJSON(spec).(map[string]any)
	if st.PruneNulls {
		PruneNulls(out)
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
		setDefault(out, strings.Split(f, "."), st.Defaults[f])
	}
	return out
}

// PruneNulls deletes null values from the objects of v, lists' objects
// included, in place.
func PruneNulls(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if x == nil {
				delete(v, k)
				continue
			}
			PruneNulls(x)
		}
	case []any:
		for _, x := range v {
			PruneNulls(x)
		}
	}
}

// setDefault sets path to a copy of value where the field is missing (or
// null: a null field with a default is defaulted, not pruned) and its
// parent object is present.
func setDefault(m map[string]any, path []string, value any) {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			return
		}
		m = next
	}
	last := path[len(path)-1]
	if v, ok := m[last]; !ok || v == nil {
		m[last] = copyJSON(value)
	}
}

// copyJSON copies a JSON value.
func copyJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = copyJSON(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = copyJSON(x)
		}
		return out
	}
	return v
}
