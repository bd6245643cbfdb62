package outpath

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestElem(t *testing.T) {
	for _, ok := range []string{"envoy-gateway", "v1.9.1", "offline", "cluster-local", "v0.0.0-20251101120000-abcdef012345", "1.2.3+build", "gepcheck_reference", "a"} {
		if err := Elem(ok); err != nil {
			t.Errorf("Elem(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "../x", "../../x", "a/b", `a\b`, "a..b", "-a", "a-", ".hidden", "/abs", "a b", "a\x1b[31m", "a\nb", strings.Repeat("a", MaxElem+1), "é"} {
		if err := Elem(bad); err == nil {
			t.Errorf("Elem(%q) = nil, want an error", bad)
		}
	}
}

// TestJoinStaysUnder: whatever the elements, a joined path is under root
// or an error.
func TestJoinStaysUnder(t *testing.T) {
	root := "out"
	for _, e := range []string{"../../x", "x/../../y", "..", "ok"} {
		p, err := Join(root, Named{"implementation.name", e}, Named{"mode", "offline"})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "implementation.name ") {
				t.Errorf("Join(%q): error %q does not name the field", e, err)
			}
			continue
		}
		if rel, err := filepath.Rel(root, p); err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("Join(%q) = %s, outside %s", e, p, root)
		}
	}
}
