package incluster

import (
	"testing"

	"github.com/gepcheck/gepcheck/suite/compare"
)

// A step's status that flips between two sets of differences is judged
// (a disagreement); one that changed but never came back may be a
// controller still converging, and is not (docs/cluster.md, Waiting).
func TestDiffHistory(t *testing.T) {
	a := []compare.Difference{{Kind: compare.PolicyCondition, Ref: "BackendTLSPolicy/default/p", Condition: "Accepted"}}
	b := []compare.Difference{{Kind: compare.PolicyCondition, Ref: "BackendTLSPolicy/default/q", Condition: "Accepted"}}
	c := []compare.Difference{{Kind: compare.PolicyCondition, Ref: "BackendTLSPolicy/default/r", Condition: "Accepted"}}
	for _, tc := range []struct {
		name string
		seq  [][]compare.Difference
		want bool
	}{
		{"one set", [][]compare.Difference{a}, false},
		{"converging", [][]compare.Difference{a, b, c}, false},
		{"flipping", [][]compare.Difference{a, b, a}, true},
		{"flipping late", [][]compare.Difference{c, a, b, a}, true},
	} {
		var h diffHistory
		for _, d := range tc.seq {
			h.observe(d)
		}
		if h.recurred != tc.want {
			t.Errorf("%s: recurred %v, want %v", tc.name, h.recurred, tc.want)
		}
	}
	var h diffHistory
	for i := range 2 * maxDiffHistory {
		h.observe([]compare.Difference{{Kind: compare.PolicyCondition, Ref: string(rune('a' + i%26)), Condition: string(rune('A' + i/26))}})
	}
	if len(h.sets) != maxDiffHistory {
		t.Errorf("history of %d sets, want at most %d", len(h.sets), maxDiffHistory)
	}
}
