package report

import (
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/suite/compare"
)

// Implementations side by side: a case one of them did not run shows
// "—", random cases of a campaign are counted in its row, and each kind
// of difference has a row. Rows are scenario files: an offline run names
// its case by file and a cluster run by scenario name, and two findings
// of different implementations may share a name. Each column says the
// status vocabulary its implementation claims (the draft's for results
// that predate the claim), and that it is moot where only Accepted is
// compared.
func TestCompare(t *testing.T) {
	ref := &Results{Implementation: Implementation{Project: "gepcheck-reference", Version: "main"}, Mode: "cluster-local", StatusVocabulary: "merged",
		Cases: []CaseResult{{Name: "a", File: "s/a.yaml", Outcome: Passed}, {Name: "b", File: "x/b.yaml", Outcome: Passed},
			{Name: "f", File: "f/contour/f.yaml", Outcome: Passed}, {Name: "f", File: "f/traefik/f.yaml", Outcome: Passed}}}
	c := &Results{Implementation: Implementation{Project: "contour", Version: "v1.33.8", Features: []string{"BackendTLSPolicy"}}, Mode: "cluster-local", StatusVocabulary: "merged", Conditions: []string{"Accepted"},
		Cases:     []CaseResult{{Name: "a", File: "s/a.yaml", Outcome: Failed}, {Name: "random-p-7", Outcome: Failed}, {Name: "f", File: "f/contour/f.yaml", Outcome: Failed}},
		Campaigns: []Campaign{{Kind: "BackendTLSPolicy", Profile: "p", Seed: 7, Checks: 1, Disagreed: 1, Findings: []CampaignFinding{{Kind: compare.Found{Kind: "conflicted"}}}}}}
	// Offline, a case is named by its file.
	eg := &Results{Implementation: Implementation{Project: "envoy-gateway", Version: "v1.9.1", Features: []string{"BackendTLSPolicy"}}, Mode: "offline",
		Cases: []CaseResult{{Name: "s/a.yaml", File: "s/a.yaml", Outcome: Passed}}}
	got := string(Compare([]*Results{ref, c, eg}, nil))
	for _, want := range []string{
		"| | gepcheck-reference main (cluster-local) | contour v1.33.8 (cluster-local) | envoy-gateway v1.9.1 (offline) |",
		"| claims | all features | BackendTLSPolicy | BackendTLSPolicy |",
		"| status vocabulary | merged | merged (only Accepted compared) | draft |",
		"| `s/a.yaml` | pass | **fail** | pass |",
		"| `x/b.yaml` | pass | — | — |",
		"| `f/contour/f.yaml` | pass | **fail** | — |",
		"| `f/traefik/f.yaml` | pass | — | — |",
		"| random BackendTLSPolicy cases (p) | — | 1 of 1 disagree (seed 7) | — |",
		"| random BackendTLSPolicy cases (p): `conflicted` | — | found | — |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("page lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "random-p-7") {
		t.Errorf("a random case is listed on its own:\n%s", got)
	}
	if got := string(Compare([]*Results{ref, c}, []string{"s/"})); strings.Contains(got, "b.yaml") || !strings.Contains(got, "a.yaml") {
		t.Errorf("--under s/ keeps b or drops a:\n%s", got)
	}
}
