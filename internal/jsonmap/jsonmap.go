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
