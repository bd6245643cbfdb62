package traefik

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gepcheck/gepcheck/internal/gotool"
)

// TestTraefikBuildsFromScratch prepares the wrapper module in a new
// directory and builds traefik and its configuration reader there
// (minutes; make ci builds them once into the cache instead). Run with
// GEPCHECK_TRAEFIK_BUILD=1.
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
	dir := t.TempDir()
	if out, err := gotool.Command(ctx, src, "build", "-o", dir+string(filepath.Separator), Module+"/cmd/traefik", "./reader").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	bin := filepath.Join(dir, "traefik")
	out, err := gotool.Command(ctx, "", "version", "-m", bin).CombinedOutput()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", out[:min(len(out), 400)])
}
