package suite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every kept finding is triaged: a verdict other than untriaged, and a
// triage block that passes Triage.Check (issue: findings triaged).
func TestFindingsTriaged(t *testing.T) {
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
	if len(files) < 11 {
		t.Fatalf("only %d findings files under %s", len(files), findingsDir)
	}
	for _, f := range files {
		got, err := ReadFinding(f)
		if err != nil {
			t.Error(err)
			continue
		}
		if got.Triage.Verdict == Untriaged {
			t.Errorf("%s: untriaged: read it against the specs and set spec.triage", f)
		}
	}
}

// The GEP-713-019 statement, and a SHOULD, as the catalogue quotes them.
const (
	q019 = "For Policy CRDs that let users specify merge strategies at individual Policy CRs, the spec assigned as established MUST dictate the merge strategy to apply to resolve a conflict."
	q052 = "Policy implementations SHOULD support these basic status conditions."
)

// Each rule of Triage.Check refuses its own broken triage, naming the
// field; the valid forms pass.
func TestTriageCheck(t *testing.T) {
	must := Triage{Verdict: ContradictsMust, Requirement: "GEP-713-019", Quote: q019, Note: "why"}
	for _, tc := range []struct {
		name  string
		edit  func(*Triage)
		field string // "": valid
	}{
		{"contradicts-must", func(*Triage) {}, ""},
		{"part of the quote, other whitespace", func(t *Triage) { t.Quote = "the spec assigned as established\n MUST dictate the merge strategy" }, ""},
		{"contradicts-should", func(t *Triage) {
			*t = Triage{Verdict: ContradictsShould, Requirement: "GEP-713-052", Quote: q052, Note: "why"}
		}, ""},
		{"undefined", func(t *Triage) { *t = Triage{Verdict: UndefinedBySpecs, Note: "why"} }, ""},
		{"profile-gap with upstream", func(t *Triage) {
			*t = Triage{Verdict: ProfileGap, Note: "why", Upstream: []string{"https://github.com/envoyproxy/gateway/issues/8926"}}
		}, ""},
		{"untriaged", func(t *Triage) { *t = Triage{Verdict: Untriaged} }, ""},
		{"no verdict", func(t *Triage) { t.Verdict = "" }, "verdict"},
		{"unknown verdict", func(t *Triage) { t.Verdict = "contradicts-may" }, "verdict"},
		{"no requirement", func(t *Triage) { t.Requirement = "" }, "requirement"},
		{"unknown requirement", func(t *Triage) { t.Requirement = "GEP-713-999" }, "requirement"},
		{"must of a SHOULD", func(t *Triage) { t.Requirement, t.Quote = "GEP-713-052", q052 }, "verdict"},
		{"should of a MUST", func(t *Triage) { t.Verdict = ContradictsShould }, "verdict"},
		{"no quote", func(t *Triage) { t.Quote = "" }, "quote"},
		{"quote not in the requirement", func(t *Triage) { t.Quote = "the challenger MUST dictate the merge strategy" }, "quote"},
		{"quote of another requirement", func(t *Triage) { t.Requirement = "GEP-713-029" }, "quote"},
		{"quote without requirement", func(t *Triage) { *t = Triage{Verdict: UndefinedBySpecs, Note: "why", Quote: q019} }, "requirement"},
		{"no note", func(t *Triage) { t.Note = " " }, "note"},
		{"http upstream", func(t *Triage) { t.Upstream = []string{"http://github.com/envoyproxy/gateway/issues/8926"} }, "upstream[0]"},
		{"upstream not a URL", func(t *Triage) { t.Upstream = []string{"https://x.test/ok", "envoyproxy/gateway#8926"} }, "upstream[1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := must
			tr.Upstream = nil
			tc.edit(&tr)
			problems := tr.Check()
			if tc.field == "" {
				if len(problems) > 0 {
					t.Errorf("%+v: want no problem, got %v", tr, problems)
				}
				return
			}
			for _, p := range problems {
				if p.Field == tc.field {
					return
				}
			}
			t.Errorf("%+v: want a problem with field %s, got %v", tr, tc.field, problems)
		})
	}
}

// A findings file whose triage is missing or invalid, or that is not a
// finding, is an error naming the file, the document and the field.
func TestReadFindingErrors(t *testing.T) {
	good, err := os.ReadFile(filepath.Join(findingsDir, "envoy-gateway", "envoy-gateway-backendtrafficpolicy-condition.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	head, rest, _ := strings.Cut(string(good), "  triage:\n")
	_, rest, _ = strings.Cut(rest, "---\n")
	for _, tc := range []struct {
		name, triage string
		want         []string
	}{
		{"missing", "", []string{"document 1", "field spec.triage", "missing"}},
		{"verdict", "  triage:\n    verdict: wrong\n", []string{"document 1", "field spec.triage.verdict", `"wrong"`}},
		{"quote", "  triage:\n    verdict: contradicts-must\n    requirement: GEP-2649-023\n    quote: Each Inherited Policy MAY\n    note: why\n",
			[]string{"field spec.triage.quote", "not in GEP-2649-023"}},
		{"upstream", "  triage:\n    verdict: undefined\n    note: why\n    upstream: [envoyproxy/gateway#8926]\n", []string{"field spec.triage.upstream[0]", "https"}},
		{"unknown field", "  triage:\n    verdict: undefined\n    note: why\n    verdit: undefined\n", []string{"field spec.triage.verdit", "unknown field"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "f.yaml")
			if err := os.WriteFile(file, []byte(head+tc.triage+"---\n"+rest), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadFinding(file)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append(tc.want, file) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not name %q: %v", w, err)
				}
			}
		})
	}
	t.Run("not a finding", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "s.yaml")
		if err := os.WriteFile(file, []byte(rest), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFinding(file); err == nil || !strings.Contains(err.Error(), file+": not a finding") {
			t.Errorf("error %v; want %s: not a finding", err, file)
		}
	})
}
