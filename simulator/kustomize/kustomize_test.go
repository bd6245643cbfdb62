package kustomize

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/internal/realtest"
)

// kustomizations are the folders rendered by the tests: kustomize's
// default legacy order with a generator, labels and a component;
// sortOptions fifo; a resource outside the root (refused); and the
// example of docs/input.md.
var kustomizations = []string{"testdata/legacy-order", "testdata/fifo", "testdata/outside-root", "../../docs/examples/kustomize/overlays/prod"}

// TestRealKubectlKustomize: Build renders each folder byte for byte as
// the pinned kubectl (gepcheck tools builds it) does with kubectl
// kustomize DIR, and fails where kubectl fails.
func TestRealKubectlKustomize(t *testing.T) {
	kubectl, err := gotool.Kubectl.Path()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(kubectl); err != nil {
		realtest.Missing(t, "kubectl %s is not built (make tools builds it)", gotool.Kubectl.Version)
		return
	}
	for _, dir := range kustomizations {
		var stderr bytes.Buffer
		cmd := exec.Command(kubectl, "kustomize", dir)
		cmd.Stderr = &stderr
		want, kerr := cmd.Output()
		got, err := Build(dir, 1<<20)
		switch {
		case kerr != nil && err == nil:
			t.Errorf("%s: kubectl kustomize fails (%s), Build does not", dir, strings.TrimSpace(stderr.String()))
		case kerr == nil && err != nil:
			t.Errorf("%s: Build fails (%v), kubectl kustomize does not", dir, err)
		case err == nil && !bytes.Equal(got, want):
			t.Errorf("%s: Build gives\n%s\nkubectl kustomize gives\n%s", dir, got, want)
		}
	}
}

// TestBuild: what Build gives without kubectl, written by hand.
func TestBuild(t *testing.T) {
	got, err := Build("testdata/fifo", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, l := range strings.Split(string(got), "\n") {
		if k, ok := strings.CutPrefix(l, "kind: "); ok {
			kinds = append(kinds, k)
		}
	}
	if strings.Join(kinds, " ") != "HTTPRoute Service Namespace" {
		t.Errorf("fifo: kinds %v, want HTTPRoute Service Namespace (as listed)", kinds)
	}
	got, err = Build("testdata/legacy-order", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kind: Namespace\nmetadata:\n  labels:\n    team: a\n  name: team-a\n---\n", "name: ca-2bhfhd8t88\n  namespace: team-a\n", "  - port: 8443\n"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("legacy-order lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasPrefix(string(got), "apiVersion: v1\nkind: Namespace\n") {
		t.Errorf("legacy-order: the Namespace is not first:\n%s", got)
	}
}

// TestBuildErrors: every error names the folder given to -k; files are
// read within the limit of bytes, and only regular files are read.
func TestBuildErrors(t *testing.T) {
	if _, err := Build("testdata/outside-root", 1<<20); err == nil || !strings.HasPrefix(err.Error(), "-k testdata/outside-root: kustomize: ") || !strings.Contains(err.Error(), "is not in or below") {
		t.Errorf("outside the root: %v", err)
	}
	if _, err := Build("testdata/legacy-order", 100); err == nil || !strings.Contains(err.Error(), "kustomization.yaml: is ") || !strings.Contains(err.Error(), "more than the limit of 100 (--max-bytes raises it)") {
		t.Errorf("over the limit of bytes: %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources: [pipe.yaml]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(dir, "pipe.yaml")); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if _, err := Build(dir, 1<<20); err == nil || !strings.Contains(err.Error(), "is a named pipe, not a regular file") {
		t.Errorf("a named pipe: %v", err)
	}
	if _, err := Build(filepath.Join(dir, "kustomization.yaml"), 1<<20); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file: %v", err)
	}
}
