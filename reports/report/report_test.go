package report

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/observe"
)

func sampleResults(t *testing.T) *Results {
	t.Helper()
	data, err := os.ReadFile("../../scenarios/gep-713/steps-direct-conflict-over-time.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return &Results{APIVersion: "gepcheck.dev/v1alpha1", Kind: ResultsKind,
		Implementation: Implementation{Name: "x", Organization: "o", Project: "p", URL: "https://example.com", Version: "v1", Contact: []string{"@o"}},
		Mode:           "offline", Semantics: "sticky-overrides", GatewayAPIVersion: "v1.6.3", GatewayAPIChannel: "experimental", Date: "2026-01-01T00:00:00Z",
		Cases: []CaseResult{
			{Name: "b", File: "b.yaml", Outcome: Failed, Features: []string{FeatureTargetRefs, FeaturePatchDefaults}, Differences: []string{"d"}, Scenario: string(data)},
			{Name: "a", File: "a.yaml", Outcome: Passed, Features: []string{FeatureTargetRefs}, Scenario: string(data)},
			{Name: "c", File: "c.yaml", Outcome: Skipped, Features: []string{FeatureTargetRefs, FeatureSectionName}},
		},
		Campaigns: []Campaign{{Kind: "K", Profile: "p", Seed: 1, Checks: 10, Disagreed: 2, Replay: "gepcheck fuzz", Findings: []CampaignFinding{{Kind: compare.Found{Kind: "conflicted"}, Case: 3, Differences: []string{"d"}}}}},
	}
}

// TestConformanceReportStrict: the ConformanceReport decodes strictly with
// Gateway API's own types (sigs.k8s.io/gateway-api/conformance/apis/v1),
// its statistics count the cases (core: every case; extended: those with
// an extended feature), and a field the upstream types do not have, or an
// implementation block without an organization, is refused.
func TestConformanceReportStrict(t *testing.T) {
	r := sampleResults(t)
	data, err := MarshalConformanceReport(ConformanceReport(r))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := DecodeConformanceReport(data)
	if err != nil {
		t.Fatal(err)
	}
	p := rep.ProfileReports[0]
	if p.Name != ProfileName || p.Core.Passed != 1 || p.Core.Failed != 1 || p.Core.Skipped != 1 || p.Extended.Failed != 1 || p.Extended.Skipped != 1 || p.Extended.Passed != 0 {
		t.Errorf("profile: %+v", p)
	}
	if got := p.Extended.SupportedFeatures; len(got) != 1 || got[0] != FeaturePatchDefaults {
		t.Errorf("supported features %v: want the one a case that ran exercised", got)
	}
	if c := rep.ProfileReports[1]; c.Name != RandomProfilePrefix+"K" || c.Core.Failed != 2 || c.Core.Passed != 8 || c.Core.FailedTests[0] != "conflicted" {
		t.Errorf("campaign profile: %+v", c)
	}
	if _, err := DecodeConformanceReport([]byte(strings.Replace(string(data), "mode: offline", "mode: offline\nextra: field", 1))); err == nil {
		t.Error("a field the upstream types do not have decodes")
	}
	if _, err := DecodeConformanceReport([]byte(regexp.MustCompile(`organization: o\n`).ReplaceAllString(string(data), ""))); err == nil {
		t.Error("an implementation without an organization decodes")
	}
}

// TestHTMLDrawsEveryNode: each case's diagram has a box (an SVG <g> with
// data-ref) for every target and every policy of its scenario, the failed
// case shows its scenario, and the page fetches nothing.
func TestHTMLDrawsEveryNode(t *testing.T) {
	r := sampleResults(t)
	page, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simulator.LoadFiles([]string{"-"}, strings.NewReader(r.Cases[0].Scenario), simulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := len(m.Graph.Nodes)
	for _, k := range m.Kinds {
		want += len(k.Policies)
	}
	for _, sec := range regexp.MustCompile(`(?s)<section class="case".*?</section>`).FindAllString(string(page), -1) {
		if !strings.Contains(sec, "<svg") {
			if strings.Contains(sec, `data-outcome="skipped"`) {
				continue // no scenario kept
			}
			t.Errorf("a case without a diagram: %.200s", sec)
			continue
		}
		if got := strings.Count(sec, `<g class="node `); got != want {
			t.Errorf("%d boxes, want %d (targets and policies)", got, want)
		}
	}
	if !strings.Contains(string(page), "<h3>Scenario</h3>") {
		t.Error("the failed case does not show its scenario")
	}
	// A link (the implementation's URL) is not a load; a src, a
	// stylesheet link or a CSS url() is.
	loads := regexp.MustCompile(`src="(https?:)?//|<link[^>]*href="(https?:)?//|url\((['"]?)(https?:)?//`)
	if m := loads.Find(page); m != nil {
		t.Errorf("the page loads something from the network: %s", m)
	}
	if !loads.MatchString(`<img src="https://example.com/x.png">`) {
		t.Error("the check for loads does not see an image from the network")
	}
	if strings.Contains(string(page), "<script") {
		t.Error("the page has a script")
	}
}

// TestMergeCampaigns: the shards of a random campaign merge into the
// unsharded one: checks and disagreements add up, and of each kind the
// finding of the first case is kept.
func TestMergeCampaigns(t *testing.T) {
	a, b := sampleResults(t), sampleResults(t)
	a.Cases, b.Cases = a.Cases[:1], a.Cases[1:]
	a.Shards, b.Shards = []string{"1/2"}, []string{"2/2"}
	a.Campaigns[0].Findings = []CampaignFinding{{Kind: compare.Found{Kind: "conflicted"}, Case: 4}, {Kind: compare.Found{Kind: "x"}, Case: 8}}
	b.Campaigns[0].Findings = []CampaignFinding{{Kind: compare.Found{Kind: "conflicted"}, Case: 3}}
	m, err := Merge([]*Results{b, a})
	if err != nil {
		t.Fatal(err)
	}
	c := m.Campaigns[0]
	if len(m.Cases) != 3 || c.Checks != 20 || c.Disagreed != 4 || len(c.Findings) != 2 || c.Findings[0].Case != 3 || c.Findings[1].Kind.Kind != "x" {
		t.Errorf("merged: %d cases, campaign %+v", len(m.Cases), c)
	}
	if _, err := Merge([]*Results{a, a}); err == nil {
		t.Error("a shard merged with itself")
	}
}

// TestMatrix: the page over versions orders them as versions (v1.10 after
// v1.9), marks each case's outcome, and says what changed between two.
func TestMatrix(t *testing.T) {
	a, b := sampleResults(t), sampleResults(t)
	a.Implementation.Version, b.Implementation.Version = "v1.10.0", "v1.9.0"
	a.Cases[0].Outcome = Passed // b fails it
	page := string(Matrix([]*Results{a, b}))
	if i, j := strings.Index(page, "[v1.9.0]"), strings.Index(page, "[v1.10.0]"); i < 0 || j < i {
		t.Errorf("versions out of order:\n%s", page)
	}
	if !strings.Contains(page, "- v1.9.0 → v1.10.0: `b`: failed → passed.") {
		t.Errorf("no change line:\n%s", page)
	}
	if !strings.Contains(page, "| `K conflicted` | found | found |") {
		t.Errorf("no kind row:\n%s", page)
	}
}

// TestModesValidate: every mode a run of gepcheck writes reads back
// (Results.Validate), the suite/conformance test suite's "cluster" too.
func TestModesValidate(t *testing.T) {
	for _, mode := range []string{"offline", "cluster", "cluster-local", "cluster-kind", "cluster-kubeconfig"} {
		r := NewResults(Implementation{Name: "x", Version: "v1"}, mode, "gep713", observe.Capabilities{})
		if err := r.Validate(); err != nil {
			t.Errorf("mode %s: %v", mode, err)
		}
	}
}
