package differential

import (
	"slices"

	"github.com/gepcheck/gepcheck/generators"
)

// smallerObjects lists the scenarios one removal smaller than s in its
// Gateway API objects: one route, Gateway, Service or ReferenceGrant gone,
// one listener, parent, rule or backend of several, one targetRef of a
// policy with several. References to what is removed stay (a policy then
// targets nothing, a route has no parent), which the reference reads as it
// would in a cluster; a candidate is kept only if it still shows the
// difference (Shrink).
func smallerObjects(s *generators.Scenario) []*generators.Scenario {
	if s.Generic != nil {
		return nil
	}
	var out []*generators.Scenario
	with := func(edit func(c *generators.Scenario)) {
		c := s.Clone()
		edit(c)
		out = append(out, c)
	}
	for i := range s.Routes {
		with(func(c *generators.Scenario) { c.Routes = slices.Delete(c.Routes, i, i+1) })
	}
	for i := range s.Services {
		with(func(c *generators.Scenario) { c.Services = slices.Delete(c.Services, i, i+1) })
	}
	for i := range s.Grants {
		with(func(c *generators.Scenario) { c.Grants = slices.Delete(c.Grants, i, i+1) })
	}
	if len(s.Gateways) > 1 {
		for i := range s.Gateways {
			with(func(c *generators.Scenario) { c.Gateways = slices.Delete(c.Gateways, i, i+1) })
		}
	}
	for i, g := range s.Gateways {
		if len(g.Listeners) > 1 {
			for j := range g.Listeners {
				with(func(c *generators.Scenario) {
					c.Gateways[i].Listeners = slices.Delete(c.Gateways[i].Listeners, j, j+1)
				})
			}
		}
	}
	for i, r := range s.Routes {
		if len(r.Parents) > 1 {
			for j := range r.Parents {
				with(func(c *generators.Scenario) { c.Routes[i].Parents = slices.Delete(c.Routes[i].Parents, j, j+1) })
			}
		}
		if len(r.Rules) > 1 {
			for j := range r.Rules {
				with(func(c *generators.Scenario) { c.Routes[i].Rules = slices.Delete(c.Routes[i].Rules, j, j+1) })
			}
		}
		for j, rule := range r.Rules {
			if len(rule.Backends) > 1 {
				for k := range rule.Backends {
					with(func(c *generators.Scenario) {
						c.Routes[i].Rules[j].Backends = slices.Delete(c.Routes[i].Rules[j].Backends, k, k+1)
					})
				}
			}
		}
	}
	for i, p := range s.Policies {
		if len(p.Targets) > 1 {
			for j := range p.Targets {
				with(func(c *generators.Scenario) { c.Policies[i].Targets = slices.Delete(c.Policies[i].Targets, j, j+1) })
			}
		}
	}
	return out
}

// size counts what a reader of a counterexample reads: objects, their
// sections and references, and policies with their targetRefs.
func size(s *generators.Scenario) int {
	n := len(s.Gateways) + len(s.Services) + len(s.Grants) + len(s.Routes)
	for _, g := range s.Gateways {
		n += len(g.Listeners)
	}
	for _, r := range s.Routes {
		n += len(r.Parents) + len(r.Rules)
		for _, rule := range r.Rules {
			n += len(rule.Backends)
		}
	}
	for _, p := range s.Policies {
		n += 1 + len(p.Targets)
	}
	return n
}
