package load

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// DefaultMaxDepth is the default most levels of nesting in a document
// (--max-depth): Gateway API objects and policies nest about 10 deep. The
// YAML parser stops at 10,000 levels on its own; past this limit gepcheck
// refuses the document before any other work on it, since merging and
// rendering walk every level.
const DefaultMaxDepth = 100

// overDepth returns the field path at which v nests more than max levels
// of mappings and sequences (the document itself is level 1), or false
// when it does not. The walk keeps its own stack, so a deep document cannot
// exhaust the goroutine's; keys are visited in order only once v is known
// to be too deep, so that the path named is always the same.
func overDepth(v any, max int) (string, bool) {
	if !walkDepth(v, max, false, nil) {
		return "", false
	}
	var path string
	walkDepth(v, max, true, &path)
	return path, true
}

// walkDepth reports whether v is deeper than max; with sorted, it visits
// keys in order and sets *path to the first field too deep.
func walkDepth(v any, max int, sorted bool, path *string) bool {
	type frame struct {
		v     any
		path  string
		depth int
	}
	stack := []frame{{v, "", 1}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := f.v.(type) {
		case map[string]any:
			if f.depth > max {
				if path != nil {
					*path = f.path
				}
				return true
			}
			if !sorted {
				for _, c := range x {
					stack = append(stack, frame{v: c, depth: f.depth + 1})
				}
				continue
			}
			keys := slices.Sorted(maps.Keys(x))
			for _, k := range slices.Backward(keys) {
				stack = append(stack, frame{x[k], joinPath(f.path, k), f.depth + 1})
			}
		case []any:
			if f.depth > max {
				if path != nil {
					*path = f.path
				}
				return true
			}
			for i := len(x) - 1; i >= 0; i-- {
				p := ""
				if sorted {
					p = f.path + "[" + strconv.Itoa(i) + "]"
				}
				stack = append(stack, frame{x[i], p, f.depth + 1})
			}
		}
	}
	return false
}

// depthError reports a document v nested deeper than max at path, naming
// the object when its kind and name can be read.
func depthError(src Source, v any, path string, max int) *Error {
	if len(path) > 200 {
		path = path[:200] + "…"
	}
	e := &Error{Source: src, Field: path, Msg: fmt.Sprintf("nested more than %d levels deep (the limit; --max-depth raises it)", max)}
	if m, ok := v.(map[string]any); ok {
		kind, _ := m["kind"].(string)
		meta, _ := m["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		ns, _ := meta["namespace"].(string)
		if kind != "" && name != "" {
			e.Object = objectName(kind, ns, name)
		}
	}
	return e
}
