package scenarios

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/admission"
	"github.com/gepcheck/gepcheck/simulator"
)

// TestCheckFiles: files are checked in order, each reported as it is
// checked; a cancelled context (a signal) stops before the next file.
func TestCheckFiles(t *testing.T) {
	files := []string{"gep-713/abstract-process.yaml", "gep-713/atomic-default-above-patch-override-gep713.yaml"}
	var seen []string
	res, err := CheckFiles(context.Background(), files, simulator.Options{}, admission.Bounds{MaxCELCost: admission.DefaultMaxCELCost}, func(f string, diffs []string) {
		seen = append(seen, f)
	})
	if err != nil || !slices.Equal(seen, files) || res.Passed != 2 || len(res.Files) != 2 {
		t.Fatalf("CheckFiles: %+v, %v, each saw %v; want both passed, in order", res, err, seen)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	seen = nil
	_, err = CheckFiles(ctx, files, simulator.Options{}, admission.Bounds{}, func(f string, _ []string) { seen = append(seen, f) })
	if err == nil || !strings.HasPrefix(err.Error(), "stopped: ") || len(seen) != 0 {
		t.Fatalf("CheckFiles, cancelled: %v, saw %v; want stopped before the first file", err, seen)
	}
}
