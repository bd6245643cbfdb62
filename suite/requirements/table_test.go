package requirements

import (
	"strings"
	"testing"
)

func TestTruncate(t *testing.T) {
	if got := truncate(strings.Repeat("é", 81), 80); got != strings.Repeat("é", 80)+"…" {
		t.Errorf("truncate: %q", got)
	}
	if got := truncate("short", 80); got != "short" {
		t.Errorf("truncate: %q", got)
	}
}

// Pick keeps the IDs given in their order (case-insensitive), then the
// spec's, then the open ones; an unknown ID is an error.
func TestPick(t *testing.T) {
	all := []Requirement{{ID: "A-001", Spec: "a", Untestable: "design"}, {ID: "B-001", Spec: "b"}, {ID: "A-002", Spec: "a", Pending: "#1"}}
	in, shown, err := Pick(all, []string{"a-002", "B-001", "A-001"}, "a", true)
	if err != nil || len(in) != 2 || in[0].ID != "A-002" || in[1].ID != "A-001" || len(shown) != 1 || shown[0].ID != "A-002" {
		t.Errorf("Pick = %v, %v, %v", in, shown, err)
	}
	if _, _, err := Pick(all, []string{"C-001"}, "", false); err == nil {
		t.Error("Pick of an unknown ID: no error")
	}
}
