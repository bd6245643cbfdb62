package render

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// The inputs below are built by hand with short names (CP is a policy kind,
// G/R/S a Gateway, a route and a Service in namespace n) so that the
// expected tables, also written by hand, can be counted column by column.
// Expected lines are quoted strings so that trailing padding stays visible.

// checkLines compares got with the expected lines (each followed by a
// newline), reporting the first line that differs.
func checkLines(t *testing.T, got string, want []string) {
	t.Helper()
	w := strings.Join(want, "\n") + "\n"
	if got == w {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(w, "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, x string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			x = wl[i]
		}
		if g != x {
			t.Errorf("line %d:\n got %q\nwant %q", i+1, g, x)
			break
		}
	}
	t.Errorf("full output:\n%s", got)
}

func cond(typ, status, reason, msg string) engine.Condition {
	return engine.Condition{Type: typ, Status: status, Reason: reason, Message: msg}
}

// sample has every section of the simulate table: two effective policies
// (paths of three and two elements, a spec of two fields), a policy with
// Accepted and Enforced, an invalid one without a strategy, one without
// conditions, two targets and a warning.
func sample() *simulator.Output {
	return &simulator.Output{
		Semantics:        engine.GEP713,
		StatusVocabulary: engine.VocabularyDraft,
		Profiles:         []string{"cp", "cp2"},
		EffectivePolicies: []engine.EffectivePolicy{
			{
				PolicyKind: "CP",
				Path:       []string{"G/n/g", "R/n/r", "S/n/b"},
				Spec:       map[string]any{"color": "blue"},
				Provenance: map[string]string{"color": "CP/n/p2"},
				Policies:   []string{"CP/n/p1", "CP/n/p2"},
			},
			{
				PolicyKind: "CP",
				Path:       []string{"G/n/g", "S/n/c"},
				Spec:       map[string]any{"size": float64(1), "color": "red"},
				Provenance: map[string]string{"size": "CP/n/p1", "color": "CP/n/p1"},
				Policies:   []string{"CP/n/p1"},
			},
		},
		Policies: []engine.PolicyStatus{
			{
				Ref:      "CP/n/p1",
				Strategy: "Atomic defaults",
				Conditions: []engine.Condition{
					cond(engine.TypeAccepted, "True", "Accepted", "Policy has been accepted"),
					cond(engine.TypeEnforced, "True", "PartiallyEnforced", "beaten by CP/n/p2 on 1 path"),
				},
				Targets: []engine.PolicyTarget{},
				Paths:   1,
			},
			{
				Ref:        "CP/n/p2",
				Conditions: []engine.Condition{cond(engine.TypeAccepted, "False", "Invalid", "spec.color: must be a string")},
				Targets:    []engine.PolicyTarget{},
			},
			{Ref: "CP/n/p3", Targets: []engine.PolicyTarget{}},
		},
		Targets: []engine.TargetStatus{
			{
				Ref:        "S/n/b",
				Conditions: []engine.Condition{cond("CPAffected", "True", "Affected", "")},
				AffectedBy: []string{"CP/n/p1", "CP/n/p2"},
			},
			{
				Ref:        "S/n/c",
				Conditions: []engine.Condition{cond("CPAffected", "True", "Affected", ""), cond("Other", "False", "X", "")},
				AffectedBy: []string{"CP/n/p1"},
			},
		},
		Warnings: []string{"R/n/x: parent G/n/y not found"},
	}
}

func TestSimulation(t *testing.T) {
	var b bytes.Buffer
	if err := Simulation(&b, sample()); err != nil {
		t.Fatal(err)
	}
	checkLines(t, b.String(), []string{
		// The reading that produced the answer: profiles, semantics,
		// status vocabulary.
		"EFFECTIVE POLICIES (profiles: cp, cp2; semantics: gep-713; status vocabulary: draft)",
		// Columns: KIND 4+2, PATH 21+2, SPEC 24+2; provenance sorted by field.
		"KIND  PATH                   SPEC                      PROVENANCE",
		`CP    G/n/g > R/n/r > S/n/b  {"color":"blue"}          color←CP/n/p2`,
		`CP    G/n/g > S/n/c          {"color":"red","size":1}  color←CP/n/p1 size←CP/n/p1`,
		"",
		"POLICIES",
		// The message is Enforced's when there is one, else Accepted's; a
		// missing strategy or condition is "-".
		"POLICY   STRATEGY         ACCEPTED       ENFORCED                MESSAGE",
		"CP/n/p1  Atomic defaults  True/Accepted  True/PartiallyEnforced  beaten by CP/n/p2 on 1 path",
		"CP/n/p2  -                False/Invalid  -                       spec.color: must be a string",
		"CP/n/p3  -                -/-            -                       ",
		"",
		"AFFECTED OBJECTS",
		"OBJECT  CONDITION                    AFFECTED BY",
		"S/n/b   CPAffected=True              CP/n/p1, CP/n/p2",
		"S/n/c   CPAffected=True,Other=False  CP/n/p1",
		"",
		"WARNINGS",
		"R/n/x: parent G/n/y not found",
	})
}

// TestSimulationMerged: under merged GEP-713's vocabulary the column and
// the message are Programmed's, and an Enforced condition is not read.
func TestSimulationMerged(t *testing.T) {
	out := sample()
	out.StatusVocabulary = engine.VocabularyMerged
	out.Policies[0].Conditions = append(out.Policies[0].Conditions, cond(engine.TypeProgrammed, "False", "Overridden", "overridden by CP/n/p9"))
	var b bytes.Buffer
	if err := Simulation(&b, out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"EFFECTIVE POLICIES (profiles: cp, cp2; semantics: gep-713; status vocabulary: merged)\n",
		"POLICY   STRATEGY         ACCEPTED       PROGRAMMED        MESSAGE\n",
		"CP/n/p1  Atomic defaults  True/Accepted  False/Overridden  overridden by CP/n/p9\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

// TestSimulationEmpty: no effective policy, policy, target or warning. The
// table says so in the first section, keeps the headers of the others and
// prints no WARNINGS section.
func TestSimulationEmpty(t *testing.T) {
	for _, out := range []*simulator.Output{
		{Semantics: engine.StickyOverrides},
		{Semantics: engine.StickyOverrides, EffectivePolicies: []engine.EffectivePolicy{}, Policies: []engine.PolicyStatus{}, Targets: []engine.TargetStatus{}, Warnings: []string{}},
	} {
		var b bytes.Buffer
		if err := Simulation(&b, out); err != nil {
			t.Fatal(err)
		}
		checkLines(t, b.String(), []string{
			"EFFECTIVE POLICIES (profiles: -; semantics: sticky-overrides; status vocabulary: merged)",
			"KIND  PATH                               SPEC  PROVENANCE",
			"-     (no path has an effective policy)        ",
			"",
			"POLICIES",
			"POLICY  STRATEGY  ACCEPTED  PROGRAMMED  MESSAGE",
			"",
			"AFFECTED OBJECTS",
			"OBJECT  CONDITION  AFFECTED BY",
		})
	}
}

func TestProvenance(t *testing.T) {
	for _, tc := range []struct {
		name   string
		in     map[string]string
		stored []string
		want   string
	}{
		{"nil", nil, nil, ""},
		{"empty", map[string]string{}, nil, ""},
		{"one", map[string]string{"color": "CP/n/p1"}, nil, "color←CP/n/p1"},
		{"sorted by field", map[string]string{"size": "CP/n/p2", "color": "CP/n/p1", "a.b": "CP/n/p3"}, nil, "a.b←CP/n/p3 color←CP/n/p1 size←CP/n/p2"},
		// A field a CRD default set names the default and the policy it
		// was stored for (Kubernetes, Defaulting and Nullable;
		// docs/output.md); the others their policy.
		{"stored default", map[string]string{"retry.numRetries": "CP/n/p1", "timeout": "CP/n/p2"}, []string{"retry.numRetries"}, "retry.numRetries←CP CRD default, stored for CP/n/p1 timeout←CP/n/p2"},
		{"quoted key", map[string]string{`["a.b"]`: "CP/n/p1", "a": "CP/n/p2"}, nil, `["a.b"]←CP/n/p1 a←CP/n/p2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Provenance(engine.EffectivePolicy{PolicyKind: "CP", Provenance: tc.in, StoredDefaults: tc.stored}); got != tc.want {
				t.Errorf("Provenance(%v) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestTarget(t *testing.T) {
	out := sample()
	for _, tc := range []struct {
		name string
		x    *simulator.TargetExplanation
		want []string
	}{
		{
			name: "nothing",
			x:    &simulator.TargetExplanation{Target: "S/n/x"},
			want: []string{
				"S/n/x",
				"  reading:                  profiles: -; semantics: ; status vocabulary: merged",
				"  targeted directly by:     (none)",
				"  reported as affected by:  (none)",
				"  paths through it:         0",
			},
		},
		{
			// The first path has decisions, the second falls back to its
			// provenance, sorted by field.
			name: "two paths",
			x: &simulator.TargetExplanation{
				Target:     "S/n/b",
				Reading:    simulator.Reading{Semantics: engine.GEP713, StatusVocabulary: engine.VocabularyDraft, Profiles: []string{"cp"}},
				AffectedBy: []string{"CP/n/p1", "CP/n/p2"},
				Paths:      out.EffectivePolicies,
				Decisions: []simulator.PathDecisions{{
					Path:        out.EffectivePolicies[0].Path,
					Fields:      []simulator.FieldDecision{{Field: "color", From: "CP/n/p2", Step: "more specific"}},
					NotInEffect: []simulator.Unapplied{{Policy: "CP/n/p1", Field: "color", Reason: "beaten by CP/n/p2"}},
				}},
			},
			want: []string{
				"S/n/b",
				"  reading:                  profiles: cp; semantics: gep-713; status vocabulary: draft",
				"  targeted directly by:     (none)",
				"  reported as affected by:  CP/n/p1, CP/n/p2",
				"  paths through it:         2",
				"",
				"  G/n/g > R/n/r > S/n/b  (CP)",
				"    stack, established first:        CP/n/p1, CP/n/p2",
				`    effective spec:                  {"color":"blue"}`,
				"    color                            from CP/n/p2  more specific",
				"    not in effect: color of CP/n/p1  beaten by CP/n/p2",
				"",
				"  G/n/g > S/n/c  (CP)",
				"    stack, established first:  CP/n/p1",
				`    effective spec:            {"color":"red","size":1}`,
				"    color                      from CP/n/p1",
				"    size                       from CP/n/p1",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Target(&b, tc.x); err != nil {
				t.Fatal(err)
			}
			checkLines(t, b.String(), tc.want)
		})
	}
}

func TestPolicy(t *testing.T) {
	accepted := cond(engine.TypeAccepted, "True", "Accepted", "Policy has been accepted")
	for _, tc := range []struct {
		name string
		x    *simulator.PolicyExplanation
		want []string
	}{
		{
			// Deleting it changes two paths: one to another spec, one to
			// none at all; it sets two of the three fields of the path it is
			// in effect on, and lost color on another.
			name: "in effect, beaten, if deleted",
			x: &simulator.PolicyExplanation{
				Policy:  "CP/n/p1",
				Reading: simulator.Reading{Semantics: engine.StickyOverrides, StatusVocabulary: engine.VocabularyDraft, Profiles: []string{"cp"}},
				Status: engine.PolicyStatus{
					Ref:      "CP/n/p1",
					Strategy: "Atomic defaults",
					Conditions: []engine.Condition{
						accepted,
						cond(engine.TypeEnforced, "True", "PartiallyEnforced", "beaten by CP/n/p2"),
					},
					Targets: []engine.PolicyTarget{{Ref: "G/n/g1", Conditions: []engine.Condition{accepted}}},
					Beaten: []engine.Beaten{{Field: "color", By: "CP/n/p2", Paths: 1,
						Examples: [][]string{{"G/n/g1", "R/n/r1", "S/n/b1"}}}},
				},
				StackedOn: 2,
				InEffectOn: []engine.EffectivePolicy{{
					PolicyKind: "CP",
					Path:       []string{"G/n/g1", "R/n/r2", "S/n/b1"},
					Provenance: map[string]string{"size": "CP/n/p1", "shape": "CP/n/p9", "color": "CP/n/p1"},
				}},
				IfDeleted: []simulator.Change{
					{
						Path:   []string{"G/n/g1", "R/n/r1", "S/n/b1"},
						Before: map[string]any{"color": "red"},
						After:  map[string]any{"color": "green"},
						Fields: []string{"color"},
					},
					{
						Path:   []string{"G/n/g1", "R/n/r2", "S/n/b1"},
						Before: map[string]any{"color": "red", "size": float64(1)},
						After:  nil,
						Fields: []string{"color", "size"},
					},
				},
			},
			want: []string{
				"CP/n/p1  (Atomic defaults)",
				"  reading: profiles: cp; semantics: sticky-overrides; status vocabulary: draft",
				"  Accepted=True                 Accepted           Policy has been accepted",
				"  Enforced=True                 PartiallyEnforced  beaten by CP/n/p2",
				"  target G/n/g1: Accepted=True  Accepted           Policy has been accepted",
				"  stacked on 2 path(s), in effect on 1",
				"    G/n/g1 > R/n/r2 > S/n/b1  sets color, size",
				"  color beaten by CP/n/p2 on 1 path(s):",
				"    G/n/g1 > R/n/r1 > S/n/b1",
				"  if deleted, 2 path(s) change:",
				`    G/n/g1 > R/n/r1 > S/n/b1  {"color":"red"} -> {"color":"green"}  (color)`,
				`    G/n/g1 > R/n/r2 > S/n/b1  {"color":"red","size":1} -> (none)    (color, size)`,
			},
		},
		{
			name: "deleting changes nothing",
			x: &simulator.PolicyExplanation{
				Policy: "CP/n/p4",
				Status: engine.PolicyStatus{
					Ref:      "CP/n/p4",
					Strategy: "Atomic defaults",
					Conditions: []engine.Condition{
						accepted,
						cond(engine.TypeEnforced, "False", "Overridden", "overridden by CP/n/p3"),
					},
				},
				StackedOn:  1,
				InEffectOn: []engine.EffectivePolicy{},
				IfDeleted:  []simulator.Change{},
			},
			want: []string{
				"CP/n/p4  (Atomic defaults)",
				"  reading: profiles: -; semantics: ; status vocabulary: merged",
				"  Accepted=True   Accepted    Policy has been accepted",
				"  Enforced=False  Overridden  overridden by CP/n/p3",
				"  stacked on 1 path(s), in effect on 0",
				"  if deleted: no effective policy changes",
			},
		},
		{
			// An invalid policy has no strategy (the simulate table shows
			// "-"; this header shows empty parentheses, as it always has).
			name: "invalid",
			x: &simulator.PolicyExplanation{
				Policy: "CP/n/bad",
				Status: engine.PolicyStatus{Ref: "CP/n/bad", Conditions: []engine.Condition{
					cond(engine.TypeAccepted, "False", "Invalid", "spec.color: must be a string")}},
			},
			want: []string{
				"CP/n/bad  ()",
				"  reading: profiles: -; semantics: ; status vocabulary: merged",
				"  Accepted=False  Invalid  spec.color: must be a string",
				"  stacked on 0 path(s), in effect on 0",
				"  if deleted: no effective policy changes",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Policy(&b, tc.x); err != nil {
				t.Fatal(err)
			}
			checkLines(t, b.String(), tc.want)
		})
	}
}

// TestData: JSON and YAML read back into the value printed, for the three
// values gepcheck prints (docs/output.md); other formats are refused and
// nothing is written.
func TestData(t *testing.T) {
	out := sample()
	tx := &simulator.TargetExplanation{Target: "S/n/b", AttachedPolicies: []string{}, AffectedBy: []string{"CP/n/p2"}, Paths: out.EffectivePolicies[:1]}
	px := &simulator.PolicyExplanation{Policy: "CP/n/p1", Status: out.Policies[0], InEffectOn: out.EffectivePolicies[1:], StackedOn: 2,
		IfDeleted: []simulator.Change{{Path: []string{"G/n/g", "S/n/c"}, Before: map[string]any{"color": "red"}, After: nil, Fields: []string{"color"}}}}
	unmarshal := map[string]func([]byte, any) error{
		"json": json.Unmarshal,
		"yaml": func(b []byte, v any) error { return yaml.UnmarshalStrict(b, v) },
	}
	for _, format := range []string{"json", "yaml"} {
		for _, tc := range []struct {
			name string
			v    any
			into func() any
		}{
			{"output", out, func() any { return new(simulator.Output) }},
			{"target", tx, func() any { return new(simulator.TargetExplanation) }},
			{"policy", px, func() any { return new(simulator.PolicyExplanation) }},
		} {
			t.Run(format+"/"+tc.name, func(t *testing.T) {
				var b bytes.Buffer
				if err := Data(&b, format, tc.v); err != nil {
					t.Fatal(err)
				}
				back := tc.into()
				if err := unmarshal[format](b.Bytes(), back); err != nil {
					t.Fatalf("%v\n%s", err, b.String())
				}
				if !reflect.DeepEqual(back, tc.v) {
					t.Errorf("round trip differs:\n got %#v\nwant %#v\n%s", back, tc.v, b.String())
				}
			})
		}
	}
	// The documented top-level fields, JSON indented by two spaces.
	var b bytes.Buffer
	if err := Data(&b, "json", out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"{\n  \"semantics\": \"gep-713\",\n  \"statusVocabulary\": \"draft\",\n  \"profiles\": [\n    \"cp\",\n    \"cp2\"\n  ],\n  \"effectivePolicies\": [\n", "\n  \"policies\": [\n", "\n  \"targets\": [\n", "\n  \"warnings\": [\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("JSON lacks %q:\n%s", want, b.String())
		}
	}
	for _, format := range []string{"", "xml", "JSON", "table"} {
		var b bytes.Buffer
		err := Data(&b, format, out)
		if err == nil || !strings.Contains(err.Error(), "unknown output format") {
			t.Errorf("Data(%q) = %v, want an unknown output format error", format, err)
		}
		if b.Len() != 0 {
			t.Errorf("Data(%q) wrote %q", format, b.String())
		}
	}
}

// TestExample2 renders GEP-713 Example 2 (scenarios/gep-713/
// example-2-defaults-and-overrides.yaml, as `make demo` does) end to end.
// The expected colours are the GEP's "expected outcome" of Example 2
// (/work/shared/seeds/gep-713-metaresources-and-policy-attachment.txt,
// "Example 2. Defaults & Overrides"): g1 > r1 > b1 blue ("more specific p2
// spec beats less specific defaults at p1"), g1 > r2 > b1 red ("implicit
// defaults specified at p1 not replaced by any other policy"), g2 > r3 > b1
// yellow ("overrides specified at p3 not replaced by any other policy"),
// g2 > r4 > b2 yellow ("overrides specified at p3 beats more specific policy
// p4"). These are the lines README.md shows; the test checks README still
// shows them.
func TestExample2(t *testing.T) {
	// The table fits 120 columns (docs/output.md, Tables): each path
	// is wrapped before its last " > ".
	want := []string{
		"KIND         PATH                                       SPEC                PROVENANCE",
		`ColorPolicy  Gateway/default/g1 > HTTPRoute/default/r1  {"color":"blue"}    color←ColorPolicy/default/p2`,
		"             > Service/default/b1",
		`ColorPolicy  Gateway/default/g1 > HTTPRoute/default/r2  {"color":"red"}     color←ColorPolicy/default/p1`,
		"             > Service/default/b1",
		`ColorPolicy  Gateway/default/g2 > HTTPRoute/default/r3  {"color":"yellow"}  color←ColorPolicy/default/p3`,
		"             > Service/default/b1",
		`ColorPolicy  Gateway/default/g2 > HTTPRoute/default/r4  {"color":"yellow"}  color←ColorPolicy/default/p3`,
		"             > Service/default/b2",
	}
	m, err := simulator.LoadFiles([]string{"../../scenarios/gep-713/example-2-defaults-and-overrides.yaml"}, nil, simulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sem := range []engine.Semantics{engine.StickyOverrides, engine.GEP713} {
		t.Run(string(sem), func(t *testing.T) {
			var b bytes.Buffer
			if err := Simulation(&b, m.Run(sem, nil)); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(b.String(), "\n")
			if len(lines) < 1+len(want) {
				t.Fatalf("output too short:\n%s", b.String())
			}
			if lines[0] != "EFFECTIVE POLICIES (profiles: color-inherited; semantics: "+string(sem)+"; status vocabulary: merged)" {
				t.Errorf("first line %q", lines[0])
			}
			checkLines(t, strings.Join(lines[1:1+len(want)], "\n")+"\n", want)
			if lines[1+len(want)] != "" {
				t.Errorf("a fifth effective policy: %q", lines[1+len(want)])
			}
		})
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// README shows the header, the effective policies and the policies'
	// status (merged GEP-713's Programmed) as make demo prints them.
	var b bytes.Buffer
	if err := Simulation(&b, m.Run(engine.StickyOverrides, nil)); err != nil {
		t.Fatal(err)
	}
	shown, _, ok := strings.Cut(b.String(), "\n\nAFFECTED OBJECTS")
	if !ok {
		t.Fatalf("no AFFECTED OBJECTS:\n%s", b.String())
	}
	if !strings.Contains(shown, strings.Join(want, "\n")) || !strings.Contains(shown, "True/PartiallyProgrammed") {
		t.Fatalf("make demo's first lines changed:\n%s", shown)
	}
	if !strings.Contains(string(readme), "`make demo` prints, among the rest:\n\n```\n"+shown+"\n```\n") {
		t.Errorf("README.md no longer shows Example 2's tables as make demo prints them:\n%s", shown)
	}
}

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"ColorPolicy/default/p1", "ColorPolicy/default/p1"},
		{"color←p é ✓ \ufffd", "color←p é ✓ \ufffd"}, // printable, and a real U+FFFD, untouched
		{"p\t1", `p\t1`},
		{"r\n1\r", `r\n1\r`},
		{"a\x00b\x1bc\x7f", `a\x00b\x1bc\x7f`},
		{"\u0085", `\u0085`}, // C1 control (NEL)
		{"x\xffy", `x\xffy`}, // tabwriter.Escape, invalid UTF-8
	} {
		if got := clean(tc.in); got != tc.want {
			t.Errorf("clean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestControlCharacters: a tab or newline in a name or a field (gepcheck's
// loader does not check names against Kubernetes' rules) used to split
// cells and rows. It is shown escaped and the columns stay aligned.
func TestControlCharacters(t *testing.T) {
	out := &simulator.Output{
		Semantics: engine.GEP713,
		Profiles:  []string{"cp\tx"},
		EffectivePolicies: []engine.EffectivePolicy{{
			PolicyKind: "CP",
			Path:       []string{"G/n/g", "R/n/r\n1", "S/n/b"},
			Spec:       map[string]any{"a\tb": "x"},
			Provenance: map[string]string{"a\tb": "CP/n/p\t1"},
		}},
		Policies: []engine.PolicyStatus{{
			Ref:        "CP/n/p\t1",
			Strategy:   "Atomic defaults",
			Conditions: []engine.Condition{cond(engine.TypeAccepted, "True", "Accepted", "line 1\nline 2")},
		}},
		Targets:  []engine.TargetStatus{{Ref: "R/n/r\n1", Conditions: []engine.Condition{cond("CPAffected", "True", "", "")}, AffectedBy: []string{"CP/n/p\t1"}}},
		Warnings: []string{"R/n/r\n1:\tsomething"},
	}
	var b bytes.Buffer
	if err := Simulation(&b, out); err != nil {
		t.Fatal(err)
	}
	checkLines(t, b.String(), []string{
		`EFFECTIVE POLICIES (profiles: cp\tx; semantics: gep-713; status vocabulary: merged)`,
		`KIND  PATH                      SPEC          PROVENANCE`,
		`CP    G/n/g > R/n/r\n1 > S/n/b  {"a\tb":"x"}  a\tb←CP/n/p\t1`,
		"",
		"POLICIES",
		"POLICY     STRATEGY         ACCEPTED       PROGRAMMED  MESSAGE",
		`CP/n/p\t1  Atomic defaults  True/Accepted  -           line 1\nline 2`,
		"",
		"AFFECTED OBJECTS",
		"OBJECT    CONDITION        AFFECTED BY",
		`R/n/r\n1  CPAffected=True  CP/n/p\t1`,
		"",
		"WARNINGS",
		`R/n/r\n1:\tsomething`,
	})

	b.Reset()
	x := &simulator.PolicyExplanation{
		Policy:     "CP/n/p\t1",
		Status:     engine.PolicyStatus{Strategy: "Atomic defaults", Beaten: []engine.Beaten{{Field: "a\tb", By: "CP/n/q", Paths: 1, Examples: [][]string{{"G/n/g", "R/n/r\n1"}}}}},
		InEffectOn: []engine.EffectivePolicy{out.EffectivePolicies[0]},
		IfDeleted:  []simulator.Change{{Path: []string{"G/n/g", "R/n/r\n1", "S/n/b"}, Before: map[string]any{"a\tb": "x"}, Fields: []string{"a\tb"}}},
	}
	if err := Policy(&b, x); err != nil {
		t.Fatal(err)
	}
	checkLines(t, b.String(), []string{
		`CP/n/p\t1  (Atomic defaults)`,
		"  reading: profiles: -; semantics: ; status vocabulary: merged",
		"  stacked on 0 path(s), in effect on 1",
		`    G/n/g > R/n/r\n1 > S/n/b  sets a\tb`,
		`  a\tb beaten by CP/n/q on 1 path(s):`,
		`    G/n/g > R/n/r\n1`,
		"  if deleted, 1 path(s) change:",
		`    G/n/g > R/n/r\n1 > S/n/b  {"a\tb":"x"} -> (none)  (a\tb)`,
	})

	b.Reset()
	tx := &simulator.TargetExplanation{
		Target:     "R/n/r\n1",
		AffectedBy: []string{"CP/n/p\t1"},
		Paths:      out.EffectivePolicies,
		Decisions:  []simulator.PathDecisions{{NotInEffect: []simulator.Unapplied{{Policy: "CP/n/q", Field: "a\tb", Reason: "beaten\tby CP/n/p\t1"}}}},
	}
	if err := Target(&b, tx); err != nil {
		t.Fatal(err)
	}
	checkLines(t, b.String(), []string{
		`R/n/r\n1`,
		"  reading:                  profiles: -; semantics: ; status vocabulary: merged",
		"  targeted directly by:     (none)",
		`  reported as affected by:  CP/n/p\t1`,
		"  paths through it:         1",
		"",
		`  G/n/g > R/n/r\n1 > S/n/b  (CP)`,
		"    stack, established first:      (none)",
		`    effective spec:                {"a\tb":"x"}`,
		`    not in effect: a\tb of CP/n/q  beaten\tby CP/n/p\t1`,
	})
}

// TestControlCharactersLoaded: names with control characters are refused
// as the API server refuses them (ref.NameErrors), in an error that prints
// them escaped; what does reach the renderer from the input, a spec's
// values, is escaped too, one line per row.
func TestControlCharactersLoaded(t *testing.T) {
	in := `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: example}
spec: {controllerName: example.com/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g1}
spec:
  gatewayClassName: example
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ROUTE}
spec:
  parentRefs: [{name: g1}]
  rules: [{backendRefs: [{name: b1, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: b1}
spec: {ports: [{port: 80}]}
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: POLICY}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: ROUTE}]
  color: "red\e[31m\nColorPolicy  forged row"
`
	bad := strings.NewReplacer("ROUTE", `"r\n1"`, "POLICY", `"p\e[31m1"`).Replace(in)
	_, err := simulator.LoadFiles([]string{"-"}, strings.NewReader(bad), simulator.Options{Profiles: []string{"color-inherited"}})
	if err == nil || strings.ContainsAny(err.Error(), "\x1b\t") || len(strings.Split(err.Error(), "\n")) != 2 {
		t.Fatalf("want two lines of error, names escaped; got %q", err)
	}
	for _, w := range []string{`document 3 (line 15): HTTPRoute r\n1: field metadata.name: "r\n1" is not a valid name`, `ColorPolicy p\x1b[31m1: field metadata.name`} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not say %q:\n%s", w, err)
		}
	}
	good := strings.NewReplacer("ROUTE", "r1", "POLICY", "p1").Replace(in)
	m, err := simulator.LoadFiles([]string{"-"}, strings.NewReader(good), simulator.Options{Profiles: []string{"color-inherited"}})
	if err != nil {
		t.Fatal(err)
	}
	// Wide: every cell on one line, so that a forged row would show.
	var b bytes.Buffer
	if err := SimulationTable(&b, m.Run(engine.StickyOverrides, nil), TableOptions{Wide: true}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 4 {
		t.Fatalf("output too short:\n%s", b.String())
	}
	checkLines(t, lines[2]+"\n", []string{`ColorPolicy  Gateway/default/g1 > HTTPRoute/default/r1 > Service/default/b1  {"color":"red\u001b[31m\nColorPolicy  forged row"}  color←ColorPolicy/default/p1`})
	if lines[3] != "" {
		t.Errorf("a second effective policy row: %q\n%s", lines[3], b.String())
	}
}

// The reading names the ancestor entries only when they are not the
// default, one per Gateway (simulator.AncestorEntries).
func TestReadingAncestorEntries(t *testing.T) {
	r := simulator.Reading{Semantics: engine.StickyOverrides, StatusVocabulary: engine.VocabularyMerged, Profiles: []string{"p"}}
	if got, want := Reading(r), "profiles: p; semantics: sticky-overrides; status vocabulary: merged"; got != want {
		t.Errorf("Reading = %q, want %q", got, want)
	}
	r.AncestorEntries = simulator.AncestorsPerListener
	if got, want := Reading(r), "profiles: p; semantics: sticky-overrides; status vocabulary: merged; ancestor entries: listener"; got != want {
		t.Errorf("Reading = %q, want %q", got, want)
	}
}
