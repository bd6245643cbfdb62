package compare

import (
	"slices"
	"testing"
)

// The kinds of the fault oracles (docs/faults.md) are kinds of their own,
// printed with what they compared, and keyed by path or condition.
func TestFaultKinds(t *testing.T) {
	ds := []Difference{
		{Kind: Flapping, Ref: "ColorPolicy/ns/a@Gateway/ns/gw", Condition: "Accepted", Want: "True/Accepted", Got: "False/Conflicted"},
		{Kind: NotConvergent, Ref: "ColorPolicy/ns/a", Condition: "Accepted", Want: "True/Accepted"},
		{Kind: NotConvergent, Path: []string{"Gateway/ns/gw", "l"}, Want: map[string]any{"color": "red"}},
		{Kind: HistoryDependent, Ref: "ColorPolicy/ns/a", Condition: "Accepted", Want: "True/Accepted", Got: "False/Conflicted"},
	}
	if got, want := Kinds(ds), []string{"flapping", "history-dependent", "not-convergent"}; !slices.Equal(got, want) {
		t.Errorf("Kinds = %q, want %q", got, want)
	}
	want := []string{
		"flapping: ColorPolicy/ns/a@Gateway/ns/gw Accepted flipped from True/Accepted to False/Conflicted during the quiet period",
		"not-convergent: ColorPolicy/ns/a Accepted: True/Accepted, then no such condition",
		`not-convergent: path Gateway/ns/gw > l: {"color":"red"}, then no effective policy`,
		"history-dependent: ColorPolicy/ns/a Accepted: True/Accepted, then False/Conflicted",
	}
	if got := Strings(ds); !slices.Equal(got, want) {
		t.Errorf("Strings =\n%q\nwant\n%q", got, want)
	}
	if ds[1].Key() == ds[2].Key() {
		t.Errorf("a condition and a path share the key %q", ds[1].Key())
	}
}
