// Package layers checks the dependency rule of docs/architecture.md: data
// flows one way, load → topology → engine → observe → compare → report,
// and a package imports only packages of its own layer or of a layer
// before it. Implementations are plug-ins: only the command that ships
// them imports one.
// It also bounds the functions' complexity (complexity_test.go).
package layers

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/gepcheck/gepcheck/"

// layers lists the packages, first layer first (docs/architecture.md). A
// pattern ending in "/…" matches the directories below it.
var layers = [][]string{
	{"internal/buildinfo", "internal/cache", "internal/exitcode", "internal/gotool", "internal/jsonmap", "internal/markdown", "internal/outpath", "internal/proc", "internal/realtest", "internal/shell", "internal/signals", "internal/watchdog", "kind-config", "simulator/crd", "simulator/fault", "simulator/ref", "simulator/tree", "simulator/load", "simulator/kustomize", "suite/features"},
	{"simulator/topology", "simulator/profile", "admission"},
	{"simulator/engine", "admission/scenario", "admission/gen"},
	{"simulator", "simulator/render", "admission/check"},
	{"generators", "suite/requirements", "admission/simulate"},
	{"suite", "scenarios"},
	{"suite/observe"},
	{"suite/compare", "suite/observe/observetest"},
	{"suite/differential", "cluster", "suite/statusrules", "suite/findings"},
	{"cluster/local", "cluster/kind", "cluster/providers", "cluster/watchproxy", "suite/incluster", "suite/input"},
	{"impl", "cluster/local/localtest"},
	{"impl/…", "suite/sidebyside"},
	{"reports/report"},
	{"suite/conformance", "suite/campaign", "suite/runner"},
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

// violations lists the imports of imports that break the rule.
func violations(imports map[string][]string) []string {
	var out []string
	for pkg, deps := range imports {
		l := layerOf(pkg)
		if l < 0 {
			out = append(out, fmt.Sprintf("package %s has no layer: add it to docs/architecture.md and to layers", pkg))
			continue
		}
		for _, d := range deps {
			if ld := layerOf(d); ld > l {
				out = append(out, fmt.Sprintf("%s (layer %d) imports %s (layer %d): imports go to earlier layers only", pkg, l, d, ld))
			}
			if strings.HasPrefix(d, "impl/") && pkg != "cmd/gepcheck" && !strings.HasPrefix(pkg, "impl/") {
				out = append(out, fmt.Sprintf("%s imports the implementation %s: only cmd/gepcheck links implementations", pkg, d))
			}
			if inWing(d) && !inWing(pkg) && pkg != "cmd/gepcheck" && pkg != "scenarios" {
				out = append(out, fmt.Sprintf("%s imports %s: only admission/, scenarios and cmd/gepcheck use the admission wing", pkg, d))
			}
			if inWing(pkg) && (d == "suite" || strings.HasPrefix(d, "suite/")) {
				out = append(out, fmt.Sprintf("%s imports %s: the admission wing stands beside the conformance suite, not on it", pkg, d))
			}
		}
	}
	sort.Strings(out)
	return out
}

// inWing says whether pkg is in the admission wing (admission/, its own
// load → chain → prediction → render, docs/admission.md).
func inWing(pkg string) bool {
	return pkg == "admission" || strings.HasPrefix(pkg, "admission/")
}

func TestDependencyRule(t *testing.T) {
	for _, v := range violations(imports(t)) {
		t.Error(v)
	}
}

// The rule can fail: the engine importing the observation layer, the
// in-cluster runner importing an implementation, a package outside the
// table, generators or the simulator importing the admission wing, and
// the wing importing the suite are each caught.
func TestDependencyRuleCatches(t *testing.T) {
	got := violations(map[string][]string{
		"simulator/engine": {"simulator/tree", "suite/observe"},
		"suite/incluster":  {"cluster", "impl/exec"},
		"suite/newthing":   nil,
		"cmd/gepcheck":     {"impl/envoygateway", "admission/check"},
		"generators":       {"admission/gen"},
		"simulator/render": {"admission"},
		"scenarios":        {"admission"},
		"admission/check":  {"admission", "suite/incluster"},
	})
	want := []string{
		"admission/check (layer 3) imports suite/incluster (layer 9)",
		"admission/check imports suite/incluster: the admission wing stands beside",
		"generators imports admission/gen: only admission/",
		"package suite/newthing has no layer",
		"simulator/engine (layer 2) imports suite/observe (layer 6)",
		"simulator/render imports admission: only admission/",
		"suite/incluster (layer 9) imports impl/exec (layer 11)",
		"suite/incluster imports the implementation impl/exec",
	}
	if len(got) != len(want) {
		t.Fatalf("violations %q, want %d", got, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("violation %q, want one starting %q", got[i], w)
		}
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
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || rel == "impl") {
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
				t.Errorf("%s mentions %q: implementation knowledge belongs in impl/", rel, n)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
