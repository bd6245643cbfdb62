package generators

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/topology"
)

// ObjectCount counts the objects Config.MaxObjects bounds: GatewayClasses,
// Gateways, routes, Services, ReferenceGrants and generic nodes.
func (s *Scenario) ObjectCount() int {
	n := len(s.GatewayClasses) + len(s.usedOtherClasses()) + len(s.Gateways) + len(s.ListenerSets) + len(s.Routes) + len(s.Services) + len(s.Grants)
	if s.Generic != nil {
		n += len(s.Generic.Nodes)
	}
	return n
}

// Model builds what simulator.LoadFiles builds from s.YAML(), without
// YAML: typed Gateway API objects into topology.Graph.AddGatewayAPI, the
// generic DAG into AddGeneric, the grants, the profile, and the policies
// read through the profile. Running it gives the same output as running the
// loaded YAML. The model shares the policies' spec values and the (cached)
// profile with s and other models: treat them as read-only.
func (s *Scenario) Model() (*simulator.Model, error) {
	prof, err := s.ParsedProfile()
	if err != nil {
		return nil, err
	}
	gw := s.gatewayAPI()
	m := &simulator.Model{Graph: &topology.Graph{}}
	m.Graph.AddGatewayAPI(gw)
	m.Grants = topology.Grants(gw.ReferenceGrants)
	if s.Generic != nil {
		if err := m.Graph.AddGeneric(s.Generic.spec()); err != nil {
			return nil, fmt.Errorf("generic topology: %w", err)
		}
	}
	m.Graph.Sort()
	m.Warnings = append(m.Warnings, m.Graph.Warnings...)
	k := &simulator.Kind{Profile: prof, Policies: make([]engine.Policy, 0, len(s.Policies))}
	var selectWarnings []string // sorted, as the loader adds them
	for _, p := range s.Policies {
		ep := engine.Policy{
			Ref:               ref.Ref{Group: p.Group, Kind: p.Kind, Namespace: namespaceOr(p.Namespace), Name: p.Name},
			CreationTimestamp: p.Created,
			TargetRefs:        make([]engine.TargetRef, len(p.Targets)),
		}
		if len(p.Targets) == 0 && len(p.Selectors) == 0 {
			return nil, fmt.Errorf("policy %s/%s has no targetRefs", p.Namespace, p.Name)
		}
		for i, t := range p.Targets {
			ep.TargetRefs[i] = engine.TargetRef{Group: t.Group, Kind: t.Kind, Namespace: t.Namespace, Name: t.Name, SectionName: t.Section}
		}
		selected := s.selected(p)
		ep.TargetRefs = append(ep.TargetRefs, selected...)
		if len(p.Selectors) > 0 && len(selected) == 0 {
			selectWarnings = append(selectWarnings, fmt.Sprintf("%s: spec.%s select no object", ep.Ref, SelectorField))
		}
		// Interpret ignores targetRefs, so the spec without them reads the
		// same as the loader's spec with them.
		spec := p.Spec
		if spec == nil {
			spec = map[string]any{}
		}
		ep.Intent = prof.Interpret(spec)
		k.Policies = append(k.Policies, ep)
	}
	slices.Sort(selectWarnings)
	m.Warnings = append(m.Warnings, selectWarnings...)
	m.Kinds = []*simulator.Kind{k}
	// References resolve against the scenario's ConfigMaps, as the loader
	// resolves them against the objects of the YAML.
	simulator.ResolveReferences(k, func(key string) (map[string]bool, bool) {
		for _, c := range s.ConfigMaps {
			if key != "/ConfigMap/"+namespaceOr(c.Namespace)+"/"+c.Name {
				continue
			}
			keys := map[string]bool{}
			for k, v := range c.Data {
				if v != "" {
					keys[k] = true
				}
			}
			return keys, true
		}
		return nil, false
	})
	for _, o := range s.OwnFields {
		if m.OwnFields == nil {
			m.OwnFields = map[string]map[string]any{}
		}
		m.OwnFields[ref.Ref{Group: o.Group, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}.String()] = o.Fields
	}
	engine.AddVirtualTargets(m.Graph, prof, k.Policies)
	m.Graph.Sort()
	return m, nil
}

// selected lists the targets p's selectors select: per selector, the
// routes of its kind in p's namespace that carry all its labels, by name.
func (s *Scenario) selected(p Policy) []engine.TargetRef {
	var out []engine.TargetRef
	for i, sel := range p.Selectors {
		var names []string
		for _, r := range s.Routes {
			if r.RouteKind() != sel.Kind || namespaceOr(r.Namespace) != namespaceOr(p.Namespace) {
				continue
			}
			match := true
			for k, v := range sel.MatchLabels {
				if lv, ok := r.Labels[k]; !ok || lv != v {
					match = false
				}
			}
			if match {
				names = append(names, r.Name)
			}
		}
		slices.Sort(names)
		for _, n := range slices.Compact(names) {
			out = append(out, engine.TargetRef{Group: gatewayGroup, Kind: sel.Kind, Name: n, Selector: fmt.Sprintf("spec.%s[%d]", SelectorField, i)})
		}
	}
	return out
}

func namespaceOr(ns string) string {
	if ns == "" {
		return topology.DefaultNamespace
	}
	return ns
}

func ptr[T any](v T) *T { return &v }

// gatewayAPI converts the Gateway API objects of s to typed objects.
func (s *Scenario) gatewayAPI() topology.GatewayAPI {
	var in topology.GatewayAPI
	for _, ns := range s.Namespaces {
		in.Namespaces = append(in.Namespaces, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	for _, c := range s.GatewayClasses {
		in.GatewayClasses = append(in.GatewayClasses, &gwv1.GatewayClass{
			ObjectMeta: metav1.ObjectMeta{Name: c},
			Spec:       gwv1.GatewayClassSpec{ControllerName: gwv1.GatewayController(s.controllerName())},
		})
	}
	for _, c := range s.usedOtherClasses() {
		in.GatewayClasses = append(in.GatewayClasses, &gwv1.GatewayClass{
			ObjectMeta: metav1.ObjectMeta{Name: c, Annotations: map[string]string{simulator.AnnotationOtherImplementation: "true"}},
			Spec:       gwv1.GatewayClassSpec{ControllerName: OtherControllerName},
		})
	}
	for _, g := range s.Gateways {
		in.Gateways = append(in.Gateways, g.object())
	}
	for _, ls := range s.ListenerSets {
		in.ListenerSets = append(in.ListenerSets, ls.object())
	}
	for _, svc := range s.Services {
		o := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: namespaceOr(svc.Namespace), Name: svc.Name}}
		for _, p := range svc.servicePorts() {
			o.Spec.Ports = append(o.Spec.Ports, corev1.ServicePort{Name: p.name, Port: p.port})
		}
		in.Services = append(in.Services, o)
	}
	for _, r := range s.Routes {
		r.addTo(&in)
	}
	for _, g := range s.Grants {
		o := &gwv1.ReferenceGrant{ObjectMeta: metav1.ObjectMeta{Namespace: namespaceOr(g.Namespace), Name: g.Name}}
		o.Spec.From = []gwv1.ReferenceGrantFrom{{Group: gwv1.Group(g.FromGroup), Kind: gwv1.Kind(g.FromKind), Namespace: gwv1.Namespace(g.FromNamespace)}}
		to := gwv1.ReferenceGrantTo{Group: gwv1.Group(g.ToGroup), Kind: gwv1.Kind(g.ToKind)}
		if g.ToName != "" {
			to.Name = ptr(gwv1.ObjectName(g.ToName))
		}
		o.Spec.To = []gwv1.ReferenceGrantTo{to}
		in.ReferenceGrants = append(in.ReferenceGrants, o)
	}
	return in
}

func (g Gateway) object() *gwv1.Gateway {
	o := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: namespaceOr(g.Namespace), Name: g.Name}}
	o.Spec.GatewayClassName = gwv1.ObjectName(g.Class)
	for _, l := range g.Listeners {
		gl := gwv1.Listener{Name: gwv1.SectionName(l.Name), Port: gwv1.PortNumber(l.Port), Protocol: l.protocol()}
		gl.AllowedRoutes = l.allowedRoutes()
		o.Spec.Listeners = append(o.Spec.Listeners, gl)
	}
	if g.AllowListeners != "" {
		o.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: ptr(gwv1.FromNamespaces(g.AllowListeners))}}
	}
	return o
}

func (ls ListenerSet) object() *gwv1.ListenerSet {
	o := &gwv1.ListenerSet{ObjectMeta: metav1.ObjectMeta{Namespace: namespaceOr(ls.Namespace), Name: ls.Name}}
	o.Spec.ParentRef = gwv1.ParentGatewayReference{Name: gwv1.ObjectName(ls.Parent.Name)}
	if ls.Parent.Namespace != "" {
		o.Spec.ParentRef.Namespace = ptr(gwv1.Namespace(ls.Parent.Namespace))
	}
	for _, l := range ls.Listeners {
		e := gwv1.ListenerEntry{Name: gwv1.SectionName(l.Name), Port: gwv1.PortNumber(l.Port), Protocol: l.protocol()}
		e.AllowedRoutes = l.allowedRoutes()
		o.Spec.Listeners = append(o.Spec.Listeners, e)
	}
	return o
}

// allowedRoutes admits routes from all namespaces where the listener
// does, and is nil (the Same namespace) where it does not.
func (l Listener) allowedRoutes() *gwv1.AllowedRoutes {
	if !l.AllNamespaces {
		return nil
	}
	return &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
}

// reference is the route's parentRef as Gateway API writes it.
func (p ParentRef) reference() gwv1.ParentReference {
	pr := gwv1.ParentReference{Name: gwv1.ObjectName(p.Name)}
	if p.ListenerSet {
		pr.Kind = ptr(gwv1.Kind(topology.KindListenerSet))
	}
	if p.Namespace != "" {
		pr.Namespace = ptr(gwv1.Namespace(p.Namespace))
	}
	if p.Section != "" {
		pr.SectionName = ptr(gwv1.SectionName(p.Section))
	}
	return pr
}

func (b BackendRef) reference() gwv1.BackendRef {
	br := gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: gwv1.ObjectName(b.Name), Port: ptr(gwv1.PortNumber(b.port()))}}
	if b.Namespace != "" {
		br.Namespace = ptr(gwv1.Namespace(b.Namespace))
	}
	return br
}

// sectionName is a rule's name, nil when it has none.
func (rule Rule) sectionName() *gwv1.SectionName {
	if rule.Name == "" {
		return nil
	}
	return ptr(gwv1.SectionName(rule.Name))
}

// addTo adds the route to in as an object of its kind.
func (r Route) addTo(in *topology.GatewayAPI) {
	meta := metav1.ObjectMeta{Namespace: namespaceOr(r.Namespace), Name: r.Name, Labels: r.Labels}
	var parents []gwv1.ParentReference
	for _, p := range r.Parents {
		parents = append(parents, p.reference())
	}
	switch {
	case r.Kind == topology.KindTLSRoute:
		o := &gwv1.TLSRoute{ObjectMeta: meta}
		o.Spec.ParentRefs = parents
		for _, rule := range r.Rules {
			lr := gwv1.TLSRouteRule{Name: rule.sectionName()}
			for _, b := range rule.Backends {
				lr.BackendRefs = append(lr.BackendRefs, b.reference())
			}
			o.Spec.Rules = append(o.Spec.Rules, lr)
		}
		in.TLSRoutes = append(in.TLSRoutes, o)
	case r.Kind == topology.KindTCPRoute:
		o := &gwv1.TCPRoute{ObjectMeta: meta}
		o.Spec.ParentRefs = parents
		for _, rule := range r.Rules {
			lr := gwv1.TCPRouteRule{Name: rule.sectionName()}
			for _, b := range rule.Backends {
				lr.BackendRefs = append(lr.BackendRefs, b.reference())
			}
			o.Spec.Rules = append(o.Spec.Rules, lr)
		}
		in.TCPRoutes = append(in.TCPRoutes, o)
	case r.Kind == topology.KindUDPRoute:
		o := &gwv1.UDPRoute{ObjectMeta: meta}
		o.Spec.ParentRefs = parents
		for _, rule := range r.Rules {
			lr := gwv1.UDPRouteRule{Name: rule.sectionName()}
			for _, b := range rule.Backends {
				lr.BackendRefs = append(lr.BackendRefs, b.reference())
			}
			o.Spec.Rules = append(o.Spec.Rules, lr)
		}
		in.UDPRoutes = append(in.UDPRoutes, o)
	case r.GRPC:
		o := &gwv1.GRPCRoute{ObjectMeta: meta}
		o.Spec.ParentRefs = parents
		for _, rule := range r.Rules {
			gr := gwv1.GRPCRouteRule{Name: rule.sectionName()}
			for _, b := range rule.Backends {
				gr.BackendRefs = append(gr.BackendRefs, gwv1.GRPCBackendRef{BackendRef: b.reference()})
			}
			o.Spec.Rules = append(o.Spec.Rules, gr)
		}
		in.GRPCRoutes = append(in.GRPCRoutes, o)
	default:
		in.HTTPRoutes = append(in.HTTPRoutes, r.httpRoute(meta, parents))
	}
}

func (r Route) httpRoute(meta metav1.ObjectMeta, parents []gwv1.ParentReference) *gwv1.HTTPRoute {
	o := &gwv1.HTTPRoute{ObjectMeta: meta}
	o.Spec.ParentRefs = parents
	for _, rule := range r.Rules {
		hr := gwv1.HTTPRouteRule{Name: rule.sectionName()}
		for _, b := range rule.Backends {
			hr.BackendRefs = append(hr.BackendRefs, gwv1.HTTPBackendRef{BackendRef: b.reference()})
		}
		if rule.PathPrefix != "" {
			hr.Matches = []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Type: ptr(gwv1.PathMatchPathPrefix), Value: ptr(rule.PathPrefix)}}}
		}
		o.Spec.Rules = append(o.Spec.Rules, hr)
	}
	return o
}

const (
	controllerName = "gepcheck.dev/generated"
	backendPort    = 80
)

// OtherControllerName is the controllerName of Scenario.OtherClasses.
const OtherControllerName = "example.net/other-implementation"

// usedOtherClasses are the OtherClasses some Gateway uses: shrinking a
// scenario's Gateways away takes their class with them.
func (s *Scenario) usedOtherClasses() []string {
	var out []string
	for _, c := range s.OtherClasses {
		if slices.ContainsFunc(s.Gateways, func(g Gateway) bool { return g.Class == c }) {
			out = append(out, c)
		}
	}
	return out
}

func (b BackendRef) port() int {
	if b.Port == 0 {
		return backendPort
	}
	return b.Port
}

type servicePort struct {
	name string
	port int32
}

// servicePorts lists the ports of a Service: its named ports, or one
// unnamed port when it has none.
func (svc *Service) servicePorts() []servicePort {
	if len(svc.Ports) == 0 {
		return []servicePort{{port: backendPort}}
	}
	out := make([]servicePort, len(svc.Ports))
	for i, n := range svc.Ports {
		port := int32(8000 + i)
		if j := slices.Index(portNames, n); j >= 0 {
			port = int32(servicePortNumbers[j])
		}
		if i < len(svc.PortNumbers) {
			port = int32(svc.PortNumbers[i])
		}
		out[i] = servicePort{name: n, port: port}
	}
	return out
}

// spec returns the Topology spec of g.
func (g *Generic) spec() topology.GenericSpec {
	s := topology.GenericSpec{Group: g.Group, Kinds: g.Kinds}
	for _, n := range g.Nodes {
		s.Nodes = append(s.Nodes, n.Kind+"/"+n.Name)
	}
	for _, e := range g.Edges {
		s.Edges = append(s.Edges, topology.GenericEdge{From: s.Nodes[e[0]], To: s.Nodes[e[1]]})
	}
	return s
}
