package main

import (
	"bytes"
	"strings"
	"testing"
)

// simulate --impl and explain --impl: the reference as an implementation
// agrees with itself and says which reading produced the reference side;
// an implementation whose translator needs a cluster, an output --impl
// does not print, and explain --impl without --target are exit 2 with the
// reason.
func TestSimulateImpl(t *testing.T) {
	const file = "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml"
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"simulate", "--impl", "reference", "-f", file}, 0, "reference reading, as reference claims it: semantics sticky-overrides; status vocabulary merged; ancestor entries gateway"},
		{[]string{"simulate", "--impl", "reference", "-f", file, "--semantics", "gep713", "-o", "json"}, 0, `"semantics": "gep-713"`},
		{[]string{"simulate", "--impl", "reference", "-f", file}, 0, "0 difference(s), 0 with no kept finding (new)"},
		{[]string{"explain", "--impl", "reference", "-f", file, "--target", "HTTPRoute/default/r1"}, 0, "color  \"blue\"  ColorPolicy/default/p2"},
		{[]string{"simulate", "--impl", "contour", "-f", file}, 2, "--impl contour: its translator needs a cluster"},
		{[]string{"simulate", "--impl", "reference", "-f", file, "-o", "dot"}, 2, "--output dot with --impl: one of table, json, yaml"},
		{[]string{"explain", "--impl", "reference", "-f", file, "--policy", "ColorPolicy/default/p1"}, 2, "--impl with explain: pass --target"},
		{[]string{"simulate", "--impl", "nosuch", "-f", file}, 2, `--impl "nosuch"`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String()+stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, want %d and %q in:\n%s%s", tc.args, code, tc.code, tc.want, stdout.String(), stderr.String())
		}
	}
}
