package generators

import (
	"maps"
	"slices"

	"github.com/gepcheck/gepcheck/internal/jsonmap"
)

// smallerObjects lists the scenarios one removal smaller than s in its
// Gateway API objects: one route, Gateway, Service or ReferenceGrant gone,
// one listener, parent, rule or backend of several, one targetRef of a
// policy with several. References to what is removed stay (a policy then
// targets nothing, a route has no parent), which the reference reads as it
// would in a cluster; a candidate is kept only if it still shows the
// difference (Shrink). Backends are the exception: a Service goes with
// the backendRefs to it, and a rule left without backends with them,
// since an implementation serves a rule whose backends do not resolve
// with an error, not with its policies (Gateway API, HTTPRouteRule
// BackendRefs: "If *all* entries in BackendRefs are invalid ... *all*
// traffic which matches this rule MUST receive a 500 status code").
func smallerObjects(s *Scenario) []*Scenario {
	if s.Generic != nil {
		return nil
	}
	var out []*Scenario
	with := func(edit func(c *Scenario)) {
		c := s.Clone()
		edit(c)
		out = append(out, c)
	}
	for i := range s.Routes {
		with(func(c *Scenario) { c.Routes = slices.Delete(c.Routes, i, i+1) })
	}
	for i := range s.Services {
		with(func(c *Scenario) {
			gone := c.Services[i]
			c.Services = slices.Delete(c.Services, i, i+1)
			c.dropBackends(gone)
		})
	}
	for i := range s.Grants {
		with(func(c *Scenario) { c.Grants = slices.Delete(c.Grants, i, i+1) })
	}
	if len(s.Gateways) > 1 {
		for i := range s.Gateways {
			with(func(c *Scenario) { c.Gateways = slices.Delete(c.Gateways, i, i+1) })
		}
	}
	for i := range s.ListenerSets {
		with(func(c *Scenario) { c.ListenerSets = slices.Delete(c.ListenerSets, i, i+1) })
	}
	for i, g := range s.Gateways {
		if len(g.Listeners) > 1 {
			for j := range g.Listeners {
				with(func(c *Scenario) {
					c.Gateways[i].Listeners = slices.Delete(c.Gateways[i].Listeners, j, j+1)
				})
			}
		}
	}
	for i, r := range s.Routes {
		smallerRoute(i, r, with)
	}
	for i, p := range s.Policies {
		if len(p.Targets)+len(p.Selectors) > 1 {
			for j := range p.Targets {
				with(func(c *Scenario) { c.Policies[i].Targets = slices.Delete(c.Policies[i].Targets, j, j+1) })
			}
			for j := range p.Selectors {
				with(func(c *Scenario) { c.Policies[i].Selectors = slices.Delete(c.Policies[i].Selectors, j, j+1) })
			}
		}
	}
	return out
}

// smallerRoute gives, through with, route i (r) with one parentRef, one
// rule or one backendRef fewer, where it has more than one.
func smallerRoute(i int, r Route, with func(edit func(c *Scenario))) {
	if len(r.Parents) > 1 {
		for j := range r.Parents {
			with(func(c *Scenario) { c.Routes[i].Parents = slices.Delete(c.Routes[i].Parents, j, j+1) })
		}
	}
	if len(r.Rules) > 1 {
		for j := range r.Rules {
			with(func(c *Scenario) { c.Routes[i].Rules = slices.Delete(c.Routes[i].Rules, j, j+1) })
		}
	}
	for j, rule := range r.Rules {
		if len(rule.Backends) > 1 {
			for k := range rule.Backends {
				with(func(c *Scenario) {
					c.Routes[i].Rules[j].Backends = slices.Delete(c.Routes[i].Rules[j].Backends, k, k+1)
				})
			}
		}
	}
}

// dropBackends removes the backendRefs to svc, the rules left without
// backends, and the routes left without rules.
func (s *Scenario) dropBackends(svc Service) {
	routes := s.Routes[:0]
	for _, r := range s.Routes {
		rules := r.Rules[:0]
		for _, rule := range r.Rules {
			had := len(rule.Backends)
			rule.Backends = slices.DeleteFunc(rule.Backends, func(b BackendRef) bool {
				ns := b.Namespace
				if ns == "" {
					ns = r.Namespace
				}
				return ns == svc.Namespace && b.Name == svc.Name
			})
			if had == 0 || len(rule.Backends) > 0 {
				rules = append(rules, rule)
			}
		}
		r.Rules = rules
		if len(r.Rules) > 0 {
			routes = append(routes, r)
		}
	}
	s.Routes = routes
}

// Size counts what a reader of a counterexample reads: objects, their
// sections and references, and policies with their targetRefs.
func Size(s *Scenario) int {
	n := len(s.Gateways) + len(s.ListenerSets) + len(s.Services) + len(s.Grants) + len(s.Routes)
	for _, g := range s.Gateways {
		n += len(g.Listeners)
	}
	for _, ls := range s.ListenerSets {
		n += len(ls.Listeners)
	}
	for _, r := range s.Routes {
		n += len(r.Parents) + len(r.Rules)
		for _, rule := range r.Rules {
			n += len(rule.Backends)
		}
	}
	for _, p := range s.Policies {
		n += 1 + len(p.Targets) + len(p.Selectors)
	}
	return n
}

// Smaller lists the scenarios one step smaller than s that shrinking tries
// (offline and in a cluster): one policy removed (of several), one spec
// field removed, one object, section or reference removed
// (smallerObjects).
func Smaller(s *Scenario) []*Scenario {
	var cands []*Scenario
	for i := range s.Policies {
		c := s.Clone()
		c.Policies = append(c.Policies[:i:i], c.Policies[i+1:]...)
		if len(c.Policies) > 0 {
			cands = append(cands, c)
		}
	}
	for i, p := range s.Policies {
		for _, f := range LeafPaths(p.Spec, nil) {
			c := s.Clone()
			c.Policies[i].Spec = jsonmap.Clone(p.Spec)
			deletePath(c.Policies[i].Spec, f)
			cands = append(cands, c)
		}
	}
	return append(cands, smallerObjects(s)...)
}

// LeafPaths lists the paths of the leaves of m (scalars, lists, empty
// objects), each after prefix, in key order (shrinking is deterministic).
func LeafPaths(m map[string]any, prefix []string) [][]string {
	var out [][]string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		p := append(append([]string(nil), prefix...), k)
		if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
			out = append(out, LeafPaths(sub, p)...)
			continue
		}
		out = append(out, p)
	}
	return out
}

func deletePath(m map[string]any, path []string) {
	if len(path) == 1 {
		delete(m, path[0])
		return
	}
	sub, ok := m[path[0]].(map[string]any)
	if !ok {
		return
	}
	deletePath(sub, path[1:])
	if len(sub) == 0 {
		delete(m, path[0])
	}
}
