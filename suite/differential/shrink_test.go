package differential

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// twoBugs is an implementation with two independent bugs: it never
// realizes retry on any path, and it rejects as Conflicted every policy
// that targets route-2 (as an implementation's conflicts may follow from targets,
// which shrinking never changes). The reference engine does the rest.
type twoBugs struct{}

func (twoBugs) Name() string { return "two-bugs" }
func (twoBugs) Capabilities() observe.Capabilities {
	return observe.Capabilities{Conditions: []string{"Accepted"}}
}
func (twoBugs) Observe(ctx context.Context, cases []observe.Case) ([]observe.Observation, error) {
	obs, err := observe.Reference(cases, observe.Capabilities{}), error(nil)
	for i, c := range cases {
		onRoute2 := map[string]bool{}
		for _, doc := range strings.Split(c.YAML, "\n---\n") {
			var o struct {
				Kind     string
				Metadata struct{ Namespace, Name string }
				Spec     struct{ TargetRefs []struct{ Name string } }
			}
			if yaml.Unmarshal([]byte(doc), &o) == nil && len(o.Spec.TargetRefs) > 0 && o.Spec.TargetRefs[0].Name == "route-2" {
				onRoute2[o.Kind+"/"+o.Metadata.Namespace+"/"+o.Metadata.Name] = true
			}
		}
		for _, p := range obs[i].Effective {
			delete(p.Spec, "retry")
		}
		for j, p := range obs[i].Policies {
			if onRoute2[p.Ref] {
				obs[i].Policies[j].Conditions = []observe.Condition{{Type: "Accepted", Status: "False", Reason: "Conflicted"}}
			}
		}
	}
	return obs, err
}

// Shrink keeps the kind of difference it shrinks for and lets the others
// fall away. p-both shows both bugs and p-retry only the first: shrinking
// for the first must end with p-retry alone, not drift to p-both (the first
// candidate, which still shows it, with a conflict besides) nor to a
// conflict only.
func TestShrinkKeepsItsKind(t *testing.T) {
	// A Gateway with two listeners, two routes with named rules, one
	// Service; ColorPolicies as GEP-713 Example 2 reads them (color-inherited).
	b := []generators.BackendRef{{Name: "svc"}}
	s := &generators.Scenario{Profile: "color-inherited", Namespaces: []string{"shrink"}, GatewayClasses: []string{"eg"},
		Gateways: []generators.Gateway{{Namespace: "shrink", Name: "gw", Class: "eg", Listeners: []generators.Listener{{Name: "http", Port: 80}, {Name: "http-2", Port: 8080}}}},
		Services: []generators.Service{{Namespace: "shrink", Name: "svc"}},
		Routes: []generators.Route{
			{Namespace: "shrink", Name: "route-1", Parents: []generators.ParentRef{{Name: "gw"}}, Rules: []generators.Rule{{Name: "rule-1", Backends: b}, {Name: "rule-2", Backends: b}}},
			{Namespace: "shrink", Name: "route-2", Parents: []generators.ParentRef{{Name: "gw", Section: "http"}}, Rules: []generators.Rule{{Name: "rule-1", Backends: b}}},
		}}
	created := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	policy := func(name, route string, spec map[string]any) generators.Policy {
		return generators.Policy{Group: "policies.controller.io", Kind: "ColorPolicy", Namespace: "shrink", Name: name, Created: &created,
			Targets: []generators.Target{{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: route}}, Spec: spec}
	}
	s.Policies = []generators.Policy{
		policy("p-retry", "route-1", map[string]any{"retry": map[string]any{"numRetries": 2.0}}),
		policy("p-both", "route-2", map[string]any{"retry": map[string]any{"numRetries": 3.0}}),
	}
	ctx := context.Background()
	const profile = "color-inherited"
	caps := twoBugs{}.Capabilities()
	res, err := judge(ctx, twoBugs{}, profile, []generators.Case{{Scenario: s}}, caps)
	if err != nil {
		t.Fatal(err)
	}
	dis := res[0]
	if got := compare.Kinds(dis.Diff); !slices.Equal(got, []string{"conflicted", "effective-setting-retry"}) {
		t.Fatalf("the scenario should show both bugs, Kinds = %q (diff %q)", got, dis.Diff)
	}
	for _, tc := range []struct{ target, policy string }{
		{"effective-setting-retry", "p-retry"},
		{"conflicted", "p-both"},
	} {
		small := Shrink(ctx, Run{Observer: twoBugs{}, Profile: profile}, dis, compare.Found{Kind: tc.target}).Small
		var names []string
		for _, p := range small.Case.Scenario.Policies {
			names = append(names, p.Name)
		}
		if got := compare.Kinds(small.Diff); !slices.Equal(got, []string{tc.target}) || !slices.Equal(names, []string{tc.policy}) {
			t.Errorf("Shrink for %s: policies %q, Kinds %q; want [%s], [%s]", tc.target, names, got, tc.policy, tc.target)
		}
		if small.Case.Scenario.Namespaces[0] != "shrink" {
			t.Errorf("Shrink for %s: namespace %q, want the original one", tc.target, small.Case.Scenario.Namespaces[0])
		}
		// Objects, sections and references the difference does not need
		// are gone: for the effective setting one route with one rule
		// and one listener; the conflict (which twoBugs reports from the
		// targetRef alone) needs no route at all.
		sc := small.Case.Scenario
		needs := 1
		if tc.target == "conflicted" {
			needs = 0
		}
		if len(sc.Routes) != needs || (needs == 1 && len(sc.Routes[0].Rules) != 1) || len(sc.Gateways) != 1 || len(sc.Gateways[0].Listeners) != 1 {
			t.Errorf("Shrink for %s left objects the difference does not need:\n%s", tc.target, sc.YAML())
		}
	}
}
