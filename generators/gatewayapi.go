package generators

import (
	"fmt"
	"slices"

	"pgregory.net/rapid"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
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
		case name == "all-levels" && cfg.Hierarchy:
			s.ProfileYAML = HierarchyProfile
		case name == "all-levels" && cfg.CrossNamespace:
			s.ProfileYAML = AllLevelsCrossNamespaceProfile
		case name == "all-levels":
			s.ProfileYAML = AllLevelsProfile
		default:
			s.Profile = name
		}
		drawGatewayAPI(t, s, cfg.MaxObjects, cfg.Hierarchy)
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
func drawGatewayAPI(t *rapid.T, s *Scenario, maxObjects int, hierarchy bool) {
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
	if hierarchy {
		drawHierarchy(t, s, b, nsGen, nameIn)
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
		if hierarchy {
			hierarchyRoute(t, s, &r)
		}
		for _, rule := range r.Rules {
			for _, be := range rule.Backends {
				if be.Namespace != "" && be.Namespace != r.Namespace {
					c := crossRef{r.RouteKind(), r.Namespace, be.Namespace}
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

// RouteKind is the kind of r: Kind, else GRPCRoute or HTTPRoute.
func (r *Route) RouteKind() string {
	if r.Kind != "" {
		return r.Kind
	}
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
	r.Rules = drawRules(t, s, ns)
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

// protocol is the listener's protocol (HTTP when Protocol is empty).
func (l Listener) protocol() gwv1.ProtocolType {
	if l.Protocol == "" {
		return gwv1.HTTPProtocolType
	}
	return gwv1.ProtocolType(l.Protocol)
}

// SelectorField is the spec field of label-selector targets in
// HierarchyProfile (profile.TargetSelectors).
const SelectorField = "targetSelectors"

// Listeners of Config.Hierarchy beyond HTTP: each carries the route kinds
// of its protocol (Gateway API, Listener.protocol).
var (
	hierarchyListeners = []Listener{
		{Name: "tcp", Port: 9000, Protocol: "TCP"},
		{Name: "tls", Port: 8443, Protocol: "TLS"},
		{Name: "udp", Port: 5353, Protocol: "UDP"},
	}
	// RouteKinds are the route kinds Config.Hierarchy draws besides
	// HTTPRoute and GRPCRoute.
	RouteKinds = []string{"TCPRoute", "TLSRoute", "UDPRoute"}
	// LabelValues are the values of the label "tier" routes and selectors
	// draw.
	LabelValues = []string{"gold", "silver"}
)

// drawHierarchy adds to s what Config.Hierarchy draws beyond HTTP (GEP-1713
// ListenerSets; TLS, TCP and UDP listeners): it runs after the Gateways are
// drawn, before the routes.
func drawHierarchy(t *rapid.T, s *Scenario, b *budget, nsGen *rapid.Generator[string], nameIn func(prefix, ns string) string) {
	for i := range s.Gateways {
		gw := &s.Gateways[i]
		gw.AllowListeners = rapid.SampledFrom([]string{"", "Same", "All"}).Draw(t, "allowedListeners")
		if rapid.Bool().Draw(t, "layer-4 listener") {
			l := rapid.SampledFrom(hierarchyListeners).Draw(t, "layer-4 listener kind")
			l.AllNamespaces = rapid.Bool().Draw(t, "layer-4 allowedRoutes")
			gw.Listeners = append(gw.Listeners, l)
		}
	}
	all := append(slices.Clone(hierarchyListeners), Listener{Name: "http", Port: 8080}, Listener{Name: "alt", Port: 8081})
	for range b.draw(t, "listenerSets", 0, 2, 1) {
		ns := nsGen.Draw(t, "listenerSet namespace")
		gw := rapid.SampledFrom(s.Gateways).Draw(t, "listenerSet parent")
		set := ListenerSet{Namespace: ns, Name: nameIn("ls", ns), Parent: ParentRef{Name: gw.Name}}
		if gw.Namespace != ns {
			set.Parent.Namespace = gw.Namespace
		}
		for _, k := range rapid.SliceOfNDistinct(rapid.IntRange(0, len(all)-1), 1, 2, rapid.ID[int]).Draw(t, "listenerSet listeners") {
			l := all[k]
			l.AllNamespaces = rapid.Bool().Draw(t, "listenerSet allowedRoutes")
			set.Listeners = append(set.Listeners, l)
		}
		s.ListenerSets = append(s.ListenerSets, set)
	}
}

// hierarchyRoute redraws what Config.Hierarchy adds to a route: its kind,
// a label, and one parent on a ListenerSet.
func hierarchyRoute(t *rapid.T, s *Scenario, r *Route) {
	if k := rapid.IntRange(0, len(RouteKinds)+1).Draw(t, "route kind"); k < len(RouteKinds) {
		r.Kind, r.GRPC = RouteKinds[k], false
	}
	if v := rapid.IntRange(0, len(LabelValues)).Draw(t, "route label"); v < len(LabelValues) {
		r.Labels = map[string]string{"tier": LabelValues[v]}
	}
	if len(s.ListenerSets) > 0 && rapid.Bool().Draw(t, "on a ListenerSet") {
		set := rapid.SampledFrom(s.ListenerSets).Draw(t, "parent ListenerSet")
		p := ParentRef{Name: set.Name, ListenerSet: true}
		if set.Namespace != r.Namespace {
			p.Namespace = set.Namespace
		}
		if rapid.Bool().Draw(t, "ListenerSet listener") {
			p.Section = rapid.SampledFrom(set.Listeners).Draw(t, "parent ListenerSet listener").Name
		}
		r.Parents = []ParentRef{p}
	}
}

// drawRules draws 1–3 rules of 1–2 backends each for a route in ns,
// preferably to Services of ns.
func drawRules(t *rapid.T, s *Scenario, ns string) []Rule {
	var rules []Rule
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
		rules = append(rules, rule)
	}
	return rules
}
