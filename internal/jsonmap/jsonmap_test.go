package jsonmap

import (
	"reflect"
	"testing"
)

// A clone shares no object or array with its original, keeps every leaf,
// accepts a Go int, and keeps nil nil.
func TestClone(t *testing.T) {
	orig := map[string]any{"a": []any{map[string]any{"b": 1.0}, "s"}, "n": 2, "z": nil}
	c := Clone(orig)
	if !reflect.DeepEqual(c, orig) {
		t.Fatalf("Clone = %v, want %v", c, orig)
	}
	List(c["a"])[0].(map[string]any)["b"] = 3.0
	c["n"] = 4
	if Map(List(orig["a"])[0])["b"] != 1.0 || orig["n"] != 2 {
		t.Errorf("changing the clone changed the original: %v", orig)
	}
	if Clone(map[string]any(nil)) != nil || Clone[any](nil) != nil {
		t.Error("Clone of nil is not nil")
	}
}
