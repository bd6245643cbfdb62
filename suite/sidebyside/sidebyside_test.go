package sidebyside

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/ref"
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
		{File: "f/other.yaml", Implementation: "color-inherited", Kind: "condition", Triage: suite.Triage{Verdict: suite.UndefinedBySpecs}},
		{File: "f/kept.yaml", Implementation: "color-inherited", Kind: "effective-setting-color", Triage: suite.Triage{Verdict: suite.ContradictsMust, Requirement: "GEP-713-019"}},
	}}
	res, err = Run(context.Background(), fake{"red"}, c, known)
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Differences[0]; d.Finding != "f/kept.yaml" || d.Verdict != "contradicts-must" || d.Requirement != "GEP-713-019" {
		t.Fatalf("difference %+v, want it named by f/kept.yaml", d)
	}
	var out bytes.Buffer
	if err := res.Table(&out); err != nil {
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
