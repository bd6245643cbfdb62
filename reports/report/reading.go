package report

import (
	"slices"
	"strings"
)

// ThirdParty is what every report of another implementation than
// gepcheck's own says of its results: gepcheck's comparison, not the
// implementer's own submission to Gateway API.
const ThirdParty = "Third-party results: gepcheck ran the implementation and compared what it did with gepcheck's reference engine under the reading stated here; they are not the implementer's conformance submission."

// OwnResults is what a report of gepcheck-reference (--impl reference)
// says instead: gepcheck checked against itself.
const OwnResults = "gepcheck's own results: gepcheck-reference is gepcheck's reference engine as a controller, checked against the same engine under the reading stated here; no other implementer's submission."

// Standing says whose results these are (ThirdParty, or OwnResults for
// gepcheck-reference).
func (r *Results) Standing() string {
	if r.Implementation.Name == "reference" {
		return OwnResults
	}
	return ThirdParty
}

// Profiles lists the policy profiles the results' cases and campaigns
// were read with, sorted, each once.
func (r *Results) Profiles() []string {
	var out []string
	for _, c := range r.Cases {
		out = append(out, c.Profiles...)
	}
	for _, c := range r.Campaigns {
		out = append(out, c.Profile)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// VocabularyText names the status vocabulary the results were compared
// under (Results.StatusVocabularyRead).
func VocabularyText(v string) string {
	switch v {
	case "merged":
		return "merged (GEP-713 as merged upstream, gateway-api v1.6.3: Accepted, Programmed)"
	case "draft":
		return "draft (GEP-713's 2025 draft: Accepted, Enforced)"
	}
	return v
}

// Reading states the reading the results were compared under: the
// semantics, the status vocabulary and the profiles (docs/semantics.md,
// docs/profiles.md).
func (r *Results) Reading() string {
	profiles := "each scenario's own"
	if p := r.Profiles(); len(p) > 0 {
		profiles = strings.Join(p, ", ")
	}
	return "Reading: semantics " + r.Semantics + " (docs/semantics.md); status vocabulary " + VocabularyText(r.StatusVocabularyRead()) + "; ancestor entries " + AncestorEntriesText(r.AncestorEntries) + "; profiles " + profiles + " (docs/profiles.md)."
}

// AncestorEntriesText names the reading of status per ancestor the results
// were compared under (Results.AncestorEntries, "" the default).
func AncestorEntriesText(a string) string {
	if a == "listener" {
		return "per listener (an entry naming a Gateway's listener counts as the Gateway's)"
	}
	return "per Gateway"
}

// Producer says which gepcheck ran: "Run by gepcheck VERSION, commit
// COMMIT, GOVERSION." (buildinfo.Info.String).
func (r *Results) Producer() string {
	if r.Gepcheck == "" {
		return "Run by a gepcheck that did not record its version (results written before it kept it)."
	}
	return "Run by " + r.Gepcheck + "."
}
