package traefik

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gepcheck/gepcheck/internal/gotool"
)

// TestTraefikBuildsFromScratch prepares the wrapper module in a new
// directory and builds traefik there (minutes; make ci builds it once into
// the cache instead). Run with GEPCHECK_TRAEFIK_BUILD=1.
func TestTraefikBuildsFromScratch(t *testing.T) {
	if os.Getenv("GEPCHECK_TRAEFIK_BUILD") == "" {
		t.Skip("set GEPCHECK_TRAEFIK_BUILD=1")
	}
	ctx := context.Background()
	src := t.TempDir()
	if err := prepare(ctx, Version, src); err != nil {
		t.Fatal(err)
	}
	if out, err := gotool.Command(ctx, src, "mod", "tidy").CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	bin := filepath.Join(t.TempDir(), "traefik")
	if out, err := gotool.Command(ctx, src, "build", "-o", bin, Module+"/cmd/traefik").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := gotool.Command(ctx, "", "version", "-m", bin).CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", out[:min(len(out), 400)])
}
