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
	KindTLSRoute     = "TLSRoute"
	KindTCPRoute     = "TCPRoute"
	KindUDPRoute     = "UDPRoute"
	KindListenerSet  = "ListenerSet"
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
	GatewayClasses []*gwv1.GatewayClass
	Gateways       []*gwv1.Gateway
	HTTPRoutes     []*gwv1.HTTPRoute
	GRPCRoutes     []*gwv1.GRPCRoute
	TLSRoutes      []*gwv1.TLSRoute
	TCPRoutes      []*gwv1.TCPRoute
	UDPRoutes      []*gwv1.UDPRoute
	// ListenerSets add listeners to a Gateway that allows them (GEP-1713).
	ListenerSets    []*gwv1.ListenerSet
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
// Service > Service port, where a route is an HTTPRoute, GRPCRoute,
// TLSRoute, TCPRoute or UDPRoute. A ListenerSet the Gateway allows is a
// child of it, its listeners children of the ListenerSet (GEP-1713, Policy
// Attachment: "a ListenerSet can inherit policy from a Gateway. Policies
// that attach to a ListenerSet apply to all listeners defined in that
// resource, but do not impact listeners in the parent Gateway"): Gateway >
// ListenerSet > listener > route. Relationships that are declared but not made, such
// as a route refused by every listener of its parent, are reported in
// g.Warnings. The result does not depend on the order of the input slices.
func (g *Graph) AddGatewayAPI(in GatewayAPI) {
	b := &gatewayAPIBuilder{
		g:        g,
		grants:   Grants(in.ReferenceGrants),
		nsLabels: namespaceLabels(in.Namespaces),
		gateways: map[string]*gwv1.Gateway{},
		sets:     map[string]*gwv1.ListenerSet{},
		lists:    map[*gwv1.Gateway][]listener{},
		services: map[string]NodeID{},
	}
	b.addClasses(sortedObjects(in.GatewayClasses))
	b.addGateways(sortedObjects(in.Gateways))
	b.addListenerSets(sortedObjects(in.ListenerSets))
	b.addServices(sortedObjects(in.Services))
	for _, r := range httpRoutes(sortedObjects(in.HTTPRoutes)) {
		b.addRoute(r)
	}
	for _, r := range grpcRoutes(sortedObjects(in.GRPCRoutes)) {
		b.addRoute(r)
	}
	for _, r := range tlsRoutes(sortedObjects(in.TLSRoutes)) {
		b.addRoute(r)
	}
	for _, r := range tcpRoutes(sortedObjects(in.TCPRoutes)) {
		b.addRoute(r)
	}
	for _, r := range udpRoutes(sortedObjects(in.UDPRoutes)) {
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
	// sets are the ListenerSets their parent Gateway allows, by
	// namespace/name.
	sets map[string]*gwv1.ListenerSet
	// lists are the listeners of each Gateway, converted once (attach runs
	// for every parentRef of every route).
	lists    map[*gwv1.Gateway][]listener
	services map[string]NodeID // by namespace/name
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
		b.lists[gw] = gatewayListeners(gw.Spec.Listeners)
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

// addListenerSets adds each ListenerSet and its listeners, and the edge
// Gateway > ListenerSet when the parent Gateway allows it (GEP-1713, Gateway
// & ListenerSet Handshake: "By default a Gateway MUST NOT allow
// ListenerSets to be attached"). A ListenerSet its Gateway refuses, or whose
// Gateway is missing, is a node without parents that no route attaches to.
func (b *gatewayAPIBuilder) addListenerSets(sets []*gwv1.ListenerSet) {
	for _, ls := range sets {
		ns := namespaceOf(ls.Namespace)
		r := ref.Ref{Group: GatewayAPIGroup, Kind: KindListenerSet, Namespace: ns, Name: ls.Name}
		id := b.g.Add(r)
		for _, l := range ls.Spec.Listeners {
			lr := r
			lr.Section = string(l.Name)
			b.edge(id, b.g.Add(lr))
		}
		p := ls.Spec.ParentRef
		group, kind, gwNS := GatewayAPIGroup, KindGateway, ns
		if p.Group != nil {
			group = string(*p.Group)
		}
		if p.Kind != nil {
			kind = string(*p.Kind)
		}
		if p.Namespace != nil && *p.Namespace != "" {
			gwNS = string(*p.Namespace)
		}
		where := fmt.Sprintf("ListenerSet %s/%s: spec.parentRef (%s %s/%s)", ns, ls.Name, groupKind(group, kind), gwNS, p.Name)
		if group != GatewayAPIGroup || kind != KindGateway {
			b.warnf("%s: the parent of a ListenerSet is a Gateway", where)
			continue
		}
		gw, ok := b.gateways[gwNS+"/"+string(p.Name)]
		if !ok {
			b.warnf("%s: Gateway not found", where)
			continue
		}
		if why := b.refusesListenerSet(gw, ns); why != "" {
			b.warnf("%s: the Gateway does not allow the ListenerSet: %s (GEP-1713, Gateway & ListenerSet Handshake)", where, why)
			continue
		}
		gwID, _ := b.g.Lookup(ref.Ref{Group: GatewayAPIGroup, Kind: KindGateway, Namespace: gwNS, Name: gw.Name})
		b.edge(gwID, id)
		b.sets[ns+"/"+ls.Name] = ls
	}
}

// refusesListenerSet returns why gw does not allow a ListenerSet of
// namespace ns, or "" if it does (Gateway API, AllowedListeners: "The
// default value is to allow no ListenerSets").
func (b *gatewayAPIBuilder) refusesListenerSet(gw *gwv1.Gateway, ns string) string {
	from := gwv1.NamespacesFromNone
	var selector *metav1.LabelSelector
	if al := gw.Spec.AllowedListeners; al != nil && al.Namespaces != nil {
		if al.Namespaces.From != nil {
			from = *al.Namespaces.From
		}
		selector = al.Namespaces.Selector
	}
	return b.refusesFrom("allowedListeners", "the ListenerSet", from, selector, namespaceOf(gw.Namespace), ns)
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

// route is what AddGatewayAPI needs of a route of any kind.
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

func tlsRoutes(in []*gwv1.TLSRoute) []*route {
	out := make([]*route, 0, len(in))
	for _, o := range in {
		r := &route{kind: KindTLSRoute, namespace: namespaceOf(o.Namespace), name: o.Name, parents: o.Spec.ParentRefs}
		for _, rule := range o.Spec.Rules {
			r.rules = append(r.rules, routeRule{name: rule.Name, backends: backendObjects(rule.BackendRefs)})
		}
		out = append(out, r)
	}
	return out
}

func tcpRoutes(in []*gwv1.TCPRoute) []*route {
	out := make([]*route, 0, len(in))
	for _, o := range in {
		r := &route{kind: KindTCPRoute, namespace: namespaceOf(o.Namespace), name: o.Name, parents: o.Spec.ParentRefs}
		for _, rule := range o.Spec.Rules {
			r.rules = append(r.rules, routeRule{name: rule.Name, backends: backendObjects(rule.BackendRefs)})
		}
		out = append(out, r)
	}
	return out
}

func udpRoutes(in []*gwv1.UDPRoute) []*route {
	out := make([]*route, 0, len(in))
	for _, o := range in {
		r := &route{kind: KindUDPRoute, namespace: namespaceOf(o.Namespace), name: o.Name, parents: o.Spec.ParentRefs}
		for _, rule := range o.Spec.Rules {
			r.rules = append(r.rules, routeRule{name: rule.Name, backends: backendObjects(rule.BackendRefs)})
		}
		out = append(out, r)
	}
	return out
}

func backendObjects(in []gwv1.BackendRef) []gwv1.BackendObjectReference {
	out := make([]gwv1.BackendObjectReference, 0, len(in))
	for _, br := range in {
		out = append(out, br.BackendObjectReference)
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

// listener is what attach needs of a Gateway's listener or a ListenerSet's
// ListenerEntry.
type listener struct {
	name          gwv1.SectionName
	port          gwv1.PortNumber
	protocol      gwv1.ProtocolType
	allowedRoutes *gwv1.AllowedRoutes
}

func gatewayListeners(in []gwv1.Listener) []listener {
	out := make([]listener, len(in))
	for i, l := range in {
		out[i] = listener{l.Name, l.Port, l.Protocol, l.AllowedRoutes}
	}
	return out
}

func setListeners(in []gwv1.ListenerEntry) []listener {
	out := make([]listener, len(in))
	for i, l := range in {
		out[i] = listener{l.Name, l.Port, l.Protocol, l.AllowedRoutes}
	}
	return out
}

// attach adds the edges listener > route for one parentRef: a Gateway or a
// ListenerSet, the route's direct parent (GEP-1713, Summary of
// Attachments: "Routes attach to all relevant Listeners in their direct
// parent object"). A Gateway parent's listeners are those of its
// spec.listeners only, never those of its ListenerSets (GEP-1713, Gateway
// Parents and sectionName). Hostname intersection between listeners and
// routes is not evaluated: a listener that accepts the route's namespace
// and kind is taken to accept the route.
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
	var all []listener
	switch {
	case group == GatewayAPIGroup && kind == KindGateway:
		gw, ok := b.gateways[ns+"/"+string(p.Name)]
		if !ok {
			b.warnf("%s: Gateway not found", where())
			return
		}
		all = b.lists[gw]
	case group == GatewayAPIGroup && kind == KindListenerSet:
		ls, ok := b.sets[ns+"/"+string(p.Name)]
		if !ok {
			if _, exists := b.g.Lookup(ref.Ref{Group: GatewayAPIGroup, Kind: KindListenerSet, Namespace: ns, Name: string(p.Name)}); exists {
				b.warnf("%s: the ListenerSet is not attached to a Gateway", where())
			} else {
				b.warnf("%s: ListenerSet not found", where())
			}
			return
		}
		all = setListeners(ls.Spec.Listeners)
	default:
		b.warnf("%s: only Gateway and ListenerSet parents are supported", where())
		return
	}
	listeners := selectListeners(all, p)
	if len(listeners) == 0 {
		b.warnf("%s: %s", where(), noListener(kind, p))
		return
	}
	var refusals []string
	attached := false
	for _, l := range listeners {
		if why := b.refuses(ns, l, r); why != "" {
			refusals = append(refusals, fmt.Sprintf("listener %q: %s", l.name, why))
			continue
		}
		lr := ref.Ref{Group: GatewayAPIGroup, Kind: kind, Namespace: ns, Name: string(p.Name), Section: string(l.name)}
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
func selectListeners(all []listener, p gwv1.ParentReference) []listener {
	var out []listener
	for _, l := range all {
		if p.SectionName != nil && l.name != *p.SectionName {
			continue
		}
		if p.Port != nil && l.port != *p.Port {
			continue
		}
		out = append(out, l)
	}
	return out
}

func noListener(kind string, p gwv1.ParentReference) string {
	switch {
	case p.SectionName != nil && p.Port != nil:
		return fmt.Sprintf("no listener named %q with port %d", *p.SectionName, *p.Port)
	case p.SectionName != nil:
		return fmt.Sprintf("no listener named %q", *p.SectionName)
	case p.Port != nil:
		return fmt.Sprintf("no listener with port %d", *p.Port)
	}
	return "the " + kind + " has no listeners"
}

// refuses returns why listener l of a Gateway or ListenerSet in namespace
// ownerNS does not accept route r, or "" if it does (Gateway API,
// Listener.allowedRoutes; ListenerEntry.allowedRoutes, whose Same is the
// ListenerSet's namespace).
func (b *gatewayAPIBuilder) refuses(ownerNS string, l listener, r *route) string {
	from := gwv1.NamespacesFromSame // the default
	var selector *metav1.LabelSelector
	if ar := l.allowedRoutes; ar != nil && ar.Namespaces != nil {
		if ar.Namespaces.From != nil {
			from = *ar.Namespaces.From
		}
		selector = ar.Namespaces.Selector
	}
	if why := b.refusesFrom("allowedRoutes", "the route", from, selector, ownerNS, r.namespace); why != "" {
		return why
	}
	return refusesKind(l, r.kind)
}

// refusesFrom returns why field.namespaces (from, selector) of an object in
// namespace ownerNS refuses what, an object of namespace ns, or "" if it
// allows it: allowedRoutes of a listener, allowedListeners of a Gateway.
func (b *gatewayAPIBuilder) refusesFrom(field, what string, from gwv1.FromNamespaces, selector *metav1.LabelSelector, ownerNS, ns string) string {
	switch from {
	case gwv1.NamespacesFromAll:
		return ""
	case gwv1.NamespacesFromSame:
		if ns != ownerNS {
			return fmt.Sprintf("%s.namespaces.from is Same and %s is not in namespace %q", field, what, ownerNS)
		}
		return ""
	case gwv1.NamespacesFromSelector:
		if selector == nil {
			return field + ".namespaces.from is Selector but no selector is set"
		}
		sel, err := metav1.LabelSelectorAsSelector(selector)
		if err != nil {
			return fmt.Sprintf("invalid %s.namespaces.selector: %v", field, err)
		}
		if !sel.Matches(b.labelsOf(ns)) {
			return fmt.Sprintf("namespace %q does not match %s.namespaces.selector %q", ns, field, sel.String())
		}
		return ""
	case gwv1.NamespacesFromNone:
		return field + ".namespaces.from is None"
	}
	return fmt.Sprintf("unknown %s.namespaces.from %q", field, from)
}

// refusesKind checks allowedRoutes.kinds, or when it is empty the kinds the
// listener protocol carries: HTTP and HTTPS carry HTTPRoute and GRPCRoute,
// TLS carries TLSRoute and TCPRoute (Gateway API, Listener: "TLSRoute, Port:
// 443, Protocol: TLS, TLS Mode: Passthrough"; TCPRoute on a TLS listener
// that terminates), TCP carries TCPRoute and UDP UDPRoute.
func refusesKind(l listener, kind string) string {
	if l.allowedRoutes != nil && len(l.allowedRoutes.Kinds) > 0 {
		for _, k := range l.allowedRoutes.Kinds {
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
	switch l.protocol {
	case gwv1.HTTPProtocolType, gwv1.HTTPSProtocolType:
		if kind == KindHTTPRoute || kind == KindGRPCRoute {
			return ""
		}
	case gwv1.TLSProtocolType:
		if kind == KindTLSRoute || kind == KindTCPRoute {
			return ""
		}
	case gwv1.TCPProtocolType:
		if kind == KindTCPRoute {
			return ""
		}
	case gwv1.UDPProtocolType:
		if kind == KindUDPRoute {
			return ""
		}
	}
	return fmt.Sprintf("protocol %s does not carry %s", l.protocol, kind)
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
