// Package jsonmap reads values decoded from JSON or YAML into any (an
// unstructured object's content): each function gives the zero value when
// v is not of its type, so that a path through a document reads as one
// expression.
package jsonmap

// Map is v as a JSON object, or nil.
func Map(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// List is v as a JSON array, or nil.
func List(v any) []any {
	l, _ := v.([]any)
	return l
}

// String is v as a JSON string, or "".
func String(v any) string {
	s, _ := v.(string)
	return s
}

// Clone deep-copies v: its objects and arrays are copied, every other
// value is kept as it is. Unlike apimachinery's runtime.DeepCopyJSONValue
// it accepts values not decoded from JSON (an int a caller wrote).
func Clone[T any](v T) T {
	out, _ := clone(v).(T)
	return out
}

func clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = clone(e)
		}
		return m
	case []any:
		if x == nil {
			return x
		}
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = clone(e)
		}
		return l
	}
	return v
}
