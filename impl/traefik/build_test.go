package traefik

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/internal/gotool"
)

// TestTraefikBuildsFromScratch prepares the wrapper module in a new
// directory and builds traefik and its configuration reader there, with
// Build's flags, and checks the result as gepcheck tools checks its cached
// build (Check). Minutes (docs/contour-and-traefik.md); make ci checks the
// cached build instead (gepcheck tools). Run with GEPCHECK_TRAEFIK_BUILD=1.
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
	ld := "-X " + Module + "/pkg/version.Version=" + Version
	if out, err := gotool.Command(ctx, src, "build", "-ldflags", ld, "-o", dir+string(filepath.Separator), Module+"/cmd/traefik", "./reader").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	bin := filepath.Join(dir, "traefik")
	if err := os.Rename(filepath.Join(dir, "reader"), ReaderPath(bin)); err != nil {
		t.Fatal(err)
	}
	if err := Check(bin, Version); err != nil {
		t.Error(err)
	}
}

// Check, which gepcheck tools (make ci) runs on the cached traefik, fails
// on planted faults: a path that does not exist, a Go binary that is not
// traefik, traefik without its configuration reader; and passes on the
// cached build, when there is one.
func TestCheck(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "traefik")
	if err := Check(missing, Version); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing path: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(self, Version); err == nil || !strings.Contains(err.Error(), "not "+Module+"/cmd/traefik") {
		t.Errorf("the test binary: %v", err)
	}
	bin, _ := Tool(Version).Path()
	if _, err := os.Stat(ReaderPath(bin)); err != nil {
		t.Skipf("traefik %s is not built (make tools): the cached build not checked", Version)
	}
	if err := Check(bin, Version); err != nil {
		t.Errorf("the cached build: %v", err)
	}
	if err := Check(bin, "v3.7.12"); err == nil || !strings.Contains(err.Error(), "not "+Module+"/cmd/traefik of v3.7.12") {
		t.Errorf("the cached build as another version: %v", err)
	}
	alone := filepath.Join(t.TempDir(), "traefik")
	if err := os.Symlink(bin, alone); err != nil {
		t.Fatal(err)
	}
	if err := Check(alone, Version); err == nil || !strings.Contains(err.Error(), "no configuration reader") {
		t.Errorf("traefik without its reader: %v", err)
	}
}
