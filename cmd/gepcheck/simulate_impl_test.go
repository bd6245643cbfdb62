package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/internal/exitcode"
)

// simulate --impl and explain --impl: the reference as an implementation
// agrees with itself and says which reading produced the reference side;
// an implementation whose translator needs a cluster, an output --impl
// does not print, and explain --impl without --target are exit 2 with the
// reason.
func TestSimulateImpl(t *testing.T) {
	const file = "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml"
	const tls = "../../scenarios/gateway-api/backendtlspolicy-missing-ca.yaml"
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"simulate", "--impl", "reference", "-f", file, "-o", "wide"}, 0, "reference reading, as reference claims it: semantics sticky-overrides; status vocabulary merged; ancestor entries gateway"},
		{[]string{"simulate", "--impl", "reference", "-f", file, "--semantics", "gep713", "-o", "json"}, 0, `"semantics": "gep-713"`},
		{[]string{"simulate", "--impl", "reference", "-f", file, "-o", "wide"}, 0, "0 difference(s), 0 with no kept finding (new)"},
		{[]string{"explain", "--impl", "reference", "-f", file, "--target", "HTTPRoute/default/r1", "-o", "wide"}, 0, "color  \"blue\"  ColorPolicy/default/p2"},
		{[]string{"explain", "--impl", "reference", "-f", file, "--target", "httproute/r1", "-n", "default", "-o", "wide"}, 0, "color  \"blue\"  ColorPolicy/default/p2"},
		{[]string{"simulate", "--impl", "contour", "-f", file}, 2, "--impl contour: its translator needs a cluster"},
		{[]string{"simulate", "--impl", "reference", "-f", file, "-o", "dot"}, 2, "--output dot with --impl: one of table, wide, json, yaml"},
		// explain --impl --policy: p1's color, beaten by p2's on the path
		// through r1 (GEP-713, Example 2), on both sides.
		{[]string{"explain", "--impl", "reference", "-f", file, "--policy", "ColorPolicy/p1", "-n", "default", "-o", "wide"}, 0, `color  "red"  not applied: the value of ColorPolicy/default/p2 (shows "blue")  not applied: from ColorPolicy/default/p2`},
		{[]string{"explain", "--impl", "reference", "-f", file, "--policy", "ColorPolicy/default/p1", "-o", "yaml"}, 0, "reference: applied\n  referenceFrom: ColorPolicy/default/p1\n  value: red"},
		{[]string{"explain", "--impl", "reference", "-f", file, "--policy", "ColorPolicy/default/p1", "-o", "json"}, 0, "\"implementation\": \"applied\",\n      \"observed\": \"red\","},
		{[]string{"explain", "--impl", "reference", "-f", file, "--policy", "ColorPolicy/default/nosuch"}, 2, "--policy: no policy ColorPolicy/default/nosuch"},
		// -k: the kustomization rendered (namespace prod, p1 patched to
		// blue: docs/examples/kustomize), as simulate reads it.
		{[]string{"simulate", "--impl", "reference", "-k", "../../docs/examples/kustomize/overlays/prod", "--profile", "color-inherited", "-o", "wide"}, 0, `Gateway/prod/g1 > HTTPRoute/prod/r1 > Service/prod/b1  {"color":"blue"}  {"color":"blue"}  =`},
		{[]string{"simulate", "--impl", "reference"}, 2, "no input: pass -f FILE, -f DIR, -f -, -k DIR or --from-cluster"},
		// --ancestor-entries overrides the claim, and the first line says
		// so; the reference side then writes an entry per listener
		// (Gateway API PolicyAncestorStatus; docs/semantics.md).
		{[]string{"simulate", "--impl", "reference", "-f", tls, "--ancestor-entries", "listener", "-o", "wide"}, 0, "reference reading, as reference claims it except where overridden: semantics sticky-overrides; status vocabulary merged; ancestor entries listener (overridden by --ancestor-entries; reference claims gateway)"},
		{[]string{"simulate", "--impl", "reference", "-f", tls, "--ancestor-entries", "listener", "-o", "wide"}, 0, "BackendTLSPolicy/default/good-ca@Gateway/default/gw#http     Accepted  "},
		{[]string{"simulate", "--impl", "reference", "-f", tls, "--ancestor-entries", "listener", "-o", "json"}, 0, `"flag": "--ancestor-entries"`},
		{[]string{"explain", "--impl", "reference", "-f", tls, "--ancestor-entries", "listener", "--target", "Service/default/svc", "-o", "wide"}, 0, "ancestor entries listener (overridden by --ancestor-entries; reference claims gateway)"},
		{[]string{"simulate", "--impl", "reference", "-f", tls, "--ancestor-entries", "gateway", "-o", "wide"}, 0, "(reference reading, as reference claims it: semantics sticky-overrides; status vocabulary merged; ancestor entries gateway;"},
		{[]string{"simulate", "--impl", "reference", "-f", tls, "--ancestor-entries", "section"}, 2, "--ancestor-entries: unknown ancestor entries"},
		{[]string{"simulate", "--impl", "nosuch", "-f", file}, 2, `--impl "nosuch"`},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String()+stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, want %d and %q in:\n%s%s", tc.args, code, tc.code, tc.want, stdout.String(), stderr.String())
		}
	}
}

// simulate --impl and explain --impl print their tables as simulate does
// (docs/output.md): within 120 columns, every cell in full with -o wide
// (wider, on this input), no header lines with --no-headers.
func TestSimulateImplTables(t *testing.T) {
	const tls = "../../scenarios/gateway-api/backendtlspolicy-missing-ca.yaml"
	for _, args := range [][]string{
		{"simulate", "--impl", "reference", "-f", tls, "--ancestor-entries", "listener"},
		{"explain", "--impl", "reference", "-f", tls, "--ancestor-entries", "listener", "--policy", "BackendTLSPolicy/default/good-ca"},
	} {
		widest := func(extra ...string) (int, string) {
			var stdout, stderr bytes.Buffer
			if code := run(append(append([]string{}, args...), extra...), strings.NewReader(""), &stdout, &stderr); code != exitcode.OK {
				t.Fatalf("%v %v: exit %d: %s", args, extra, code, stderr.String())
			}
			n := 0
			for _, l := range strings.Split(stdout.String(), "\n") {
				n = max(n, len([]rune(l)))
			}
			return n, stdout.String()
		}
		if n, out := widest(); n > 120 {
			t.Errorf("%v: a line of %d columns, want at most 120:\n%s", args, n, out)
		}
		if n, out := widest("-o", "wide"); n <= 120 {
			t.Errorf("%v -o wide: at most %d columns, want the cells in full (wider):\n%s", args, n, out)
		}
		if _, out := widest("--no-headers"); strings.Contains(out, "PATH ") || strings.Contains(out, "BESIDE THE REFERENCE") || strings.Contains(out, "FIELD BY FIELD") {
			t.Errorf("%v --no-headers: a header line in:\n%s", args, out)
		}
	}
}
