package simulator

import "testing"

// Unknown names get the closest known one when it is a typo away, and none
// when nothing is close.
func TestDidYouMean(t *testing.T) {
	names := []string{"color-direct", "color-inherited", "ColorPolicy/default/p1", "ColorPolicy/default/p2"}
	for _, tc := range []struct{ name, want string }{
		{"color-inheritd", `; did you mean "color-inherited"?`},
		{"ColorPolicy/default/p9", `; did you mean "ColorPolicy/default/p1"?`},
		{"ColorPolicy/default/zzzzzzzz", ""},
		{"x", ""},
		{"color-direct", ""},
	} {
		if got := didYouMean(tc.name, names); got != tc.want {
			t.Errorf("didYouMean(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
