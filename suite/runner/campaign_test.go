package runner

import (
	"testing"

	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/incluster"
)

// A shrunk random case is numbered in its campaign by the seed it was
// drawn with (Shrunk.Seed), whatever its file is called; the campaign's
// disagreements are its random cases that failed (Plan.Random), not the
// scenario files'.
func TestClusterCampaignCase(t *testing.T) {
	sum := &incluster.Summary{RandomProfile: "color-inherited", Seed: 10, Random: 5,
		Results: []incluster.Result{
			{Plan: &incluster.Plan{File: "/tmp/d/case.yaml", Random: true}, Outcome: incluster.Fail},
			{Plan: &incluster.Plan{File: "/tmp/d/other.yaml", Random: true}, Outcome: incluster.Pass},
			{Plan: &incluster.Plan{File: "scenarios/random-looking.yaml"}, Outcome: incluster.Fail},
		},
		Shrunk: []incluster.Shrunk{{From: "/tmp/d/case.yaml", Kind: compare.Found{Kind: "condition"}, Seed: 13, File: "/tmp/d/shrunk.yaml"}}}
	c := Campaign(sum, 5, "local", "reference", nil)
	if len(c.Findings) != 1 || c.Findings[0].Case != 3 || c.Disagreed != 1 {
		t.Fatalf("%d disagreed, findings %+v; want 1, one of case 3", c.Disagreed, c.Findings)
	}
}
