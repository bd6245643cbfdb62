package simulator

import (
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

func decisions(t *testing.T, file string, target ref.Ref) PathDecisions {
	t.Helper()
	m, err := LoadFiles([]string{file}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := m.Explain(m.Run(engine.StickyOverrides, nil), target)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Decisions) != 1 {
		t.Fatalf("%d paths through %s, want 1", len(x.Decisions), target)
	}
	return x.Decisions[0]
}

// Kuadrant RFC, Example F1: the route's unset removes the gateway's merged
// default b; explain says so.
func TestDecideKuadrantUnset(t *testing.T) {
	d := decisions(t, "../scenarios/kuadrant/f1-unset-default.yaml", ref.Ref{Kind: "HTTPRoute", Namespace: "default", Name: "route"})
	found := false
	for _, u := range d.NotInEffect {
		if u.Field == "rules.authorization.b" {
			found = true
			if u.Reason != "unset by AuthPolicy/default/route-policy" {
				t.Errorf("rules.authorization.b not in effect because %q, want unset by route-policy", u.Reason)
			}
		}
	}
	if !found {
		t.Errorf("rules.authorization.b is not reported as not in effect: %+v", d.NotInEffect)
	}
}

// GEP-2649, Hierarchy (CDNCachingPolicy): cdn.enabled comes from the
// Gateway's override, includeQueryString from the route's default, which
// beats the Gateway's default.
func TestDecideFieldLevelSteps(t *testing.T) {
	d := decisions(t, "../scenarios/gep-2649/cdncaching.yaml", ref.Ref{Kind: "HTTPRoute", Namespace: "appns", Name: "example"})
	steps := map[string]FieldDecision{}
	for _, f := range d.Fields {
		steps[f.Field] = f
	}
	if f := steps["cdn.enabled"]; !strings.HasPrefix(f.Step, "override at Gateway/appns/example") {
		t.Errorf("cdn.enabled: %+v, want an override at the Gateway", f)
	}
	if f := steps["cdn.cachePolicy.includeQueryString"]; !strings.HasPrefix(f.Step, "default at HTTPRoute/appns/example") || !strings.HasSuffix(f.From, "route-cdn") {
		t.Errorf("includeQueryString: %+v, want the route's default", f)
	}
	beaten := false
	for _, u := range d.NotInEffect {
		beaten = beaten || u.Field == "cdn.cachePolicy.includeQueryString" && strings.HasSuffix(u.Policy, "gateway-cdn")
	}
	if !beaten {
		t.Errorf("the Gateway's includeQueryString default is not reported as beaten: %+v", d.NotInEffect)
	}
}
