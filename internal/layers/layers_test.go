// Package layers checks the dependency rule of docs/architecture.md: data
// flows one way, load → topology → engine → observe → compare → report,
// and a package imports only packages of its own layer or of a layer
// before it. Implementations are plug-ins: only the command that ships
// them imports one.
package layers

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/gepcheck/gepcheck/"

// layers lists the packages, first layer first (docs/architecture.md). A
// pattern ending in "/…" matches the directories below it.
var layers = [][]string{
	{"internal/cache", "internal/gotool", "kind-config", "simulator/ref", "simulator/tree", "simulator/load", "suite/features"},
	{"simulator/topology", "simulator/profile"},
	{"simulator/engine"},
	{"simulator", "simulator/render"},
	{"generators", "suite/requirements"},
	{"suite", "scenarios"},
	{"suite/observe"},
	{"suite/compare"},
	{"suite/differential", "suite/cluster"},
	{"suite/cluster/local", "suite/cluster/kind", "suite/cluster/providers", "suite/incluster"},
	{"suite/impl"},
	{"suite/impl/…"},
	{"reports"},
	{"cmd/gepcheck"},
}

func layerOf(pkg string) int {
	for i, l := range layers {
		for _, p := range l {
			if p == pkg || strings.HasSuffix(p, "/…") && strings.HasPrefix(pkg, strings.TrimSuffix(p, "…")) {
				return i
			}
		}
	}
	return -1
}

// imports maps each package of the module (its directory) to the module
// packages its non-test files import.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	root := "../.."
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		dir = filepath.ToSlash(dir)
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if rest, ok := strings.CutPrefix(p, module); ok && !slices.Contains(out[dir], rest) {
				out[dir] = append(out[dir], rest)
			}
		}
		if _, ok := out[dir]; !ok {
			out[dir] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDependencyRule(t *testing.T) {
	for pkg, deps := range imports(t) {
		l := layerOf(pkg)
		if l < 0 {
			t.Errorf("package %s has no layer: add it to docs/architecture.md and to layers", pkg)
			continue
		}
		for _, d := range deps {
			if ld := layerOf(d); ld > l {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports go to earlier layers only", pkg, l, d, ld)
			}
			if strings.HasPrefix(d, "suite/impl/") && pkg != "cmd/gepcheck" && !strings.HasPrefix(pkg, "suite/impl/") {
				t.Errorf("%s imports the implementation %s: only cmd/gepcheck links implementations", pkg, d)
			}
		}
	}
}

// The rule can fail: a package that imports a later layer is caught.
func TestDependencyRuleCatches(t *testing.T) {
	if layerOf("simulator/engine") >= layerOf("suite/observe") || layerOf("suite/incluster") >= layerOf("suite/impl") {
		t.Fatal("the layers are not in the documented order")
	}
	if l := layerOf("suite/impl/envoygateway"); l != layerOf("suite/impl/reference") || l <= layerOf("suite/impl") {
		t.Errorf("suite/impl/… is layer %d", l)
	}
}

// Only the implementations' own directories name an implementation.
func TestImplementationsStayInTheirDirectories(t *testing.T) {
	names := []string{"envoy", "egctl"}
	root := "../.."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || rel == "suite/impl") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || rel == "cmd/gepcheck/impls.go" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := strings.ToLower(string(src))
		for _, n := range names {
			if strings.Contains(text, n) {
				t.Errorf("%s mentions %q: implementation knowledge belongs in suite/impl/", rel, n)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
