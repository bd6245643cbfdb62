package generators

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/simulator/engine"
)

// TestHierarchyReached: Config.Hierarchy draws, often enough to matter,
// the levels it exists for: paths through a ListenerSet (GEP-1713), paths
// through TCP, TLS and UDP routes, and label-selector targets that select
// a route, each an effective target of some policy.
func TestHierarchyReached(t *testing.T) {
	counts := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		s := Scenarios(Config{Profile: "all-levels", Hierarchy: true}).Draw(t, "scenario")
		m, err := s.Model()
		if err != nil {
			t.Fatalf("Model: %v", err)
		}
		out := m.Run(engine.StickyOverrides, nil)
		for _, e := range out.EffectivePolicies {
			p := strings.Join(e.Path, " > ")
			for _, k := range []string{"ListenerSet/", "TCPRoute/", "TLSRoute/", "UDPRoute/"} {
				if strings.Contains(p, k) {
					counts[k]++
				}
			}
		}
		for _, p := range s.Policies {
			if len(p.Selectors) > 0 && len(s.selected(p)) > 0 {
				counts["selected"]++
			}
		}
	})
	for _, k := range []string{"ListenerSet/", "TCPRoute/", "TLSRoute/", "UDPRoute/", "selected"} {
		if counts[k] == 0 {
			t.Errorf("100 hierarchy scenarios: no %s (counts %v)", k, counts)
		}
	}
}

// TestSmallerHierarchy: shrinking removes ListenerSets and label-selector
// targets one at a time, and every candidate still builds.
func TestSmallerHierarchy(t *testing.T) {
	s := &Scenario{
		Namespaces:     []string{"ns"},
		GatewayClasses: []string{"gc"},
		Gateways:       []Gateway{{Namespace: "ns", Name: "gw", Class: "gc", AllowListeners: "Same", Listeners: []Listener{{Name: "http", Port: 80}}}},
		ListenerSets:   []ListenerSet{{Namespace: "ns", Name: "ls", Parent: ParentRef{Name: "gw"}, Listeners: []Listener{{Name: "tcp", Port: 9000, Protocol: "TCP"}}}},
		Services:       []Service{{Namespace: "ns", Name: "a"}},
		Routes: []Route{{Namespace: "ns", Name: "r", Kind: "TCPRoute", Labels: map[string]string{"tier": "gold"},
			Parents: []ParentRef{{Name: "ls", ListenerSet: true}}, Rules: []Rule{{Name: "one", Backends: []BackendRef{{Name: "a"}}}}}},
		ProfileYAML: HierarchyProfile,
		Policies: []Policy{{Group: TestPolicyGroup, Kind: TestPolicyKind, Namespace: "ns", Name: "p",
			Targets:   []Target{{Group: gatewayGroup, Kind: "ListenerSet", Name: "ls"}},
			Selectors: []Selector{{Kind: "TCPRoute", MatchLabels: map[string]string{"tier": "gold"}}},
			Spec:      map[string]any{"x": "y"}}},
	}
	var noSet, noSelector bool
	for _, c := range Smaller(s) {
		if _, err := c.Model(); err != nil {
			t.Errorf("candidate does not build: %v\n%s", err, c.YAML())
		}
		noSet = noSet || len(c.ListenerSets) == 0
		noSelector = noSelector || (len(c.Policies) == 1 && len(c.Policies[0].Selectors) == 0 && len(c.Policies[0].Targets) == 1)
	}
	if !noSet || !noSelector {
		t.Errorf("candidates without the ListenerSet: %v; without the selector: %v", noSet, noSelector)
	}
	// The whole scenario: the selector and the ListenerSet both reach the
	// TCPRoute's rule, through Gateway > ListenerSet > listener.
	m, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	out := m.Run(engine.StickyOverrides, nil)
	want := "GatewayClass/gc > Gateway/ns/gw > ListenerSet/ns/ls > ListenerSet/ns/ls#tcp > TCPRoute/ns/r > TCPRoute/ns/r#one > Service/ns/a"
	var paths []string
	for _, e := range out.EffectivePolicies {
		paths = append(paths, strings.Join(e.Path, " > "))
	}
	if len(paths) != 1 || paths[0] != want {
		t.Errorf("paths %q, want [%s]", paths, want)
	}
}
