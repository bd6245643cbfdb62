package requirements

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot walks up from the working directory to the directory holding
// go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// seedDir walks up from the working directory until a directory holds
// shared/seeds (the repository's parent, ../shared/seeds from the root).
func seedDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "shared", "seeds")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("spec texts not found: no shared/seeds directory in any parent of the working directory " +
				"(expected next to the repository, ../shared/seeds from its root); quotes not checked")
		}
		dir = parent
	}
}

func load(t *testing.T) []Requirement {
	t.Helper()
	reqs, err := Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return reqs
}

// TestCatalogue: the catalogue loads and covers every spec. That every
// MUST has coverage or a stated reason, and everything it cites exists, is
// suite's TestRequirementsCiteRealProperties: Check against the property
// registry itself (this package cannot import suite).
func TestCatalogue(t *testing.T) {
	reqs := load(t)
	specs := map[string]int{}
	for _, r := range reqs {
		specs[r.Spec]++
	}
	for _, s := range Specs {
		if specs[s] == 0 {
			t.Errorf("no requirements for %s", s)
		}
	}
	if c := Coverage(reqs).Total; c.Total != len(reqs) || c.Covered+c.Partial+c.Pending+c.Untestable+c.Missing != c.Total {
		t.Errorf("Coverage does not add up: %+v for %d requirements", c, len(reqs))
	}
}

// keyword finds upper-case RFC 2119 keywords (as whole words, so that MUST
// inside another upper-case word does not count).
var keyword = regexp.MustCompile(`\b(MUST|SHOULD|SHALL|REQUIRED|RECOMMENDED)\b`)

// TestQuotesInSeeds: every quote is exact text of its spec (whitespace
// normalized), the quotes come in document order, and every keyword of the
// spec falls inside a quote, so that no sentence is left out.
func TestQuotesInSeeds(t *testing.T) {
	reqs := load(t)
	for _, spec := range Specs {
		t.Run(spec, func(t *testing.T) {
			text, source := specText(t, spec)
			type span struct{ start, end int }
			var spans []span
			pos := 0
			for _, r := range reqs {
				if r.Spec != spec {
					continue
				}
				i := strings.Index(text[pos:], r.Quote)
				if i < 0 {
					if strings.Contains(text, r.Quote) {
						t.Errorf("%s: quote out of document order (ids must follow the text)", r.ID)
					} else {
						t.Errorf("%s: quote is not in %s: %q", r.ID, source, r.Quote)
					}
					continue
				}
				start := pos + i
				spans = append(spans, span{start, start + len(r.Quote)})
				pos = start + 1
			}
			for _, m := range keyword.FindAllStringIndex(text, -1) {
				in := false
				for _, s := range spans {
					in = in || (m[0] >= s.start && m[1] <= s.end)
				}
				if !in {
					from, to := max(0, m[0]-80), min(len(text), m[1]+80)
					t.Errorf("keyword %s at offset %d is in no quote: …%s…", text[m[0]:m[1]], m[0], text[from:to])
				}
			}
		})
	}
}

// specText is the normalized text of spec and where it was read: a seed
// file (the test is skipped when there are none), or the doc comments or
// Markdown text of a Go module's files (ModuleFiles) at the version go.mod
// requires.
func specText(t *testing.T, spec string) (string, string) {
	t.Helper()
	mf, ok := ModuleFiles[spec]
	if !ok {
		dir := seedDir(t)
		raw, err := os.ReadFile(filepath.Join(dir, SeedFiles[spec]))
		if err != nil {
			t.Fatal(err)
		}
		return Normalize(string(raw)), SeedFiles[spec]
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", mf.Module).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", mf.Module, err)
	}
	var parts []string
	for _, f := range mf.Files {
		raw, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), f))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, ModuleText(f, raw))
	}
	return Normalize(strings.Join(parts, " ")), mf.Module + " " + strings.Join(mf.Files, ", ")
}

// MarkdownText reads a GEP as a reader sees it: no heading, list,
// emphasis or code marks, links as their text, and of a code block only
// its // comments.
func TestMarkdownText(t *testing.T) {
	src := "### Status\n\nPolicies **MUST** use [the `status` stanza](#status) and _established_ specs.\n\n```go\nconst x = 1\n  // x SHOULD be one.\n```\n- a list item\n"
	if got, want := MarkdownText([]byte(src)), "Status Policies MUST use the status stanza and established specs. x SHOULD be one. a list item"; got != want {
		t.Errorf("MarkdownText = %q, want %q", got, want)
	}
}

// GoComments reads the text after each "//", whatever the indentation,
// and nothing else (code, block comments).
func TestGoComments(t *testing.T) {
	src := "/*\nlicence MUST\n*/\npackage v1\n\n// A policy\n//   MUST do this.\ntype P struct {\n\t// Field SHOULD\n\t// be set.\n\tField string // trailing comments are not read\n}\n"
	if got, want := GoComments([]byte(src)), "A policy MUST do this. Field SHOULD be set."; got != want {
		t.Errorf("GoComments = %q, want %q", got, want)
	}
}

// TestCheckReportsProblems: Check can fail, once for each kind of problem.
func TestCheckReportsProblems(t *testing.T) {
	root := repoRoot(t)
	// A registry of one property, for Check's own logic.
	registry := []string{"test/known-property"}
	good := []Citation{
		{Scenario: "scenarios/gep-713/example-1-direct.yaml"},
		{Property: "test/known-property"},
		{Test: "simulator/engine.TestSameLevelOrder"},
	}
	bad := []Requirement{
		{ID: "X-001", Level: Must, CoveredBy: good},
		{ID: "X-002", Level: MustNot},                         // nothing at all
		{ID: "X-003", Level: Should},                          // allowed for a SHOULD
		{ID: "X-004", Level: Must, Untestable: "a reason"},    // fine
		{ID: "X-005", Level: Must, Pending: "issue 4: later"}, // fine
		{ID: "X-006", Level: Must, CoveredBy: []Citation{{Scenario: "scenarios/gep-713/no-such-scenario.yaml"}}},
		{ID: "X-007", Level: Must, CoveredBy: []Citation{{Scenario: "scenarios/gep-713"}}}, // a directory
		{ID: "X-008", Level: Must, CoveredBy: []Citation{{Test: "simulator/engine.TestNoSuchTest"}}},
		{ID: "X-009", Level: Must, CoveredBy: []Citation{{Test: "no/such/dir.TestSameLevelOrder"}}},
		{ID: "X-010", Level: Must, CoveredBy: []Citation{{Test: "simulator/engine.TestSameLevel"}}}, // a prefix of a real name
		{ID: "X-011", Level: Must, CoveredBy: []Citation{{Test: "TestSameLevelOrder"}}},             // no directory
		{ID: "X-012", Level: Must, CoveredBy: []Citation{{Property: "ordering/no-such-property"}}},
		{ID: "X-013", Level: Must, CoveredBy: []Citation{{}}},
	}
	want := map[string]string{
		"X-002": "without coveredBy",
		"X-006": "no-such-scenario.yaml: no such file",
		"X-007": "scenarios/gep-713: no such file",
		"X-008": "no func TestNoSuchTest(",
		"X-009": "no func TestSameLevelOrder( in no/such/dir",
		"X-010": "no func TestSameLevel(",
		"X-011": "want DIR.TestName",
		"X-012": "no such property",
		"X-013": "empty coveredBy item",
	}
	got := map[string]string{}
	for _, p := range Check(bad, root, registry) {
		id, _, _ := strings.Cut(p, ":")
		if got[id] != "" {
			t.Errorf("%s reported twice: %q and %q", id, got[id], p)
		}
		got[id] = p
	}
	for id, w := range want {
		if !strings.Contains(got[id], w) {
			t.Errorf("%s: problem %q, want one containing %q", id, got[id], w)
		}
	}
	for id, p := range got {
		if want[id] == "" {
			t.Errorf("%s: unexpected problem %q", id, p)
		}
	}
}

// TestParseRejects: the format rules of Parse, one bad catalogue each.
func TestParseRejects(t *testing.T) {
	const ok = `
- id: GEP-713-001
  level: MUST
  section: "S"
  quote: "X MUST y."
  untestable: "why"
`
	if _, err := Parse("gep-713", []byte(ok)); err != nil {
		t.Fatalf("a good catalogue is refused: %v", err)
	}
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown field", ok + "  note: x\n", "unknown field"},
		{"bad level", strings.Replace(ok, "level: MUST", "level: MAY", 1), `level "MAY"`},
		{"level not in quote", strings.Replace(ok, "level: MUST", "level: MUST NOT", 1), "no MUST NOT"},
		{"weaker than the quote", strings.Replace(ok, "level: MUST", "level: SHOULD", 1), "strongest keyword"},
		{"bad id", strings.Replace(ok, "GEP-713-001", "GEP-2649-001", 1), "want GEP-713-NNN"},
		{"id zero", ok + strings.Replace(ok, "GEP-713-001", "GEP-713-000", 1), "want GEP-713-NNN with NNN from 001"},
		{"duplicate id", ok + ok, "duplicate id"},
		{"decreasing ids", strings.Replace(ok, "001", "005", 1) + strings.Replace(ok, "001", "002", 1), "must increase"},
		{"no section", strings.Replace(ok, `section: "S"`, `section: ""`, 1), "no section"},
		{"unnormalized quote", strings.Replace(ok, "X MUST y.", "X  MUST y.", 1), "whitespace"},
		{"nothing", strings.Replace(ok, `  untestable: "why"`+"\n", "", 1), "needs coveredBy"},
		{"untestable and pending", ok + "  pending: \"issue 4\"\n", "untestable excludes"},
		{"untestable and coveredBy", ok + "  coveredBy:\n  - test: simulator.TestX\n", "untestable excludes"},
		{"two kinds in one item", strings.Replace(ok, `  untestable: "why"`, "  coveredBy:\n  - {test: simulator.TestX, property: p}", 1), "exactly one"},
		{"empty", "# nothing\n", "no requirements"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("gep-713", []byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// coveredBy with pending is partial coverage, which is allowed.
	partial := strings.Replace(ok, `  untestable: "why"`, "  coveredBy:\n  - test: simulator.TestX\n  pending: \"issue 4: the rest\"", 1)
	reqs, err := Parse("gep-713", []byte(partial))
	if err != nil {
		t.Fatalf("coveredBy with pending refused: %v", err)
	}
	if s := reqs[0].Status(); s != Partial {
		t.Errorf("status %s, want partial", s)
	}
}

func TestStatusAndCoverage(t *testing.T) {
	reqs := []Requirement{
		{Spec: "gep-2649", Level: Should, Pending: "p"},
		{Spec: "gep-713", Level: Must, CoveredBy: []Citation{{Test: "a.TestB"}}},
		{Spec: "gep-713", Level: Must, CoveredBy: []Citation{{Test: "a.TestB"}}, Pending: "p"},
		{Spec: "gep-713", Level: Must, Untestable: "u"},
		{Spec: "gep-713", Level: MustNot},
		{Spec: "gep-713", Level: Should, Pending: "p"},
	}
	want := []Status{Pending, Covered, Partial, Untestable, Missing, Pending}
	for i, r := range reqs {
		if got := r.Status(); got != want[i] {
			t.Errorf("requirement %d: status %s, want %s", i, got, want[i])
		}
	}
	s := Coverage(reqs)
	wantRows := []Row{
		{Spec: "gep-713", Level: Must, Counts: Counts{Total: 3, Covered: 1, Partial: 1, Untestable: 1}},
		{Spec: "gep-713", Level: MustNot, Counts: Counts{Total: 1, Missing: 1}},
		{Spec: "gep-713", Level: Should, Counts: Counts{Total: 1, Pending: 1}},
		{Spec: "gep-2649", Level: Should, Counts: Counts{Total: 1, Pending: 1}},
	}
	if len(s.Rows) != len(wantRows) {
		t.Fatalf("rows %+v, want %+v", s.Rows, wantRows)
	}
	for i := range wantRows {
		if s.Rows[i] != wantRows[i] {
			t.Errorf("row %d: %+v, want %+v", i, s.Rows[i], wantRows[i])
		}
	}
	if s.Total != (Counts{Total: 6, Covered: 1, Partial: 1, Pending: 2, Untestable: 1, Missing: 1}) {
		t.Errorf("total %+v", s.Total)
	}
}
