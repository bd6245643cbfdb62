package layers

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fzipp/gocyclo"
)

// Cyclomatic complexity as gocyclo counts it: 1, plus one for each if, for,
// range, case and select case (not default), && and ||, near the share of
// the Go projects gepcheck reads for its style (0.6–1.3 % above 20):
// docs/architecture.md, Complexity.
const (
	complexLimit = 20  // a function above it is complex
	complexShare = 1.5 // at most this percentage of functions may be complex
	complexMax   = 30  // no function may be above it
)

// knownComplex lists today's complex functions not yet split, by package
// directory and function, with its complexity now. The list may only shrink: an entry fails the test when its function
// is gone, no longer above complexLimit, or more complex than listed.
var knownComplex = map[string]int{
	// The implementations (impl/...).
	"impl/envoygateway buildEgctl":                25,
	"impl/reference (*Controller).reconcile":      28,
	"impl/reference (*Controller).writeEffective": 24,
	"impl/internal/gatewayapi Index":              27,
	"impl/internal/gatewayapi (*Case).SameCA":     22,
	"impl/internal/xds (*Client).Fetch":           25,
	// One Case value (steps, findings, reports, the fuzz and run commands).
	"simulator States":                24,
	"suite/differential Combinations": 22,
	"reports/report Matrix":           25,
	"reports/report markdownMode":     21,
	"reports/report Compare":          21,
}

// complexity is one function's complexity, where it is declared.
type complexity struct {
	key  string // package directory and function, as in knownComplex
	pos  string // file:line
	over int
}

// complexities measures every function of the module's non-test files.
func complexities(t *testing.T, root string) []complexity {
	t.Helper()
	var out []complexity
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
		fset := token.NewFileSet()
		// Without comments: a //gocyclo:ignore directive hides nothing.
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		dir := filepath.ToSlash(filepath.Dir(rel))
		for _, s := range gocyclo.AnalyzeASTFile(f, fset, nil) {
			out = append(out, complexity{
				key:  dir + " " + s.FuncName,
				pos:  fmt.Sprintf("%s:%d", filepath.ToSlash(rel), s.Pos.Line),
				over: s.Complexity,
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].over > out[j].over })
	return out
}

// complexityFaults judges the measures against the limits and the list of
// known offenders; the second result is how many functions are complex.
func complexityFaults(all []complexity, known map[string]int) (faults []string, complex int) {
	seen := map[string]bool{}
	unlisted := 0
	for _, c := range all {
		if c.over <= complexLimit {
			continue
		}
		complex++
		if was, ok := known[c.key]; ok {
			seen[c.key] = true
			if c.over > was {
				faults = append(faults, fmt.Sprintf("%s %s: complexity %d, listed as known at %d: split it, do not grow it", c.pos, c.key, c.over, was))
			}
			continue
		}
		unlisted++
		if c.over > complexMax {
			faults = append(faults, fmt.Sprintf("%s %s: complexity %d, above %d", c.pos, c.key, c.over, complexMax))
		}
	}
	var gone []string
	for k := range known {
		if !seen[k] {
			gone = append(gone, fmt.Sprintf("%s: listed in knownComplex but no longer above %d (or gone): remove it from the list", k, complexLimit))
		}
	}
	sort.Strings(gone)
	faults = append(faults, gone...)
	if len(all) > 0 && float64(unlisted)*100 > complexShare*float64(len(all)) {
		var names []string
		for _, c := range all {
			if _, ok := known[c.key]; !ok && c.over > complexLimit {
				names = append(names, fmt.Sprintf("%d %s %s", c.over, c.pos, c.key))
			}
		}
		faults = append(faults, fmt.Sprintf("%d of %d functions (%.1f %%) are above complexity %d (known offenders aside), more than %.1f %%:\n\t%s",
			unlisted, len(all), float64(unlisted)*100/float64(len(all)), complexLimit, complexShare, strings.Join(names, "\n\t")))
	}
	return faults, complex
}

func TestComplexity(t *testing.T) {
	all := complexities(t, "../..")
	faults, complex := complexityFaults(all, knownComplex)
	t.Logf("%d of %d functions (%.2f %%) above complexity %d, %d of them known offenders", complex, len(all), float64(complex)*100/float64(len(all)), complexLimit, len(knownComplex))
	for _, f := range faults {
		t.Error(f)
	}
}

// ifs is the source of a function of complexity 1+n.
func ifs(name string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "func %s(x int) int {\n", name)
	for i := range n {
		fmt.Fprintf(&b, "\tif x == %d {\n\t\treturn %d\n\t}\n", i, i)
	}
	b.WriteString("\treturn -1\n}\n")
	return b.String()
}

// The test can fail: a function above 30, a listed function grown, a
// listed function no longer complex, and too many complex functions are
// each caught, with file and line.
func TestComplexityCatches(t *testing.T) {
	root := t.TempDir()
	src := "package p\n\n" + ifs("planted", 30) + ifs("grown", 25) + ifs("split", 3) + ifs("fine", 19)
	if err := os.MkdirAll(filepath.Join(root, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "p", "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	all := complexities(t, root)
	if len(all) != 4 || all[0].key != "p planted" || all[0].over != 31 || all[0].pos != "p/p.go:3" {
		t.Fatalf("measured %+v, want planted at p/p.go:3 with 31 first of 4", all)
	}
	faults, complex := complexityFaults(all, map[string]int{"p grown": 24, "p split": 22})
	want := []string{
		"p/p.go:3 p planted: complexity 31, above 30",
		"p/p.go:", // grown: 26, listed at 24
		"p split: listed in knownComplex but no longer above 20",
		"1 of 4 functions (25.0 %) are above complexity 20",
	}
	if complex != 2 || len(faults) != len(want) {
		t.Fatalf("%d complex, faults %q, want 2 and %d faults", complex, faults, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(faults[i], w) {
			t.Errorf("fault %q, want one starting %q", faults[i], w)
		}
	}
	if !strings.Contains(faults[1], "p grown: complexity 26, listed as known at 24") {
		t.Errorf("fault %q, want the grown function named", faults[1])
	}
}
