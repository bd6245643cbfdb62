package topology

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gepcheck/gepcheck/simulator/ref"
)

// Groups, kinds and defaults of the objects AddGatewayAPI knows.
const (
	GatewayAPIGroup = "gateway.networking.k8s.io"
	CoreGroup       = ""

	KindGatewayClass = "GatewayClass"
	KindGateway      = "Gateway"
	KindHTTPRoute    = "HTTPRoute"
	KindGRPCRoute    = "GRPCRoute"
	KindService      = "Service"
	KindNamespace    = "Namespace"

	// DefaultNamespace is the namespace of objects read without one.
	DefaultNamespace = "default"
	// NamespaceNameLabel is the label Kubernetes sets on every namespace to
	// its name.
	NamespaceNameLabel = "kubernetes.io/metadata.name"
)

// GatewayAPI holds the objects of a cluster that make up the Gateway API
// hierarchy. ReferenceGrants of v1beta1 are converted to v1 by the caller.
type GatewayAPI struct {
	GatewayClasses  []*gwv1.GatewayClass
	Gateways        []*gwv1.Gateway
	HTTPRoutes      []*gwv1.HTTPRoute
	GRPCRoutes      []*gwv1.GRPCRoute
	Services        []*corev1.Service
	Namespaces      []*corev1.Namespace
	ReferenceGrants []*gwv1.ReferenceGrant
}

// RuleSectionName names a route rule as a section of its route: its name if
// set, else the positional name "rules[i]", which a rule name can never be.
func RuleSectionName(name *gwv1.SectionName, i int) string {
	if name != nil && *name != "" {
		return string(*name)
	}
	return fmt.Sprintf("rules[%d]", i)
}

// AddGatewayAPI adds the Gateway API hierarchy of GEP-713 ("Hierarchy of
// target kinds"): GatewayClass > Gateway > listener > route > route rule >
// Service > Service port. Relationships that are declared but not made, such
// as a route refused by every listener of its parent, are reported in
// g.Warnings. The result does not depend on the order of the input slices.
func (g *Graph) AddGatewayAPI(in GatewayAPI) {
	b := &gatewayAPIBuilder{
		g:        g,
		grants:   Grants(in.ReferenceGrants),
		nsLabels: namespaceLabels(in.Namespaces),
		gateways: map[string]*gwv1.Gateway{},
		services: map[string]NodeID{},
	}
	b.addClasses(sortedObjects(in.GatewayClasses))
	b.addGateways(sortedObjects(in.Gateways))
	b.addServices(sortedObjects(in.Services))
	for _, r := range httpRoutes(sortedObjects(in.HTTPRoutes)) {
		b.addRoute(r)
	}
	for _, r := range grpcRoutes(sortedObjects(in.GRPCRoutes)) {
		b.addRoute(r)
	}
	g.Sort()
}

type gatewayAPIBuilder struct {
	g        *Graph
	grants   Grants
	nsLabels map[string]labels.Set
	classes  map[string]NodeID
	gateways map[string]*gwv1.Gateway // by namespace/name
	services map[string]NodeID        // by namespace/name
}

func (b *gatewayAPIBuilder) warnf(format string, args ...any) {
	b.g.Warnings = append(b.g.Warnings, fmt.Sprintf(format, args...))
}

func (b *gatewayAPIBuilder) edge(parent, child NodeID) {
	if err := b.g.Edge(parent, child); err != nil {
		b.warnf("%v", err)
	}
}

func (b *gatewayAPIBuilder) addClasses(classes []*gwv1.GatewayClass) {
	b.classes = make(map[string]NodeID, len(classes))
	for _, c := range classes {
		// GatewayClasses are cluster-scoped.
		b.classes[c.Name] = b.g.Add(ref.Ref{Group: GatewayAPIGroup, Kind: KindGatewayClass, Name: c.Name})
	}
}

func (b *gatewayAPIBuilder) addGateways(gateways []*gwv1.Gateway) {
	for _, gw := range gateways {
		ns := namespaceOf(gw.Namespace)
		r := ref.Ref{Group: GatewayAPIGroup, Kind: KindGateway, Namespace: ns, Name: gw.Name}
		id := b.g.Add(r)
		b.gateways[ns+"/"+gw.Name] = gw
		if class, ok := b.classes[string(gw.Spec.GatewayClassName)]; ok {
			b.edge(class, id)
		}
		// GEP-2649, Interactions between defaults, overrides, and field
		// values: "the Namespace -> Gateway hierarchy on top of the Gateway
		// -> HTTPRoute hierarchy": a policy on a namespace affects its
		// Gateways and the routes attached to them.
		b.edge(b.g.Add(ref.Ref{Group: CoreGroup, Kind: KindNamespace, Name: ns}), id)
		for _, l := range gw.Spec.Listeners {
			r.Section = string(l.Name)
			b.edge(id, b.g.Add(r))
		}
	}
}

func (b *gatewayAPIBuilder) addServices(services []*corev1.Service) {
	for _, svc := range services {
		ns := namespaceOf(svc.Namespace)
		r := ref.Ref{Group: CoreGroup, Kind: KindService, Namespace: ns, Name: svc.Name}
		id := b.g.Add(r)
		b.services[ns+"/"+svc.Name] = id
		for _, p := range svc.Spec.Ports {
			if p.Name == "" {
				continue // only named ports can be targeted as sections
			}
			r.Section = p.Name
			b.edge(id, b.g.Add(r))
		}
	}
}

// route is what AddGatewayAPI needs of an HTTPRoute or a GRPCRoute.
type route struct {
	kind, namespace, name string
	parents               []gwv1.ParentReference
	rules                 []routeRule
}

type routeRule struct {
	name     *gwv1.SectionName
	backends []gwv1.BackendObjectReference
}

func (r *route) String() string { return r.kind + " " + r.namespace + "/" + r.name }

func httpRoutes(in []*gwv1.HTTPRoute) []*route {
	out := make([]*route, 0, len(in))
	for _, hr := range in {
		r := &route{kind: KindHTTPRoute, namespace: namespaceOf(hr.Namespace), name: hr.Name, parents: hr.Spec.ParentRefs}
		for _, rule := range hr.Spec.Rules {
			rr := routeRule{name: rule.Name}
			for _, br := range rule.BackendRefs {
				rr.backends = append(rr.backends, br.BackendObjectReference)
			}
			r.rules = append(r.rules, rr)
		}
		out = append(out, r)
	}
	return out
}

func grpcRoutes(in []*gwv1.GRPCRoute) []*route {
	out := make([]*route, 0, len(in))
	for _, gr := range in {
		r := &route{kind: KindGRPCRoute, namespace: namespaceOf(gr.Namespace), name: gr.Name, parents: gr.Spec.ParentRefs}
		for _, rule := range gr.Spec.Rules {
			rr := routeRule{name: rule.Name}
			for _, br := range rule.BackendRefs {
				rr.backends = append(rr.backends, br.BackendObjectReference)
			}
			r.rules = append(r.rules, rr)
		}
		out = append(out, r)
	}
	return out
}

// addRoute adds a route, its rules and their backends, and attaches the
// route to the listeners of its parents. Backends referenced by filters
// (e.g. RequestMirror) are not part of the hierarchy.
func (b *gatewayAPIBuilder) addRoute(r *route) {
	rr := ref.Ref{Group: GatewayAPIGroup, Kind: r.kind, Namespace: r.namespace, Name: r.name}
	id := b.g.Add(rr)
	seen := map[string]int{}
	for i, rule := range r.rules {
		rr.Section = RuleSectionName(rule.name, i)
		if j, dup := seen[rr.Section]; dup {
			b.warnf("%s: spec.rules[%d]: rule name %q is also the name of spec.rules[%d]", r, i, rr.Section, j)
		} else {
			seen[rr.Section] = i
		}
		ruleID := b.g.Add(rr)
		b.g.Node(ruleID).Positional = rule.name == nil
		b.edge(id, ruleID)
		for j, br := range rule.backends {
			b.addBackend(r, ruleID, i, j, br)
		}
	}
	for i, p := range r.parents {
		b.attach(r, id, i, p)
	}
}

// addBackend adds the edge rule > Service for a backendRef.
func (b *gatewayAPIBuilder) addBackend(r *route, ruleID NodeID, rule, backend int, br gwv1.BackendObjectReference) {
	group, kind := CoreGroup, KindService
	if br.Group != nil {
		group = string(*br.Group)
	}
	if br.Kind != nil {
		kind = string(*br.Kind)
	}
	ns := r.namespace
	if br.Namespace != nil && *br.Namespace != "" {
		ns = string(*br.Namespace)
	}
	// where locates a warning; built only when one is written.
	where := func() string {
		return fmt.Sprintf("%s: spec.rules[%d].backendRefs[%d] (%s %s/%s)", r, rule, backend, groupKind(group, kind), ns, br.Name)
	}
	if group != CoreGroup || kind != KindService {
		b.warnf("%s: only Service backends are part of the hierarchy", where())
		return
	}
	svc, ok := b.services[ns+"/"+string(br.Name)]
	if !ok {
		b.warnf("%s: Service not found", where())
		return
	}
	if !b.grants.Allows(GatewayAPIGroup, r.kind, r.namespace, CoreGroup, KindService, ns, string(br.Name)) {
		b.warnf("%s: no ReferenceGrant in namespace %q allows this cross-namespace reference", where(), ns)
		return
	}
	b.edge(ruleID, svc)
}

// attach adds the edges listener > route for one parentRef. Only Gateway
// parents are supported. Hostname intersection between listeners and routes
// is not evaluated: a listener that accepts the route's namespace and kind
// is taken to accept the route.
func (b *gatewayAPIBuilder) attach(r *route, routeID NodeID, i int, p gwv1.ParentReference) {
	group, kind := GatewayAPIGroup, KindGateway
	if p.Group != nil {
		group = string(*p.Group)
	}
	if p.Kind != nil {
		kind = string(*p.Kind)
	}
	ns := r.namespace
	if p.Namespace != nil && *p.Namespace != "" {
		ns = string(*p.Namespace)
	}
	// where locates a warning; built only when one is written.
	where := func() string {
		return fmt.Sprintf("%s: spec.parentRefs[%d] (%s)", r, i, describeParent(group, kind, ns, p))
	}
	if group != GatewayAPIGroup || kind != KindGateway {
		b.warnf("%s: only Gateway parents are supported", where())
		return
	}
	gw, ok := b.gateways[ns+"/"+string(p.Name)]
	if !ok {
		b.warnf("%s: Gateway not found", where())
		return
	}
	listeners := selectListeners(gw.Spec.Listeners, p)
	if len(listeners) == 0 {
		b.warnf("%s: %s", where(), noListener(p))
		return
	}
	var refusals []string
	attached := false
	for _, l := range listeners {
		if why := b.refuses(ns, l, r); why != "" {
			refusals = append(refusals, fmt.Sprintf("listener %q: %s", l.Name, why))
			continue
		}
		lr := ref.Ref{Group: GatewayAPIGroup, Kind: KindGateway, Namespace: ns, Name: string(p.Name), Section: string(l.Name)}
		if lid, ok := b.g.Lookup(lr); ok {
			b.edge(lid, routeID)
			attached = true
		}
	}
	if !attached {
		b.warnf("%s: no listener accepts the route: %s", where(), strings.Join(refusals, "; "))
	}
}

func describeParent(group, kind, ns string, p gwv1.ParentReference) string {
	s := fmt.Sprintf("%s %s/%s", groupKind(group, kind), ns, p.Name)
	if p.SectionName != nil {
		s += fmt.Sprintf(" sectionName %q", *p.SectionName)
	}
	if p.Port != nil {
		s += fmt.Sprintf(" port %d", *p.Port)
	}
	return s
}

// groupKind renders a kind, qualified by its group when the group is not the
// one usual for the kind.
func groupKind(group, kind string) string {
	switch {
	case group == GatewayAPIGroup && kind != KindService:
		return kind
	case group == CoreGroup && kind == KindService:
		return kind
	case group == CoreGroup:
		return kind + " (core group)"
	}
	return kind + "." + group
}

// selectListeners returns the listeners a parentRef names: the one of its
// sectionName, those of its port, or all of them.
func selectListeners(all []gwv1.Listener, p gwv1.ParentReference) []gwv1.Listener {
	var out []gwv1.Listener
	for _, l := range all {
		if p.SectionName != nil && l.Name != *p.SectionName {
			continue
		}
		if p.Port != nil && l.Port != *p.Port {
			continue
		}
		out = append(out, l)
	}
	return out
}

func noListener(p gwv1.ParentReference) string {
	switch {
	case p.SectionName != nil && p.Port != nil:
		return fmt.Sprintf("no listener named %q with port %d", *p.SectionName, *p.Port)
	case p.SectionName != nil:
		return fmt.Sprintf("no listener named %q", *p.SectionName)
	case p.Port != nil:
		return fmt.Sprintf("no listener with port %d", *p.Port)
	}
	return "the Gateway has no listeners"
}

// refuses returns why listener l of a Gateway in namespace gwNS does not
// accept route r, or "" if it does (Gateway API, Listener.allowedRoutes).
func (b *gatewayAPIBuilder) refuses(gwNS string, l gwv1.Listener, r *route) string {
	if why := b.refusesNamespace(gwNS, l.AllowedRoutes, r.namespace); why != "" {
		return why
	}
	return refusesKind(l, r.kind)
}

func (b *gatewayAPIBuilder) refusesNamespace(gwNS string, ar *gwv1.AllowedRoutes, routeNS string) string {
	from := gwv1.NamespacesFromSame // the default
	var selector *metav1.LabelSelector
	if ar != nil && ar.Namespaces != nil {
		if ar.Namespaces.From != nil {
			from = *ar.Namespaces.From
		}
		selector = ar.Namespaces.Selector
	}
	switch from {
	case gwv1.NamespacesFromAll:
		return ""
	case gwv1.NamespacesFromSame:
		if routeNS != gwNS {
			return fmt.Sprintf("allowedRoutes.namespaces.from is Same and the route is not in namespace %q", gwNS)
		}
		return ""
	case gwv1.NamespacesFromSelector:
		if selector == nil {
			return "allowedRoutes.namespaces.from is Selector but no selector is set"
		}
		sel, err := metav1.LabelSelectorAsSelector(selector)
		if err != nil {
			return fmt.Sprintf("invalid allowedRoutes.namespaces.selector: %v", err)
		}
		if !sel.Matches(b.labelsOf(routeNS)) {
			return fmt.Sprintf("namespace %q does not match allowedRoutes.namespaces.selector %q", routeNS, sel.String())
		}
		return ""
	case gwv1.NamespacesFromNone:
		return "allowedRoutes.namespaces.from is None"
	}
	return fmt.Sprintf("unknown allowedRoutes.namespaces.from %q", from)
}

// refusesKind checks allowedRoutes.kinds, or when it is empty the kinds the
// listener protocol carries: HTTP and HTTPS carry HTTPRoute and GRPCRoute.
func refusesKind(l gwv1.Listener, kind string) string {
	if l.AllowedRoutes != nil && len(l.AllowedRoutes.Kinds) > 0 {
		for _, k := range l.AllowedRoutes.Kinds {
			group := GatewayAPIGroup
			if k.Group != nil {
				group = string(*k.Group)
			}
			if group == GatewayAPIGroup && string(k.Kind) == kind {
				return ""
			}
		}
		return fmt.Sprintf("allowedRoutes.kinds does not include %s", kind)
	}
	switch l.Protocol {
	case gwv1.HTTPProtocolType, gwv1.HTTPSProtocolType:
		if kind == KindHTTPRoute || kind == KindGRPCRoute {
			return ""
		}
	}
	return fmt.Sprintf("protocol %s does not carry %s", l.Protocol, kind)
}

// namespaceLabels returns the labels of the declared namespaces, with the
// label Kubernetes sets on every namespace.
func namespaceLabels(nss []*corev1.Namespace) map[string]labels.Set {
	out := make(map[string]labels.Set, len(nss))
	for _, ns := range nss {
		if ns == nil {
			continue
		}
		set := labels.Set{}
		for k, v := range ns.Labels {
			set[k] = v
		}
		set[NamespaceNameLabel] = ns.Name
		out[ns.Name] = set
	}
	return out
}

// labelsOf returns the labels of a namespace; one that is not declared has
// only the label Kubernetes sets.
func (b *gatewayAPIBuilder) labelsOf(ns string) labels.Set {
	if set, ok := b.nsLabels[ns]; ok {
		return set
	}
	return labels.Set{NamespaceNameLabel: ns}
}

// sortedObjects returns the non-nil objects of in ordered by namespace and
// name, so that the graph does not depend on input order.
func sortedObjects[T any, P interface {
	*T
	metav1.Object
}](in []P) []P {
	out := make([]P, 0, len(in))
	for _, o := range in {
		if o != nil {
			out = append(out, o)
		}
	}
	slices.SortStableFunc(out, func(a, b P) int {
		return cmp.Or(
			cmp.Compare(namespaceOf(a.GetNamespace()), namespaceOf(b.GetNamespace())),
			cmp.Compare(a.GetName(), b.GetName()),
		)
	})
	return out
}
