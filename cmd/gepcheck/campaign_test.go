package main

import (
	"testing"

	"github.com/gepcheck/gepcheck/suite/incluster"
)

// A shrunk random case is numbered in its campaign by the seed it was
// drawn with (Shrunk.Seed), whatever its file is called.
func TestClusterCampaignCase(t *testing.T) {
	sum := &incluster.Summary{RandomProfile: "color-inherited", Seed: 10, Random: 5,
		Shrunk: []incluster.Shrunk{{From: "/tmp/d/case.yaml", Kind: "condition", Seed: 13, File: "/tmp/d/shrunk.yaml"}}}
	c := clusterCampaign(sum, 5, "local", "reference", nil)
	if len(c.Findings) != 1 || c.Findings[0].Case != 3 {
		t.Fatalf("findings %+v, want one of case 3", c.Findings)
	}
}
