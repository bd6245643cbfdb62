package layers

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxShare is the largest share of the module's non-test Go lines one
// top-level folder may hold (docs/architecture.md, Folders): past it, a
// folder is a second module in all but name, and is split by its jobs.
const maxShare = 30.0

// folderLines counts the non-test Go lines under root by top-level folder.
func folderLines(t *testing.T, root string) (by map[string]int, total int) {
	t.Helper()
	by = map[string]int{}
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
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		n := bytes.Count(b, []byte("\n"))
		by[top] += n
		total += n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return by, total
}

// shareFaults names the folders of by above max percent of total.
func shareFaults(by map[string]int, total int, max float64) []string {
	var out []string
	for dir, n := range by {
		if share := 100 * float64(n) / float64(total); share > max {
			out = append(out, dir)
		}
	}
	sort.Strings(out)
	return out
}

func TestFolderShare(t *testing.T) {
	by, total := folderLines(t, "../..")
	if total == 0 {
		t.Fatal("no Go lines counted")
	}
	for _, dir := range sortedKeys(by) {
		n := by[dir]
		t.Logf("%-12s %6d lines, %4.1f %%", dir, n, 100*float64(n)/float64(total))
	}
	if bad := shareFaults(by, total, maxShare); len(bad) > 0 {
		t.Errorf("folders above %.0f %% of the module's %d non-test lines: %v", maxShare, total, bad)
	}
}

// TestFolderShareCatches: a folder of 31 lines in 100 is caught, one of 30
// is not.
func TestFolderShareCatches(t *testing.T) {
	if got := shareFaults(map[string]int{"big": 31, "a": 23, "b": 23, "c": 23}, 100, maxShare); len(got) != 1 || got[0] != "big" {
		t.Errorf("31 %% not caught: %v", got)
	}
	if got := shareFaults(map[string]int{"big": 30, "a": 24, "b": 23, "c": 23}, 100, maxShare); len(got) != 0 {
		t.Errorf("30 %% caught: %v", got)
	}
}

// maxCommandLines bounds cmd/'s non-test lines (docs/architecture.md,
// Folders): a command parses flags, makes one call and prints; what it
// does lives in the package whose flags it adds.
const maxCommandLines = 1200

func TestCommandsThin(t *testing.T) {
	by, _ := folderLines(t, "../..")
	n := by["cmd"]
	if n == 0 {
		t.Fatal("no lines counted in cmd/")
	}
	if n > maxCommandLines {
		t.Errorf("cmd/ has %d non-test lines, above %d: move what a command does into the package whose flags it adds", n, maxCommandLines)
	}
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
