package check

import (
	"strings"
	"testing"
)

// The floors TestLocalAdmission holds its random cases to fail on each
// planted fault: a count under its floor, scaled to the cases run, and no
// case at all.
func TestCoverageBelow(t *testing.T) {
	measured := Coverage{Cases: 200, Called: 115, Ordered: 38, Reinvoked: 10, Refused: 45}
	if b := measured.Below(Floors); len(b) > 0 {
		t.Errorf("the measured coverage is under the floors: %v", b)
	}
	for _, tc := range []struct {
		name string
		c    Coverage
		says string
	}{
		{"no hook called", Coverage{Cases: 200, Ordered: 38, Reinvoked: 10, Refused: 45}, "0 of 200 cases with a hook called, want at least 75"},
		{"never ordered", Coverage{Cases: 200, Called: 115, Ordered: 24, Reinvoked: 10, Refused: 45}, "24 of 200 cases with two mutating hooks called or more, want at least 25"},
		{"never reinvoked", Coverage{Cases: 200, Called: 115, Ordered: 38, Refused: 45}, "with a hook reinvoked, want at least 6"},
		{"never refused", Coverage{Cases: 200, Called: 115, Ordered: 38, Reinvoked: 10}, "0 of 200 cases refused"},
		{"scaled to 40 cases", Coverage{Cases: 40, Called: 14, Ordered: 5, Reinvoked: 1, Refused: 6}, "14 of 40 cases with a hook called, want at least 15"},
		{"scaled to 10 cases, at least 1", Coverage{Cases: 10, Called: 5, Ordered: 2, Refused: 2}, "0 of 10 cases with a hook reinvoked, want at least 1"},
		{"no case", Coverage{}, "no random case"},
	} {
		b := tc.c.Below(Floors)
		if !strings.Contains(strings.Join(b, "\n"), tc.says) {
			t.Errorf("%s: %v, want %q", tc.name, b, tc.says)
		}
	}
}

// Each count of Add has its case: a validating hook alone is called, two
// mutating hooks are ordered, one called twice is reinvoked, a refusal
// refused; nothing called counts only the case.
func TestCoverageAdd(t *testing.T) {
	var c Coverage
	for _, r := range []Result{
		{Observed: []string{"|"}, Allowed: true},
		{Observed: []string{"|", "v"}, Allowed: true},
		{Observed: []string{"a", "b", "|"}, Allowed: true},
		{Observed: []string{"a", "b", "a", "|"}},
	} {
		c.Add(r)
	}
	if want := (Coverage{Cases: 4, Called: 3, Ordered: 2, Reinvoked: 1, Refused: 1}); c != want {
		t.Errorf("coverage %+v, want %+v", c, want)
	}
}
