package suite

import (
	"testing"
)

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
