package hacktest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// localTests maps each package directory under root (./x/y) to the names
// of its TestLocal… functions: the tests of real components make ci runs.
func localTests(t *testing.T, root string) map[string][]string {
	t.Helper()
	decl := regexp.MustCompile(`(?m)^func (TestLocal\w*)\(t \*testing\.T\)`)
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			pkg := "./" + filepath.ToSlash(rel)
			out[pkg] = append(out[pkg], m[1])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// goTestLine is one go test command of a recipe: its -run pattern and its
// package patterns.
type goTestLine struct {
	run  *regexp.Regexp
	pkgs []string
}

// goTestLines reads the go test commands of the named recipes of a
// Makefile ($$ is make's $).
func goTestLines(t *testing.T, makefile string, recipes ...string) []goTestLine {
	t.Helper()
	b, err := os.ReadFile(makefile)
	if err != nil {
		t.Fatal(err)
	}
	var out []goTestLine
	in := false
	runFlag := regexp.MustCompile(`-run '([^']*)'`)
	for _, line := range strings.Split(string(b), "\n") {
		if name, _, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "\t") && !strings.HasPrefix(line, "#") {
			in = slices.Contains(recipes, name)
			continue
		}
		if !in || !strings.HasPrefix(line, "\t") || !strings.Contains(line, " test ") {
			continue
		}
		m := runFlag.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		re, err := regexp.Compile(strings.ReplaceAll(m[1], "$$", "$"))
		if err != nil {
			t.Fatalf("%s: -run %q: %v", makefile, m[1], err)
		}
		var pkgs []string
		for _, f := range strings.Fields(line) {
			if strings.HasPrefix(f, "./") {
				pkgs = append(pkgs, strings.TrimSuffix(f, "/"))
			}
		}
		out = append(out, goTestLine{run: re, pkgs: pkgs})
	}
	return out
}

// covers says whether package pattern p (./x/..., ./x) names package dir.
func covers(p, dir string) bool {
	if base, ok := strings.CutSuffix(p, "/..."); ok {
		return dir == base || strings.HasPrefix(dir, base+"/")
	}
	return p == dir
}

// uncovered lists the TestLocal… tests no line runs: none of the lines
// names the package with a -run pattern matching the test (a top-level
// match; its subtests may be skipped).
func uncovered(tests map[string][]string, lines []goTestLine) []string {
	var out []string
	for dir, names := range tests {
		for _, name := range names {
			ran := slices.ContainsFunc(lines, func(l goTestLine) bool {
				return l.run.MatchString(name) && slices.ContainsFunc(l.pkgs, func(p string) bool { return covers(p, dir) })
			})
			if !ran {
				out = append(out, dir+" "+name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Every test of a real component (TestLocal…) runs in make ci: a package
// moved out of a pattern (./suite/... once held the implementations) is
// caught here, not by a CI that silently runs fewer tests.
func TestMakeCIRunsEveryLocalTest(t *testing.T) {
	tests := localTests(t, root)
	if len(tests) == 0 {
		t.Fatal("no TestLocal… test found")
	}
	lines := goTestLines(t, filepath.Join(root, "Makefile"), "ci", "race")
	if len(lines) == 0 {
		t.Fatal("no go test line with -run in make ci")
	}
	n := 0
	for _, names := range tests {
		n += len(names)
	}
	t.Logf("%d TestLocal… tests in %d packages, %d go test lines", n, len(tests), len(lines))
	if miss := uncovered(tests, lines); len(miss) > 0 {
		t.Errorf("make ci runs none of: %v", miss)
	}
}

func TestMakeCIRunsEveryLocalTestCatches(t *testing.T) {
	tests := map[string][]string{"./impl/reference": {"TestLocalReference"}, "./suite/conformance": {"TestLocalConformanceReference"}}
	lines := []goTestLine{{run: regexp.MustCompile("Local"), pkgs: []string{"./suite/..."}}}
	if got := uncovered(tests, lines); !slices.Equal(got, []string{"./impl/reference TestLocalReference"}) {
		t.Errorf("uncovered = %v", got)
	}
}
