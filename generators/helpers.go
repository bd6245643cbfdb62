package generators

import (
	"maps"
	"math/rand/v2"
	"slices"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/internal/jsonmap"
)

// Clone returns a deep copy of s: changing one never changes the other.
func (s *Scenario) Clone() *Scenario {
	if s == nil {
		return nil
	}
	c := *s
	c.Namespaces = slices.Clone(s.Namespaces)
	c.GatewayClasses = slices.Clone(s.GatewayClasses)
	c.OtherClasses = slices.Clone(s.OtherClasses)
	c.Gateways = slices.Clone(s.Gateways)
	for i := range c.Gateways {
		c.Gateways[i].Listeners = slices.Clone(c.Gateways[i].Listeners)
	}
	c.ListenerSets = slices.Clone(s.ListenerSets)
	for i := range c.ListenerSets {
		c.ListenerSets[i].Listeners = slices.Clone(c.ListenerSets[i].Listeners)
	}
	c.Routes = slices.Clone(s.Routes)
	for i := range c.Routes {
		r := &c.Routes[i]
		r.Labels = maps.Clone(r.Labels)
		r.Parents = slices.Clone(r.Parents)
		r.Rules = slices.Clone(r.Rules)
		for j := range r.Rules {
			r.Rules[j].Backends = slices.Clone(r.Rules[j].Backends)
		}
	}
	c.Services = slices.Clone(s.Services)
	for i := range c.Services {
		c.Services[i].Ports = slices.Clone(c.Services[i].Ports)
		c.Services[i].PortNumbers = slices.Clone(c.Services[i].PortNumbers)
	}
	c.Grants = slices.Clone(s.Grants)
	c.ConfigMaps = slices.Clone(s.ConfigMaps) // Data is never changed in place
	c.OwnFields = slices.Clone(s.OwnFields)
	for i := range c.OwnFields {
		c.OwnFields[i].Fields = jsonmap.Clone(c.OwnFields[i].Fields)
	}
	if s.Generic != nil {
		g := *s.Generic
		g.Kinds = slices.Clone(g.Kinds)
		g.Nodes = slices.Clone(g.Nodes)
		g.Edges = slices.Clone(g.Edges)
		c.Generic = &g
	}
	c.Policies = make([]Policy, len(s.Policies))
	for i, p := range s.Policies {
		c.Policies[i] = p.Clone()
	}
	if s.Policies == nil {
		c.Policies = nil
	}
	return &c
}

// Clone returns a deep copy of p.
func (p Policy) Clone() Policy {
	if p.Created != nil {
		ts := *p.Created
		p.Created = &ts
	}
	p.Targets = slices.Clone(p.Targets)
	p.Selectors = slices.Clone(p.Selectors)
	for i := range p.Selectors {
		p.Selectors[i].MatchLabels = maps.Clone(p.Selectors[i].MatchLabels)
	}
	if p.Spec != nil {
		p.Spec = jsonmap.Clone(p.Spec)
	}
	return p
}

// WithPolicy returns a copy of s with p added, or replacing the policy of
// the same group, kind, namespace and name.
func (s *Scenario) WithPolicy(p Policy) *Scenario {
	c := s.Clone()
	p = p.Clone()
	i := slices.IndexFunc(c.Policies, func(q Policy) bool {
		return q.Group == p.Group && q.Kind == p.Kind && q.Namespace == p.Namespace && q.Name == p.Name
	})
	if i >= 0 {
		c.Policies[i] = p
	} else {
		c.Policies = append(c.Policies, p)
	}
	if p.Namespace != "" && !slices.Contains(c.Namespaces, p.Namespace) {
		c.Namespaces = append(c.Namespaces, p.Namespace)
	}
	return c
}

// Permute returns a copy of s with the order of its documents drawn anew:
// namespaces, GatewayClasses, Gateways, routes, Services, grants, policies,
// and the nodes and edges of a generic topology. Lists inside an object
// (listeners, parentRefs, rules, ports, targetRefs) keep their order: it is
// part of the object (a rule's position names it; status and warnings cite
// fields by index).
func Permute(t *rapid.T, s *Scenario) *Scenario {
	c := s.Clone()
	permuteDocs(c, func(n int, label string) []int {
		return rapid.Permutation(identity(n)).Draw(t, label)
	})
	return c
}

// ShuffleDocs reorders s in place as Permute does, deterministically from
// seed and without rapid (so without shrinking).
func (s *Scenario) ShuffleDocs(seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	permuteDocs(s, func(n int, _ string) []int { return rng.Perm(n) })
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func reorder[E any](l []E, perm []int) []E {
	if len(l) == 0 {
		return l
	}
	out := make([]E, len(l))
	for i, j := range perm {
		out[i] = l[j]
	}
	return out
}

// permuteDocs applies the permutations perm draws (perm(n) is a
// permutation of 0..n-1) to s.
func permuteDocs(s *Scenario, perm func(n int, label string) []int) {
	s.Namespaces = reorder(s.Namespaces, perm(len(s.Namespaces), "namespaces order"))
	s.GatewayClasses = reorder(s.GatewayClasses, perm(len(s.GatewayClasses), "gatewayClasses order"))
	s.Gateways = reorder(s.Gateways, perm(len(s.Gateways), "gateways order"))
	s.Routes = reorder(s.Routes, perm(len(s.Routes), "routes order"))
	s.Services = reorder(s.Services, perm(len(s.Services), "services order"))
	s.Grants = reorder(s.Grants, perm(len(s.Grants), "grants order"))
	if g := s.Generic; g != nil {
		p := perm(len(g.Nodes), "nodes order")
		at := make([]int, len(p)) // old index -> new index
		for i, j := range p {
			at[j] = i
		}
		g.Nodes = reorder(g.Nodes, p)
		for i, e := range g.Edges {
			g.Edges[i] = [2]int{at[e[0]], at[e[1]]}
		}
		g.Edges = reorder(g.Edges, perm(len(g.Edges), "edges order"))
	}
	s.Policies = reorder(s.Policies, perm(len(s.Policies), "policies order"))
	// Drawn last and only when there are some, so that scenarios without
	// ConfigMaps draw as they did before ConfigMaps were generated.
	if len(s.ConfigMaps) > 0 {
		s.ConfigMaps = reorder(s.ConfigMaps, perm(len(s.ConfigMaps), "configMaps order"))
	}
}

// InNamespace returns a copy of a single-namespace scenario moved to
// namespace ns, so that scenarios can be batched one namespace each.
func (s *Scenario) InNamespace(ns string) *Scenario {
	c := s.Clone()
	c.Namespaces = []string{ns}
	for i := range c.Gateways {
		c.Gateways[i].Namespace = ns
	}
	for i := range c.Routes {
		c.Routes[i].Namespace = ns
	}
	for i := range c.Services {
		c.Services[i].Namespace = ns
	}
	for i := range c.Policies {
		c.Policies[i].Namespace = ns
	}
	for i := range c.ConfigMaps {
		c.ConfigMaps[i].Namespace = ns
	}
	for i := range c.OwnFields {
		c.OwnFields[i].Namespace = ns
	}
	return c
}
