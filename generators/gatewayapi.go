package generators

import (
	"fmt"
	"slices"

	"pgregory.net/rapid"
)

// AllNamespaces are the namespaces objects and policies are drawn in: few,
// so that {namespace}/{name} ordering and same names in two namespaces are
// frequent.
var AllNamespaces = []string{"ns-a", "ns-b", "ns-c"}

var (
	listenerNames      = []string{"http", "https", "alt", "admin"}
	listenerPorts      = []int{80, 443, 8080, 9090}
	portNames          = []string{"http", "grpc", "metrics"}
	servicePortNumbers = []int{8080, 9000, 9090}
	ruleNames          = []string{"rule-a", "rule-b", "rule-c"}
)

// Scenarios draws Gateway API shaped scenarios: 1–2 GatewayClasses;
// Gateways in 1–3 namespaces with 1–3 uniquely named HTTP listeners, some
// accepting routes from all namespaces; HTTPRoutes and GRPCRoutes with named
// and unnamed rules, attached to one Gateway, to one listener or to two
// Gateways; Services with and without named ports shared by many routes,
// some across namespaces with a ReferenceGrant; and policies of the
// configured profile (see Config). Scenarios panics if cfg is not valid
// (Config.Validate).
func Scenarios(cfg Config) *rapid.Generator[*Scenario] {
	if err := cfg.Validate(); err != nil {
		panic("generators.Scenarios: " + err.Error())
	}
	cfg = cfg.withDefaults()
	choices := cfg.profileChoices()
	return rapid.Custom(func(t *rapid.T) *Scenario {
		name := rapid.SampledFrom(choices).Draw(t, "profile")
		if cfg.Profile != "" {
			name = cfg.Profile
		}
		s := &Scenario{}
		switch {
		case name == "all-levels" && cfg.CrossNamespace:
			s.ProfileYAML = AllLevelsCrossNamespaceProfile
		case name == "all-levels":
			s.ProfileYAML = AllLevelsProfile
		default:
			s.Profile = name
		}
		drawGatewayAPI(t, s, cfg.MaxObjects)
		w := newWorld(s, cfg)
		n := rapid.IntRange(min(1, cfg.MaxPolicies), cfg.MaxPolicies).Draw(t, "policies")
		for i := 0; i < n; i++ {
			s.Policies = append(s.Policies, w.drawPolicy(t, true))
		}
		s.Namespaces = namespacesOf(s)
		return s
	})
}

// budget hands out the objects of Config.MaxObjects.
type budget struct{ left int }

// draw draws a count in [lo, hi], leaving reserve objects for later.
func (b *budget) draw(t *rapid.T, label string, lo, hi, reserve int) int {
	hi = min(hi, b.left-reserve)
	lo = min(lo, hi)
	if hi <= 0 {
		return 0
	}
	n := rapid.IntRange(lo, hi).Draw(t, label)
	b.left -= n
	return n
}

// drawGatewayAPI draws the Gateway API objects of s.
func drawGatewayAPI(t *rapid.T, s *Scenario, maxObjects int) {
	b := &budget{left: maxObjects}
	namespaces := AllNamespaces[:rapid.IntRange(1, len(AllNamespaces)).Draw(t, "namespaces")]
	nsGen := rapid.SampledFrom(namespaces)
	perNS := map[string]int{}
	nameIn := func(prefix, ns string) string {
		perNS[prefix+"/"+ns]++
		return fmt.Sprintf("%s-%d", prefix, perNS[prefix+"/"+ns])
	}

	for i := range b.draw(t, "gatewayClasses", 1, 2, 3) {
		s.GatewayClasses = append(s.GatewayClasses, fmt.Sprintf("gc-%d", i+1))
	}
	for range b.draw(t, "gateways", 1, max(3, maxObjects/7), 2) {
		ns := nsGen.Draw(t, "gateway namespace")
		gw := Gateway{Namespace: ns, Name: nameIn("gw", ns), Class: rapid.SampledFrom(s.GatewayClasses).Draw(t, "class")}
		for _, l := range rapid.SliceOfNDistinct(rapid.IntRange(0, len(listenerNames)-1), 1, 3, rapid.ID[int]).Draw(t, "listeners") {
			gw.Listeners = append(gw.Listeners, Listener{
				Name: listenerNames[l], Port: listenerPorts[l],
				AllNamespaces: rapid.IntRange(0, 9).Draw(t, "allowedRoutes") < 4,
			})
		}
		s.Gateways = append(s.Gateways, gw)
	}
	for range b.draw(t, "services", 1, max(4, maxObjects/4), 1) {
		ns := nsGen.Draw(t, "service namespace")
		svc := Service{Namespace: ns, Name: nameIn("svc", ns)}
		for _, p := range rapid.SliceOfNDistinct(rapid.IntRange(0, len(portNames)-1), 0, 2, rapid.ID[int]).Draw(t, "ports") {
			svc.Ports = append(svc.Ports, portNames[p])
		}
		s.Services = append(s.Services, svc)
	}
	type crossRef struct{ kind, from, to string }
	var crossRefs []crossRef
	for range b.draw(t, "routes", 1, max(6, maxObjects/3), 0) {
		r := drawRoute(t, s, nsGen, nameIn)
		for _, rule := range r.Rules {
			for _, be := range rule.Backends {
				if be.Namespace != "" && be.Namespace != r.Namespace {
					c := crossRef{r.kind(), r.Namespace, be.Namespace}
					if !slices.Contains(crossRefs, c) {
						crossRefs = append(crossRefs, c)
					}
				}
			}
		}
		s.Routes = append(s.Routes, r)
	}
	// ReferenceGrants for most cross-namespace backendRefs.
	for _, c := range crossRefs {
		if b.left == 0 || rapid.IntRange(0, 9).Draw(t, "grant backend") >= 7 {
			continue
		}
		g := Grant{
			Namespace: c.to, Name: nameIn("grant", c.to),
			FromGroup: gatewayGroup, FromKind: c.kind, FromNamespace: c.from,
			ToGroup: "", ToKind: "Service",
		}
		if rapid.IntRange(0, 9).Draw(t, "grant one Service") < 3 {
			var names []string
			for _, svc := range s.Services {
				if svc.Namespace == c.to {
					names = append(names, svc.Name)
				}
			}
			g.ToName = rapid.SampledFrom(names).Draw(t, "granted Service")
		}
		s.Grants = append(s.Grants, g)
		b.left--
	}
}

const gatewayGroup = "gateway.networking.k8s.io"

func (r *Route) kind() string {
	if r.GRPC {
		return "GRPCRoute"
	}
	return "HTTPRoute"
}

// drawRoute draws a route attached to one Gateway, one listener or two
// Gateways, with 1–3 rules of 1–2 backends each.
func drawRoute(t *rapid.T, s *Scenario, nsGen *rapid.Generator[string], nameIn func(prefix, ns string) string) Route {
	gws := s.Gateways
	first := rapid.IntRange(0, len(gws)-1).Draw(t, "parent")
	ns := gws[first].Namespace
	if rapid.IntRange(0, 9).Draw(t, "route in another namespace") >= 8 {
		ns = nsGen.Draw(t, "route namespace")
	}
	r := Route{Namespace: ns, GRPC: rapid.IntRange(0, 3).Draw(t, "grpc") == 3}
	r.Name = nameIn(map[bool]string{false: "route", true: "grpc"}[r.GRPC], ns)
	parent := func(i int, section bool) ParentRef {
		gw := gws[i]
		p := ParentRef{Name: gw.Name}
		if gw.Namespace != ns {
			p.Namespace = gw.Namespace
		}
		if section {
			p.Section = rapid.SampledFrom(gw.Listeners).Draw(t, "parent listener").Name
		}
		return p
	}
	switch shape := rapid.IntRange(0, 2).Draw(t, "attachment"); {
	case shape == 2 && len(gws) > 1:
		// Two Gateways, preferably both accepting the route's namespace.
		var others, sameNS []int
		for i, gw := range gws {
			if i != first {
				others = append(others, i)
				if gw.Namespace == ns {
					sameNS = append(sameNS, i)
				}
			}
		}
		if len(sameNS) > 0 && rapid.IntRange(0, 9).Draw(t, "second parent in the route's namespace") < 7 {
			others = sameNS
		}
		second := rapid.SampledFrom(others).Draw(t, "second parent")
		r.Parents = []ParentRef{
			parent(first, rapid.IntRange(0, 3).Draw(t, "first parent listener") == 3),
			parent(second, rapid.IntRange(0, 3).Draw(t, "second parent listener") == 3),
		}
	case shape == 1:
		r.Parents = []ParentRef{parent(first, true)}
	default:
		r.Parents = []ParentRef{parent(first, false)}
	}
	var local []int
	for i, svc := range s.Services {
		if svc.Namespace == ns {
			local = append(local, i)
		}
	}
	for k := range rapid.IntRange(1, 3).Draw(t, "rules") {
		var rule Rule
		if rapid.Bool().Draw(t, "named rule") {
			rule.Name = ruleNames[k]
		}
		for range rapid.IntRange(1, 2).Draw(t, "backends") {
			var i int
			if len(local) > 0 && rapid.IntRange(0, 9).Draw(t, "backend in the route's namespace") < 8 {
				i = rapid.SampledFrom(local).Draw(t, "backend")
			} else {
				i = rapid.IntRange(0, len(s.Services)-1).Draw(t, "backend")
			}
			svc := s.Services[i]
			be := BackendRef{Name: svc.Name}
			if svc.Namespace != ns {
				be.Namespace = svc.Namespace
			}
			if !slices.Contains(rule.Backends, be) {
				rule.Backends = append(rule.Backends, be)
			}
		}
		r.Rules = append(r.Rules, rule)
	}
	return r
}

// namespacesOf lists the namespaces of the objects and policies of s, in
// AllNamespaces order, then any other in order of appearance.
func namespacesOf(s *Scenario) []string {
	seen := map[string]bool{}
	var extra []string
	add := func(ns string) {
		if ns == "" || seen[ns] {
			return
		}
		seen[ns] = true
		if !slices.Contains(AllNamespaces, ns) {
			extra = append(extra, ns)
		}
	}
	for _, gw := range s.Gateways {
		add(gw.Namespace)
	}
	for _, r := range s.Routes {
		add(r.Namespace)
	}
	for _, svc := range s.Services {
		add(svc.Namespace)
	}
	for _, g := range s.Grants {
		add(g.Namespace)
	}
	for _, p := range s.Policies {
		add(p.Namespace)
	}
	var out []string
	for _, ns := range AllNamespaces {
		if seen[ns] {
			out = append(out, ns)
		}
	}
	return append(out, extra...)
}
