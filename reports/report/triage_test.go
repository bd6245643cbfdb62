package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/findings"
)

// TestKnownApartFromRegressions: in Envoy Gateway v1.9.1's published
// offline results every failed case is a kept finding that shows exactly
// its recorded differences, and every report format says so with the
// finding's triage and upstream links; a planted case whose differences
// differ from its finding's, and a campaign finding of a kind no kept
// finding has, are regressions in every format (issue 30, Deliver 5).
func TestKnownApartFromRegressions(t *testing.T) {
	t.Chdir("../..")
	r, err := report.ReadResults("reports/envoy-gateway/v1.9.1/results-offline.json")
	if err != nil {
		t.Fatal(err)
	}
	planted := -1
	for i, c := range r.Cases {
		if c.Outcome == report.Failed && len(c.Diff) > 1 {
			planted = i
			r.Cases[i].Diff, r.Cases[i].Differences = c.Diff[:1], c.Differences[:1]
			break
		}
	}
	if planted < 0 {
		t.Fatal("no failed case with two differences to plant a change in")
	}
	// A failed case of results that keep no typed differences (written
	// before they were kept) is neither known nor a regression.
	untyped := -1
	for i, c := range r.Cases {
		if i != planted && c.Outcome == report.Failed {
			untyped = i
			r.Cases[i].Diff = nil
			break
		}
	}
	var camp *report.Campaign
	for i := range r.Campaigns {
		if r.Campaigns[i].Profile == "envoy-gateway-backendtrafficpolicy" && r.Campaigns[i].Steps == 0 {
			camp = &r.Campaigns[i]
		}
	}
	if camp == nil {
		t.Fatal("no BackendTrafficPolicy campaign in the published results")
	}
	camp.Findings = append(camp.Findings, report.CampaignFinding{Kind: compare.Found{Kind: "planted-kind"}, Case: 999, Differences: []string{"planted"}},
		// A kind first seen after a step is known by the same kind at
		// creation (MarkKnown), read as a value, not off its name.
		report.CampaignFinding{Kind: compare.Found{Kind: "conflicted", AfterStep: true}, Case: 998, Differences: []string{"after"}},
		report.CampaignFinding{Kind: compare.Found{Kind: "planted-kind", AfterStep: true}, Case: 997, Differences: []string{"planted after"}})
	if err := report.MarkKnown(r, "scenarios/findings"); err != nil {
		t.Fatal(err)
	}
	failed, stale := 0, 0
	for i, c := range r.Cases {
		if c.Outcome != report.Failed {
			if len(c.Known) > 0 {
				t.Errorf("%s %s: known %v", c.Name, c.Outcome, c.Known)
			}
			continue
		}
		failed++
		if i == untyped {
			if len(c.Known) != 0 || c.Regression(r.KnownFrom) || c.KnownVerdict(r.KnownFrom) != report.Unmatched {
				t.Errorf("%s without typed differences: known %v, regression %v", c.Name, c.Known, c.Regression(r.KnownFrom))
			}
			continue
		}
		if i == planted {
			if len(c.Known) != 0 || !c.Regression(r.KnownFrom) {
				t.Errorf("planted %s: known %v, want a regression", c.Name, c.Known)
			}
			continue
		}
		// A published result that no longer shows exactly its kept
		// finding's differences (the finding was updated after the
		// report was written) is a regression until the report is
		// written again: MarkKnown must agree with findings.Verify.
		want, isFinding := strings.CutPrefix(c.File, "scenarios/findings/")
		if !isFinding {
			// A catalogue case that fails is known when it shows
			// exactly some kept finding's differences, else a
			// regression: either way never both.
			if len(c.Known) > 0 == c.Regression(r.KnownFrom) {
				t.Errorf("catalogue case %s: known %v, regression %v", c.Name, c.Known, c.Regression(r.KnownFrom))
			}
			continue
		}
		if _, err := findings.Verify(c.File, c.Diff); err != nil {
			if len(c.Known) != 0 || !c.Regression(r.KnownFrom) {
				t.Errorf("%s does not reproduce its finding (%v), yet known %v", c.Name, err, c.Known)
			}
			stale++
			continue
		}
		if len(c.Known) != 1 || c.Known[0].Finding != want || c.Known[0].Verdict == "" {
			t.Errorf("%s: known %v, want %s with its triage", c.Name, c.Known, want)
		}
	}
	if failed < 10 || failed-stale < 10 {
		t.Fatalf("only %d failed cases, %d of them known", failed, failed-stale)
	}
	afterStep := 0
	for _, f := range camp.Findings {
		if f.Kind.AfterStep {
			afterStep++
		}
		switch {
		case f.Kind.Kind == "planted-kind" && len(f.Known) != 0:
			t.Errorf("planted kind %s: known %v", f.Kind, f.Known)
		case f.Kind.Kind == "conflicted" && (len(f.Known) != 1 || f.Known[0].Finding != "envoy-gateway/envoy-gateway-backendtrafficpolicy-conflicted.yaml"):
			t.Errorf("%s: known %v", f.Kind, f.Known)
		}
	}
	if afterStep != 2 {
		t.Errorf("%d findings after a step, want the 2 planted", afterStep)
	}
	name := r.Cases[planted].Name
	md := string(report.Markdown([]*report.Results{r}))
	yml, err := report.MarshalConformanceReport(report.ConformanceReport(r))
	if err != nil {
		t.Fatal(err)
	}
	back, err := report.DecodeConformanceReport(yml)
	if err != nil {
		t.Fatal(err)
	}
	var tests []string
	for _, p := range back.ProfileReports {
		tests = append(tests, p.Core.FailedTests...)
	}
	failedTests := strings.Join(tests, "\n")
	junit, err := report.JUnit(r)
	if err != nil {
		t.Fatal(err)
	}
	html, err := report.HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ format, text, want string }{
		{"Markdown", md, "  - known: `envoy-gateway/envoy-gateway-backendtrafficpolicy-condition.yaml`, contradicts-must GEP-2649-023, https://github.com/envoyproxy/gateway/issues/8926"},
		{"Markdown", md, "  - **regression**: no kept finding in scenarios/findings shows these differences"},
		{"Markdown", md, "Third-party results"},
		{"Markdown", md, "  - " + report.Unmatched + "\n"},
		{"Markdown", md, "Reading: semantics sticky-overrides"},
		{"ConformanceReport", failedTests, "envoy-gateway-backendtrafficpolicy-condition.yaml (known: envoy-gateway/envoy-gateway-backendtrafficpolicy-condition.yaml, contradicts-must GEP-2649-023, https://github.com/envoyproxy/gateway/issues/8926"},
		{"ConformanceReport", failedTests, name + " (regression: "},
		{"ConformanceReport", failedTests, "planted-kind (regression: "},
		{"ConformanceReport", string(yml), "Third-party results"},
		{"JUnit", string(junit), `type="regression"`},
		{"JUnit", string(junit), `type="known-finding"`},
		{"JUnit", string(junit), `name="standing" value="Third-party results`},
		{"HTML", string(html), `<span class="badge regression">regression</span>`},
		{"HTML", string(html), `<span class="badge known">known</span> <code>envoy-gateway/envoy-gateway-backendtrafficpolicy-condition.yaml</code>, contradicts-must GEP-2649-023, <a href="https://github.com/envoyproxy/gateway/issues/8926">`},
		{"HTML", string(html), "Third-party results"},
	} {
		if !strings.Contains(tc.text, tc.want) {
			t.Errorf("%s lacks %q", tc.format, tc.want)
		}
	}
}

// A kept finding of a cluster run (spec.implementation
// "cluster-PROFILE") triages the same kind found again in a cluster, for
// its implementation only.
func TestPrintKnownClusterFinding(t *testing.T) {
	var b bytes.Buffer
	report.PrintTriage(&b, "../../scenarios/findings", "contour", "backendtlspolicy-gateway-api", []compare.Found{{Kind: "conflicted"}})
	if !strings.Contains(b.String(), "contradicts-must GEP-713-027 (contour/") {
		t.Errorf("Contour's kept finding not matched:\n%s", b.String())
	}
	b.Reset()
	report.PrintTriage(&b, "../../scenarios/findings", "envoy-gateway", "backendtlspolicy-gateway-api", []compare.Found{{Kind: "conflicted"}})
	if strings.Contains(b.String(), "contour/") {
		t.Errorf("another implementation's finding matched:\n%s", b.String())
	}
}
