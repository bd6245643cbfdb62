package render

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// wideSample is three policies with one-line JSON specs of about 600
// characters, the tables issue 31 measured at 557–653 columns.
func wideSample() *simulator.Output {
	out := &simulator.Output{Semantics: engine.StickyOverrides, StatusVocabulary: engine.VocabularyMerged, Profiles: []string{"envoy-gateway-backendtrafficpolicy"}}
	for i := range 3 {
		spec := map[string]any{}
		prov := map[string]string{}
		p := fmt.Sprintf("BackendTrafficPolicy/default/policy-%d", i)
		for f := range 20 {
			field := fmt.Sprintf("field%02d", f)
			spec[field] = map[string]any{"requestTimeout": fmt.Sprintf("%ds", f)}
			prov[field+".requestTimeout"] = p
		}
		out.EffectivePolicies = append(out.EffectivePolicies, engine.EffectivePolicy{
			PolicyKind: "BackendTrafficPolicy",
			Path:       []string{"Gateway/default/gw", "Gateway/default/gw#http", fmt.Sprintf("HTTPRoute/default/route-%d", i), fmt.Sprintf("HTTPRoute/default/route-%d#rule-1", i)},
			Spec:       spec,
			Provenance: prov,
			Policies:   []string{p},
		})
		out.Policies = append(out.Policies, engine.PolicyStatus{
			Ref:      p,
			Strategy: "Atomic defaults",
			Conditions: []engine.Condition{
				cond(engine.TypeAccepted, "True", "Accepted", "Policy has been accepted"),
				cond(engine.TypeProgrammed, "True", "PartiallyProgrammed", "Atomic defaults: fully programmed on 2 of 3 paths; superseded: timeout.http.requestTimeout by BackendTrafficPolicy/default/p-route on 1 path"),
			},
		})
	}
	return out
}

// Docs/output.md, Tables: the default table fits 120 columns; -o wide
// prints every cell in full, one row a line.
func TestTableFitsWidth(t *testing.T) {
	out := wideSample()
	var b bytes.Buffer
	if err := Simulation(&b, out); err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > Width {
			t.Errorf("line %d is %d columns: %q", i+1, n, l)
		}
	}
	// Each spec is cut at four lines, the last saying where the rest is.
	if n := strings.Count(b.String(), "… (-o wide)"); n < 3 {
		t.Errorf("%d cells summarized, want at least the three specs:\n%s", n, b.String())
	}
	var w bytes.Buffer
	if err := SimulationTable(&w, out, TableOptions{Wide: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(w.String(), "\n")
	// Title, header, then one line per effective policy, in full.
	for i := range 3 {
		l := lines[2+i]
		if !strings.HasPrefix(l, "BackendTrafficPolicy  Gateway/default/gw > ") || !strings.Contains(l, compact(out.EffectivePolicies[i].Spec)) || utf8.RuneCountInString(l) < 557 {
			t.Errorf("wide row %d is not the full row (%d columns): %q", i, utf8.RuneCountInString(l), l)
		}
	}
	if lines[5] != "" {
		t.Errorf("a wide row spans lines: %q", lines[5])
	}
}

// --no-headers leaves out the section titles and the column headers, as
// kubectl's does; the rows are those of the table.
func TestTableNoHeaders(t *testing.T) {
	var b bytes.Buffer
	if err := SimulationTable(&b, sample(), TableOptions{NoHeaders: true}); err != nil {
		t.Fatal(err)
	}
	checkLines(t, b.String(), []string{
		`CP  G/n/g > R/n/r > S/n/b  {"color":"blue"}          color←CP/n/p2`,
		`CP  G/n/g > S/n/c          {"color":"red","size":1}  color←CP/n/p1 size←CP/n/p1`,
		"",
		"CP/n/p1  Atomic defaults  True/Accepted  True/PartiallyEnforced  beaten by CP/n/p2 on 1 path",
		"CP/n/p2  -                False/Invalid  -                       spec.color: must be a string",
		"CP/n/p3  -                -/-            -                       ",
		"",
		"S/n/b  CPAffected=True              CP/n/p1, CP/n/p2",
		"S/n/c  CPAffected=True,Other=False  CP/n/p1",
		"",
		"R/n/x: parent G/n/y not found",
	})
}

func TestWrapCell(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		limit int
		want  []string
	}{
		// A path breaks before " > ", so the next step starts its line.
		{"Gateway/default/g1 > HTTPRoute/default/r1 > Service/default/b1", 45, 0, []string{"Gateway/default/g1 > HTTPRoute/default/r1", "> Service/default/b1"}},
		// JSON after a comma or a colon.
		{`{"a":"xxxxxxxx","b":"yyyyyyyy"}`, 18, 0, []string{`{"a":"xxxxxxxx",`, `"b":"yyyyyyyy"}`}},
		// No break in the second half: cut at the width.
		{"abcdefghijklmnop", 6, 0, []string{"abcdef", "ghijkl", "mnop"}},
		// Past the limit, the last line points at -o wide.
		{"a b c d e f g h", 2, 3, []string{"a", "b", "… (-o wide)"}},
		{"fits", 4, 1, []string{"fits"}},
	} {
		got := wrapCell(tc.in, tc.width, tc.limit, false)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("wrapCell(%q, %d, %d) = %q, want %q", tc.in, tc.width, tc.limit, got, tc.want)
		}
		if whole := wrapCell(tc.in, tc.width, tc.limit, true); len(whole) != 1 || whole[0] != tc.in {
			t.Errorf("wide wrapCell(%q) = %q", tc.in, whole)
		}
	}
}

// -o name prints kubectl's kind/name, the kind in lower case.
func TestNames(t *testing.T) {
	var b bytes.Buffer
	if err := Names(&b, []string{"ColorPolicy/default/p1", "BackendTLSPolicy/team-a/tls#x", "GatewayClass/eg"}); err != nil {
		t.Fatal(err)
	}
	checkLines(t, b.String(), []string{"colorpolicy/p1", "backendtlspolicy/tls", "gatewayclass/eg"})
	if err := Names(&b, []string{"nonsense"}); err == nil {
		t.Error("a ref that does not parse printed")
	}
}

// explain's listings fit Width too: a long line is wrapped, indented
// past its own indent; wide keeps it.
func TestExplainFits(t *testing.T) {
	out := wideSample()
	x := &simulator.PolicyExplanation{Policy: out.Policies[0].Ref, Reading: out.Reading(), Status: out.Policies[0], StackedOn: 1, InEffectOn: out.EffectivePolicies[:1], IfDeleted: []simulator.Change{{Path: out.EffectivePolicies[0].Path, Before: out.EffectivePolicies[0].Spec, Fields: []string{"field00.requestTimeout"}}}}
	var b, w bytes.Buffer
	if err := Policy(&b, x); err != nil {
		t.Fatal(err)
	}
	if err := PolicyTable(&w, x, TableOptions{Wide: true}); err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > Width {
			t.Errorf("line %d is %d columns: %q", i+1, n, l)
		}
	}
	// Wrapping only moves text: without white space, the two are equal.
	if strings.Join(strings.Fields(b.String()), "") != strings.Join(strings.Fields(w.String()), "") {
		t.Errorf("the wrapped explanation says something else than the wide one:\n%s\n---\n%s", b.String(), w.String())
	}
	if !strings.Contains(w.String(), compact(out.EffectivePolicies[0].Spec)) {
		t.Errorf("wide explanation lacks the spec in full:\n%s", w.String())
	}
}
