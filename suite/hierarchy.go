package suite

import (
	"fmt"
	"maps"
	"slices"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

// hierarchyCase draws a scenario of Gateway API v1.6's whole hierarchy
// (generators.Config.Hierarchy, profile all-levels: HierarchyProfile) and
// a policy whose targets the property sets with with, added to it; it
// returns the scenario with the policy, the policy's ref and the result.
func hierarchyCase(t *rapid.T, m engine.Mutant, c *Capture, with func(s *generators.Scenario, p *generators.Policy) bool) (*generators.Scenario, string, engine.Result, bool) {
	cfg := generators.Config{Profile: "all-levels", Hierarchy: true}
	s, _ := draw(t, generators.Scenarios(cfg), "scenario")
	p := generators.PolicyFor(s, cfg).Draw(t, "policy")
	p.Targets, p.Selectors = nil, nil
	// A spec every strategy of the profile accepts (a bare spec is
	// defaults), so that the policy is stacked wherever it reaches.
	p.Spec = rapid.SampledFrom([]map[string]any{{"a": "x"}, {"overrides": map[string]any{"a": "y"}}, {"defaults": map[string]any{"strategy": "patch", "b": "z"}}}).Draw(t, "policy spec")
	if !with(s, &p) {
		return nil, "", engine.Result{}, false
	}
	s2 := s.WithPolicy(p)
	sem := c.semantics(t)
	c.Set(s2, sem)
	model, err := s2.Model()
	if err != nil {
		t.Fatalf("scenario with the policy does not build: %v\n%s", err, s2.YAML())
	}
	return s2, fmt.Sprintf("%s/%s/%s", p.Kind, nsOr(p.Namespace), p.Name), run(t, model, sem, m), true
}

// listenerSetScope: GEP-1713's rules for routes and policies of a
// ListenerSet, as gepcheck's hierarchy implements them
// (simulator/topology, AddGatewayAPI), checked against what the generated
// input declares (its Gateways' allowedListeners, its ListenerSets'
// listeners, its routes' parentRefs), not against the engine's graph.
func listenerSetScope() Property {
	return Property{
		Name: "listenerset/gep-1713-scope",
		Cite: "GEP-1713, Summary of Attachments: \"Routes attach to all relevant Listeners in their direct parent object\"; " +
			"Gateway & ListenerSet Handshake (allowedListeners); Policy Attachment: \"Policies that attach to a ListenerSet apply to all listeners defined in that resource, but do not impact listeners in the parent Gateway\"",
		Kills: []engine.Mutant{engine.MutantListenerSetUnattached, engine.MutantListenerSetOnGateway},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			var set generators.ListenerSet
			var section string
			s, pol, res, ok := hierarchyCase(t, m, c, func(s *generators.Scenario, p *generators.Policy) bool {
				if len(s.ListenerSets) == 0 {
					return false
				}
				set = rapid.SampledFrom(s.ListenerSets).Draw(t, "targeted ListenerSet")
				if rapid.Bool().Draw(t, "one of its listeners") {
					section = rapid.SampledFrom(set.Listeners).Draw(t, "targeted listener").Name
				}
				p.Namespace = set.Namespace
				p.Targets = []generators.Target{{Group: "gateway.networking.k8s.io", Kind: "ListenerSet", Name: set.Name, Section: section}}
				// Witnesses: a policy on every Service of each namespace,
				// so that every path to a Service has a stack and is
				// among the effective policies.
				byNS := map[string][]generators.Target{}
				for _, svc := range s.Services {
					byNS[svc.Namespace] = append(byNS[svc.Namespace], generators.Target{Kind: "Service", Name: svc.Name})
				}
				for _, ns := range slices.Sorted(maps.Keys(byNS)) {
					s.Policies = append(s.Policies, generators.Policy{Group: p.Group, Kind: p.Kind, Namespace: ns, Name: "witness", Targets: byNS[ns], Spec: map[string]any{"w": "x"}})
				}
				return true
			})
			if !ok {
				return
			}
			target := ref.Ref{Kind: "ListenerSet", Namespace: nsOr(set.Namespace), Name: set.Name, Section: section}
			routesOnPaths := map[ref.Ref]bool{}
			under := map[[2]ref.Ref]bool{} // ListenerSet listener, route: consecutive on a path
			for _, e := range res.EffectivePolicies {
				els := parsePath(e.Path)
				through := false
				for i, r := range els {
					if r == target {
						through = true
					}
					if !routeKinds[r.Kind] || r.Section != "" {
						continue
					}
					routesOnPaths[r] = true
					if i == 0 {
						continue
					}
					prev := els[i-1]
					if prev.Kind != "ListenerSet" {
						continue
					}
					under[[2]ref.Ref{prev, r}] = true
					routeUnderListenerSet(t, c, s, e.Path, els, i)
				}
				if in := slices.Contains(e.Policies, pol); in != through {
					Fail(t, c, "path %s: %s (targets %s) stacked=%v, but the path passes through its target: %v", pathKey(e.Path), pol, target, in, through)
				}
			}
			attachedHavePaths(t, c, s, routesOnPaths, under)
		},
	}
}

// routeUnderListenerSet: a route beneath a ListenerSet's listener (els[i]
// beneath els[i-1]) names that ListenerSet as a parent, which accepts it,
// and the ListenerSet is beneath the Gateway its parentRef names.
func routeUnderListenerSet(t *rapid.T, c *Capture, s *generators.Scenario, path []string, els []ref.Ref, i int) {
	r, prev := els[i], els[i-1]
	if !declaresParent(s, r, prev) {
		Fail(t, c, "path %s: %s is beneath %s, which none of its parentRefs names", pathKey(path), r, prev)
	} else if rt, ok := routeOf(s, r); ok && !slices.Contains(attachedListenerSetListeners(s, rt), prev) {
		// Named, but not allowed: the Gateway's allowedListeners, the
		// listener's allowedRoutes or its protocol refuse it (GEP-1713).
		Fail(t, c, "path %s: %s is beneath %s, which does not accept it", pathKey(path), r, prev)
	}
	if i < 2 || els[i-2] != (ref.Ref{Kind: "ListenerSet", Namespace: prev.Namespace, Name: prev.Name}) {
		Fail(t, c, "path %s: listener %s is not beneath its ListenerSet", pathKey(path), prev)
	} else if gw, ok := parentGateway(s, prev); !ok || i < 3 || els[i-3] != gw {
		Fail(t, c, "path %s: ListenerSet %s/%s is not beneath its parent Gateway", pathKey(path), prev.Namespace, prev.Name)
	}
}

// attachedHavePaths: a route that has paths and attaches (by the input) to
// a ListenerSet's listener has one through that listener.
func attachedHavePaths(t *rapid.T, c *Capture, s *generators.Scenario, routesOnPaths map[ref.Ref]bool, under map[[2]ref.Ref]bool) {
	for _, rt := range s.Routes {
		r := ref.Ref{Kind: rt.RouteKind(), Namespace: nsOr(rt.Namespace), Name: rt.Name}
		if !routesOnPaths[r] {
			continue
		}
		for _, l := range attachedListenerSetListeners(s, rt) {
			if !under[[2]ref.Ref{l, r}] {
				Fail(t, c, "%s attaches to %s (GEP-1713), but no path has it beneath that listener", r, l)
			}
		}
	}
}

// selectorsSameNamespace: a policy's label-selector targets reach exactly
// the routes of the selected kind, in the policy's namespace, whose
// labels match, computed from the generated input.
func selectorsSameNamespace() Property {
	return Property{
		Name:  "selectors/same-namespace-labels",
		Cite:  "docs/profiles.md, Label-selector targets (the direction of GEP-3779, Label Selectors): a selector selects every object of its kind whose labels match, \"in the policy's namespace\" unless its namespaces say otherwise; each selected object is a target as if a targetRef named it",
		Kills: []engine.Mutant{engine.MutantSelectorAnyNamespace},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			var sel generators.Selector
			s, pol, res, ok := hierarchyCase(t, m, c, func(s *generators.Scenario, p *generators.Policy) bool {
				if len(s.Routes) == 0 {
					return false
				}
				// Select the kind of a route of the input, in its
				// namespace half the time, and one of the label values.
				rt := rapid.SampledFrom(s.Routes).Draw(t, "a route")
				sel = generators.Selector{Kind: rt.RouteKind(), MatchLabels: map[string]string{"tier": rapid.SampledFrom(generators.LabelValues).Draw(t, "selector label")}}
				p.Namespace = nsOr(rt.Namespace)
				if rapid.Bool().Draw(t, "another namespace") {
					p.Namespace = rapid.SampledFrom(s.Namespaces).Draw(t, "policy namespace")
				}
				p.Selectors = []generators.Selector{sel}
				return true
			})
			if !ok {
				return
			}
			_, polNS, _ := cutRef(pol)
			selected := map[ref.Ref]bool{}
			for _, rt := range s.Routes {
				if rt.RouteKind() == sel.Kind && nsOr(rt.Namespace) == polNS && hasLabels(rt.Labels, sel.MatchLabels) {
					selected[ref.Ref{Kind: sel.Kind, Namespace: polNS, Name: rt.Name}] = true
				}
			}
			for _, e := range res.EffectivePolicies {
				var through []string
				for _, r := range parsePath(e.Path) {
					if selected[r] {
						through = append(through, r.String())
					}
				}
				if in := slices.Contains(e.Policies, pol); in != (len(through) > 0) {
					Fail(t, c, "path %s: %s (targetSelectors %s %v in namespace %s) stacked=%v; selected routes on the path: %v", pathKey(e.Path), pol, sel.Kind, sel.MatchLabels, polNS, in, through)
				}
			}
		},
	}
}

// routeKinds are the route kinds of Gateway API v1.6.
var routeKinds = map[string]bool{"HTTPRoute": true, "GRPCRoute": true, "TLSRoute": true, "TCPRoute": true, "UDPRoute": true}

// parsePath parses each element of a path, without groups (ref.Parse).
func parsePath(path []string) []ref.Ref {
	out := make([]ref.Ref, len(path))
	for i, el := range path {
		out[i], _ = ref.Parse(el)
	}
	return out
}

// cutRef splits Kind/namespace/name.
func cutRef(s string) (kind, ns, name string) {
	r, _ := ref.Parse(s)
	return r.Kind, r.Namespace, r.Name
}

func hasLabels(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// declaresParent reports whether route r of s names the ListenerSet of
// listener l as a parent (that listener, or the whole ListenerSet).
func declaresParent(s *generators.Scenario, r, l ref.Ref) bool {
	for _, rt := range s.Routes {
		if rt.RouteKind() != r.Kind || nsOr(rt.Namespace) != r.Namespace || rt.Name != r.Name {
			continue
		}
		for _, p := range rt.Parents {
			ns := p.Namespace
			if ns == "" {
				ns = nsOr(rt.Namespace)
			}
			if p.ListenerSet && ns == l.Namespace && p.Name == l.Name && (p.Section == "" || p.Section == l.Section) {
				return true
			}
		}
	}
	return false
}

// parentGateway is the Gateway a ListenerSet of s (the one of listener l)
// names as its parent.
func parentGateway(s *generators.Scenario, l ref.Ref) (ref.Ref, bool) {
	for _, set := range s.ListenerSets {
		if nsOr(set.Namespace) == l.Namespace && set.Name == l.Name {
			ns := set.Parent.Namespace
			if ns == "" {
				ns = nsOr(set.Namespace)
			}
			return ref.Ref{Kind: "Gateway", Namespace: ns, Name: set.Parent.Name}, true
		}
	}
	return ref.Ref{}, false
}

// attachedListenerSetListeners are the ListenerSet listeners route rt of s
// attaches to, read from the input: its parentRef names the ListenerSet
// (and the listener, when it has a sectionName); the ListenerSet's parent
// Gateway allows it (GEP-1713, Gateway & ListenerSet Handshake:
// allowedListeners.namespaces.from Same or All; none by default); the
// listener allows the route's namespace (allowedRoutes.namespaces.from:
// All, or Same, the ListenerSet's namespace) and carries its kind (Gateway
// API, Listener.protocol: HTTP carries HTTPRoute and GRPCRoute, TLS
// TLSRoute and TCPRoute, TCP TCPRoute, UDP UDPRoute).
func attachedListenerSetListeners(s *generators.Scenario, rt generators.Route) []ref.Ref {
	var out []ref.Ref
	kind, rns := rt.RouteKind(), nsOr(rt.Namespace)
	for _, p := range rt.Parents {
		if !p.ListenerSet {
			continue
		}
		ns := p.Namespace
		if ns == "" {
			ns = rns
		}
		for _, set := range s.ListenerSets {
			if nsOr(set.Namespace) != ns || set.Name != p.Name || !allowsListenerSet(s, set) {
				continue
			}
			for _, l := range set.Listeners {
				if p.Section != "" && p.Section != l.Name {
					continue
				}
				if !l.AllNamespaces && rns != ns || !carries(l.Protocol, kind) {
					continue
				}
				out = append(out, ref.Ref{Kind: "ListenerSet", Namespace: ns, Name: set.Name, Section: l.Name})
			}
		}
	}
	return out
}

// allowsListenerSet reports whether the parent Gateway of set allows it.
func allowsListenerSet(s *generators.Scenario, set generators.ListenerSet) bool {
	gwNS := set.Parent.Namespace
	if gwNS == "" {
		gwNS = nsOr(set.Namespace)
	}
	for _, gw := range s.Gateways {
		if nsOr(gw.Namespace) == gwNS && gw.Name == set.Parent.Name {
			switch gw.AllowListeners {
			case "All":
				return true
			case "Same":
				return gwNS == nsOr(set.Namespace)
			}
			return false
		}
	}
	return false
}

// carries reports whether a listener of protocol (HTTP when empty)
// carries routes of kind.
func carries(protocol, kind string) bool {
	switch protocol {
	case "", "HTTP", "HTTPS":
		return kind == "HTTPRoute" || kind == "GRPCRoute"
	case "TLS":
		return kind == "TLSRoute" || kind == "TCPRoute"
	case "TCP":
		return kind == "TCPRoute"
	case "UDP":
		return kind == "UDPRoute"
	}
	return false
}

// routeOf is the generated route r names.
func routeOf(s *generators.Scenario, r ref.Ref) (generators.Route, bool) {
	for _, rt := range s.Routes {
		if rt.RouteKind() == r.Kind && nsOr(rt.Namespace) == r.Namespace && rt.Name == r.Name {
			return rt, true
		}
	}
	return generators.Route{}, false
}
