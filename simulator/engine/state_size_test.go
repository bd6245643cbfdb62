package engine

import (
	"testing"
	"unsafe"
)

// TestStateSize keeps the reduction state at 48 bytes on 64-bit
// platforms: the walk keeps one per distinct path prefix (docs/performance.md,
// "Why it is fast enough"), so each 8 bytes more cost about 8.5 MB per
// operation of BenchmarkRun. Adding accBy while accStrategy was an int did
// exactly that (docs/performance.md, "Before and after Gateway API v1.6's
// hierarchy, both status vocabularies and stored values, as a whole").
func TestStateSize(t *testing.T) {
	if got := unsafe.Sizeof(state{}); got > 48 {
		t.Errorf("engine state is %d bytes, want at most 48: order and narrow its fields (one is kept per path prefix)", got)
	}
}
