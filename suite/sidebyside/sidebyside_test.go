package sidebyside

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/findings"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// fake is an implementation that answers as the reference does, except
// that on the path through HTTPRoute r1 it writes color (GEP-713, Example
// 2: p2 sets blue there; an implementation that ignored p2 keeps p1's red).
type fake struct{ color string }

func (fake) Name() string                       { return "fake" }
func (fake) Capabilities() observe.Capabilities { return observe.Capabilities{} }
func (f fake) Observe(_ context.Context, cases []observe.Case) ([]observe.Observation, error) {
	obs := observe.Reference(cases, observe.Capabilities{})
	for _, p := range obs[0].Effective {
		if strings.Contains(strings.Join(p.Path, " "), "HTTPRoute/default/r1") {
			p.Spec["color"] = f.color
		}
	}
	return obs, nil
}

func example2(t *testing.T) observe.Case {
	t.Helper()
	cs, err := observe.ScenarioCases([]string{"../../scenarios/gep-713/example-2-defaults-and-overrides.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs[0]
}

// The difference on the path through r1 is found, named "new" with no kept
// finding and by the finding of its profile and kind when one is kept;
// the other paths are equal; every output names the reading.
func TestRunNamesDifferences(t *testing.T) {
	c := example2(t)
	res, err := Run(context.Background(), fake{"red"}, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Differences) != 1 || res.Differences[0].Finding != New || res.Differences[0].Kinds[0] != "effective-setting-color" || res.Differences[0].Profile != "color-inherited" {
		t.Fatalf("differences %+v, want one new effective-setting-color of color-inherited", res.Differences)
	}
	known := &Known{Entries: []findings.Entry{
		{File: "f/other.yaml", Implementation: "color-inherited", Profile: "color-inherited", Kind: "condition", Triage: suite.Triage{Verdict: suite.UndefinedBySpecs}},
		{File: "f/kept.yaml", Implementation: "color-inherited", Profile: "color-inherited", Kind: "effective-setting-color", Triage: suite.Triage{Verdict: suite.ContradictsMust, Requirement: "GEP-713-019"}},
	}}
	res, err = Run(context.Background(), fake{"red"}, c, known)
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Differences[0]; d.Finding != "f/kept.yaml" || d.Verdict != "contradicts-must" || d.Requirement != "GEP-713-019" {
		t.Fatalf("difference %+v, want it named by f/kept.yaml", d)
	}
	var out bytes.Buffer
	if err := res.Table(&out, render.TableOptions{Wide: true}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"semantics sticky-overrides; status vocabulary merged; ancestor entries gateway", "≠ effective-setting-color: f/kept.yaml (contradicts-must GEP-713-019)", "1 difference(s), 0 with no kept finding"} {
		if !strings.Contains(text, want) {
			t.Errorf("table lacks %q:\n%s", want, text)
		}
	}
	if strings.Count(text, "  =\n") < 2 {
		t.Errorf("table marks fewer than two paths equal:\n%s", text)
	}
	out.Reset()
	if err := res.JSON(&out); err != nil || !strings.Contains(out.String(), `"ancestorEntries": "gateway"`) || !strings.Contains(out.String(), `"semantics": "sticky-overrides"`) {
		t.Errorf("JSON lacks the reading (%v):\n%s", err, out.String())
	}
}

// Explain names the one policy on the path that sets the implementation's
// value (p1's red where the reference takes p2's blue), and says it cannot
// tell for a value no policy on the path sets.
func TestExplainSources(t *testing.T) {
	c := example2(t)
	for _, tc := range []struct{ color, policy, reason string }{
		{"red", "ColorPolicy/default/p1", ""},
		{"blue", "ColorPolicy/default/p2", ""},
		{"purple", "", "cannot tell: no policy on the path sets this value"},
	} {
		res, err := Run(context.Background(), fake{tc.color}, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		x, err := res.Explain(ref.Ref{Kind: "HTTPRoute", Namespace: "default", Name: "r1"})
		if err != nil {
			t.Fatal(err)
		}
		if len(x.Sources) != 1 {
			t.Fatalf("%s: sources %+v, want one", tc.color, x.Sources)
		}
		s := x.Sources[0]
		if s.Field != "color" || s.Policy != tc.policy || !strings.HasPrefix(s.Reason, tc.reason) || s.Reference != "ColorPolicy/default/p2" {
			t.Errorf("%s: source %+v, want from %q (%q), reference p2", tc.color, s, tc.policy, tc.reason)
		}
	}
}

// ExplainPolicy says p1's color (GEP-713, Example 2: red, beaten by p2's
// blue on the path through r1) is applied on that path by an
// implementation that shows red there, not applied by one that shows p2's
// blue (naming p2) or a color no policy sets; on the path through r2,
// where p1 alone sets it, applied by every one of them; the reference
// side is the same throughout: p2's on r1, p1's on r2.
func TestExplainPolicy(t *testing.T) {
	c := example2(t)
	for _, tc := range []struct{ color, onR1, reason string }{
		{"red", Applied, ""},
		{"blue", NotApplied, "the value of ColorPolicy/default/p2"},
		{"purple", NotApplied, "a value no policy on the path sets"},
	} {
		res, err := Run(context.Background(), fake{tc.color}, c, nil)
		if err != nil {
			t.Fatal(err)
		}
		x, err := res.ExplainPolicy(ref.Ref{Kind: "ColorPolicy", Namespace: "default", Name: "p1"})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]PolicyField{}
		for _, f := range x.Fields {
			if f.Field != "color" || f.Value != "red" {
				t.Errorf("%s: field %+v, want p1's color red", tc.color, f)
			}
			got[f.Path[1]] = f
		}
		if len(got) != 2 {
			t.Fatalf("%s: fields %+v, want one on each of the paths through r1 and r2", tc.color, x.Fields)
		}
		r1, r2 := got["HTTPRoute/default/r1"], got["HTTPRoute/default/r2"]
		if r1.Implementation != tc.onR1 || !strings.HasPrefix(r1.Reason, tc.reason) || r1.Reference != NotApplied || r1.ReferenceFrom != "ColorPolicy/default/p2" {
			t.Errorf("%s: on r1 %+v, want %s (%q), reference not applied (p2)", tc.color, r1, tc.onR1, tc.reason)
		}
		if r2.Implementation != Applied || r2.Reference != Applied {
			t.Errorf("%s: on r2 %+v, want applied on both sides", tc.color, r2)
		}
		var out bytes.Buffer
		if err := x.Table(&out, render.TableOptions{Wide: true}); err != nil || !strings.Contains(out.String(), "ancestor entries gateway") {
			t.Errorf("%s: table (%v) does not name the reading:\n%s", tc.color, err, out.String())
		}
	}
	res, err := Run(context.Background(), fake{"red"}, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := res.ExplainPolicy(ref.Ref{Kind: "ColorPolicy", Namespace: "default", Name: "nosuch"}); err == nil || !strings.Contains(err.Error(), "ColorPolicy/default/p1") {
		t.Errorf("no such policy: %v, want an error naming the policies", err)
	}
}

// blind is fake with an output that shows no field (Capabilities.Readable
// keeps none): whether p1's color is applied cannot be told anywhere.
type blind struct{ fake }

func (blind) Capabilities() observe.Capabilities {
	return observe.Capabilities{Readable: func(map[string]any) map[string]any { return map[string]any{} }}
}

func TestExplainPolicyCannotTell(t *testing.T) {
	res, err := Run(context.Background(), blind{fake{"red"}}, example2(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	x, err := res.ExplainPolicy(ref.Ref{Kind: "ColorPolicy", Namespace: "default", Name: "p1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Fields) != 2 {
		t.Fatalf("fields %+v, want two", x.Fields)
	}
	for _, f := range x.Fields {
		if f.Implementation != CannotTell || f.Reason != "the implementation's output does not show this field" {
			t.Errorf("field %+v, want cannot tell: not shown", f)
		}
	}
}
