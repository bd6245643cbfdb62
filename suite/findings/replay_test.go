package findings

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite"
)

// propertyReplay is the replay of a property's finding: a seeded fuzz of
// the reference engine, which runs offline.
var propertyReplay = regexp.MustCompile(`^gepcheck fuzz --property (\S+) --seed (\d+) --checks (\d+)$`)

// TestReplaysDrawTheirCase: every replay a kept finding names (its
// spec.replay and its "# Replay:" comments) runs that finding. A finding
// of an implementation is replayed by the file itself (gepcheck run
// --impl ... FILE, FILE its path in the repository): a seeded `fuzz
// --impl` line needs the implementation and draws the case only as long
// as the generators do not change (14 of them no longer did, issue 30).
// A property's finding may name its seeded fuzz of the reference engine,
// which is run here: it must still draw the kept case, byte for byte.
func TestReplaysDrawTheirCase(t *testing.T) {
	root := filepath.Join(findingsDir, "..", "..")
	var files []string
	err := filepath.WalkDir(findingsDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("only %d findings files under %s", len(files), findingsDir)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		rel = filepath.ToSlash(rel)
		t.Run(rel, func(t *testing.T) {
			replays := replaysOf(t, f)
			if len(replays) < 2 {
				t.Fatalf("%s: %d replays (spec.replay and a # Replay: comment): %q", rel, len(replays), replays)
			}
			for _, r := range replays {
				if err := checkReplay(t, rel, f, r); err != "" {
					t.Errorf("%s: replay %q: %s", rel, r, err)
				}
			}
		})
	}
}

// checkReplay says what is wrong with one replay of the finding file f
// (rel: its path in the repository), "" when nothing is.
func checkReplay(t *testing.T, rel, f, replay string) string {
	words := strings.Fields(replay)
	if len(words) > 4 && words[0] == "gepcheck" && words[1] == "run" && slices.Contains(words, "--impl") {
		if words[len(words)-1] != rel {
			return "runs " + words[len(words)-1] + ", not the file itself (" + rel + ")"
		}
		return ""
	}
	m := propertyReplay.FindStringSubmatch(replay)
	if m == nil {
		return "neither the file's own replay (gepcheck run --impl IMPL [version flag] " + rel + ") nor a seeded fuzz of a property: replace it by the file's own"
	}
	p, ok := suite.Lookup(m[1])
	if !ok {
		return "no property " + m[1]
	}
	seed, _ := strconv.ParseUint(m[2], 10, 64)
	checks, _ := strconv.Atoi(m[3])
	out := suite.Run(p, "", seed, checks, suite.Options{})
	if out.Passed {
		return "the property finds nothing with that seed"
	}
	dir := t.TempDir()
	name := strings.TrimSuffix(filepath.Base(f), ".yaml")
	got, err := suite.WriteFinding(dir, name, out)
	if err != nil {
		return err.Error()
	}
	a, _ := os.ReadFile(got)
	b, _ := os.ReadFile(f)
	if !bytes.Equal(a, b) {
		return "draws another case than the kept one (go test ./suite/findings/ -run TestFindings -update-findings rewrites it)"
	}
	return ""
}

// replaysOf are the replays file f names: its Finding's spec.replay and
// every "# Replay:" or "# Regenerate:" comment line.
func replaysOf(t *testing.T, f string) []string {
	docs, err := load.Read([]string{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range docs {
		if d.Kind != "Finding" {
			continue
		}
		spec, _ := d.Raw["spec"].(map[string]any)
		r, _ := spec["replay"].(string)
		out = append(out, r)
	}
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		for _, prefix := range []string{"# Replay: ", "# Regenerate: "} {
			if r, ok := strings.CutPrefix(sc.Text(), prefix); ok {
				out = append(out, r)
			}
		}
	}
	return out
}
