package suite

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/gepcheck/gepcheck/suite/requirements"
)

// Triage says what a finding is: behaviour that contradicts a quoted MUST
// or SHOULD of the specs, behaviour the specs leave undefined, or a gap in
// gepcheck's profile of the policy kind, with the known upstream issues.
// A new finding is untriaged until someone reads it against the specs.
type Triage struct {
	Verdict Verdict `json:"verdict"`
	// Requirement is the id of the contradicted statement in the
	// requirements catalogue (suite/requirements), e.g. GEP-713-019.
	Requirement string `json:"requirement,omitempty"`
	// Quote is the statement, verbatim: the requirement's quote or a part
	// of it.
	Quote string `json:"quote,omitempty"`
	// Note says why, in a sentence or two.
	Note string `json:"note,omitempty"`
	// Upstream lists the known upstream issues and pull requests (https).
	Upstream []string `json:"upstream,omitempty"`
}

// Verdict is the kind of a finding.
type Verdict string

// Verdicts.
const (
	ContradictsMust   Verdict = "contradicts-must"   // a MUST or MUST NOT
	ContradictsShould Verdict = "contradicts-should" // a SHOULD or SHOULD NOT
	UndefinedBySpecs  Verdict = "undefined"          // the specs do not say, or say it two ways
	ProfileGap        Verdict = "profile-gap"        // gepcheck's profile misdescribes the kind
	Untriaged         Verdict = "untriaged"          // not read yet (report.WriteFinding)
)

// Verdicts lists the verdicts in the order they are reported.
var Verdicts = []Verdict{ContradictsMust, ContradictsShould, UndefinedBySpecs, ProfileGap, Untriaged}

// TriageProblem is one thing wrong with a triage block: the field of the
// block (verdict, requirement, quote, note, upstream[i]) and what.
type TriageProblem struct {
	Field string
	Msg   string
}

var catalogue = sync.OnceValues(func() (map[string]requirements.Requirement, error) {
	reqs, err := requirements.Load()
	if err != nil {
		return nil, err
	}
	byID := make(map[string]requirements.Requirement, len(reqs))
	for _, r := range reqs {
		byID[r.ID] = r
	}
	return byID, nil
})

// Check lists the problems of t: a verdict not in Verdicts; a
// contradicts-* without requirement and quote, or whose requirement is not
// in the catalogue, is not of the verdict's level, or does not contain the
// quote; a triaged verdict without a note; an upstream entry that is not
// an https URL.
func (t Triage) Check() []TriageProblem {
	var out []TriageProblem
	bad := func(field, format string, a ...any) {
		out = append(out, TriageProblem{field, fmt.Sprintf(format, a...)})
	}
	known := slices.Contains(Verdicts, t.Verdict)
	if !known {
		bad("verdict", "%q: one of %s", t.Verdict, verdictList())
	}
	contradicts := t.Verdict == ContradictsMust || t.Verdict == ContradictsShould
	switch {
	case t.Requirement != "":
		out = append(out, t.checkRequirement()...)
	case contradicts:
		bad("requirement", "%s needs the id of the statement (gepcheck requirements)", t.Verdict)
	case t.Quote != "":
		bad("requirement", "a quote needs the id of the requirement it is checked against")
	}
	if contradicts && strings.TrimSpace(t.Quote) == "" {
		bad("quote", "%s needs the statement, verbatim", t.Verdict)
	}
	if known && t.Verdict != Untriaged && strings.TrimSpace(t.Note) == "" {
		bad("note", "say why, in a sentence or two")
	}
	for i, u := range t.Upstream {
		if p, err := url.Parse(u); err != nil || p.Scheme != "https" || p.Host == "" {
			bad(fmt.Sprintf("upstream[%d]", i), "%q: want an https URL", u)
		}
	}
	return out
}

// checkRequirement checks t.Requirement against the catalogue: it exists,
// its level is the verdict's, and its quote contains t.Quote.
func (t Triage) checkRequirement() []TriageProblem {
	byID, err := catalogue()
	if err != nil {
		return []TriageProblem{{"requirement", "the requirements catalogue does not load: " + err.Error()}}
	}
	r, ok := byID[t.Requirement]
	if !ok {
		return []TriageProblem{{"requirement", fmt.Sprintf("%q: no such requirement (gepcheck requirements)", t.Requirement)}}
	}
	var out []TriageProblem
	switch {
	case t.Verdict == ContradictsMust && !r.Level.Mandatory():
		out = append(out, TriageProblem{"verdict", fmt.Sprintf("%s, but %s is a %s", t.Verdict, r.ID, r.Level)})
	case t.Verdict == ContradictsShould && r.Level.Mandatory():
		out = append(out, TriageProblem{"verdict", fmt.Sprintf("%s, but %s is a %s", t.Verdict, r.ID, r.Level)})
	}
	if q := requirements.Normalize(t.Quote); q != "" && !strings.Contains(r.Quote, q) {
		out = append(out, TriageProblem{"quote", fmt.Sprintf("not in %s, which says: %q", r.ID, r.Quote)})
	}
	return out
}

func verdictList() string {
	s := make([]string, len(Verdicts))
	for i, v := range Verdicts {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}
