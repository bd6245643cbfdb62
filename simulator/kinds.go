package simulator

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/topology"
)

// groupKind is an object's API group and kind.
type groupKind struct{ group, kind string }

// gathered is what builder.run collects from the documents before it builds
// the hierarchy and the policies.
type gathered struct {
	gw       topology.GatewayAPI
	generic  []*load.Doc        // gepcheck.dev Topology documents
	profiles []*profile.Profile // the input's PolicyProfile documents
}

// readers reads each kind the builder knows into the model; a document of
// any other kind is a policy candidate.
var readers = map[groupKind]func(*builder, *load.Doc, *gathered){
	{GatewayGroup, "GatewayClass"}:   (*builder).gatewayClass,
	{GatewayGroup, "Gateway"}:        (*builder).gateway,
	{GatewayGroup, "HTTPRoute"}:      (*builder).httpRoute,
	{GatewayGroup, "GRPCRoute"}:      (*builder).grpcRoute,
	{GatewayGroup, "TLSRoute"}:       (*builder).tlsRoute,
	{GatewayGroup, "TCPRoute"}:       (*builder).tcpRoute,
	{GatewayGroup, "UDPRoute"}:       (*builder).udpRoute,
	{GatewayGroup, "ListenerSet"}:    (*builder).listenerSet,
	{GatewayGroup, "ReferenceGrant"}: (*builder).referenceGrant,
	{"", "Service"}:                  (*builder).service,
	{"", "Namespace"}:                (*builder).namespace,
	{CRDGroup, CRDKind}:              func(b *builder, d *load.Doc, _ *gathered) { b.inputCRD(d) },
	{GepcheckGroup, "Topology"}:      func(_ *builder, d *load.Doc, g *gathered) { g.generic = append(g.generic, d) },
	{GepcheckGroup, "PolicyProfile"}: (*builder).policyProfile,
	{GepcheckGroup, "ObjectFields"}:  (*builder).objectFields,
	{GepcheckGroup, "Finding"}:       (*builder).finding,
	{GepcheckGroup, "Scenario"}:      (*builder).scenario,
}

// typed returns a new value of the Go type of a Gateway API or core kind
// that decodeAll decodes ahead, or nil.
func typed(d *load.Doc) any {
	if f, ok := typedKinds[groupKind{d.Group, d.Kind}]; ok {
		return f()
	}
	return nil
}

var typedKinds = map[groupKind]func() any{
	{GatewayGroup, "GatewayClass"}: func() any { return &gwv1.GatewayClass{} },
	{GatewayGroup, "Gateway"}:      func() any { return &gwv1.Gateway{} },
	{GatewayGroup, "HTTPRoute"}:    func() any { return &gwv1.HTTPRoute{} },
	{GatewayGroup, "GRPCRoute"}:    func() any { return &gwv1.GRPCRoute{} },
	{GatewayGroup, "TLSRoute"}:     func() any { return &gwv1.TLSRoute{} },
	{GatewayGroup, "TCPRoute"}:     func() any { return &gwv1.TCPRoute{} },
	{GatewayGroup, "UDPRoute"}:     func() any { return &gwv1.UDPRoute{} },
	{GatewayGroup, "ListenerSet"}:  func() any { return &gwv1.ListenerSet{} },
	{"", "Service"}:                func() any { return &corev1.Service{} },
}

func (b *builder) gatewayClass(d *load.Doc, g *gathered) {
	var o gwv1.GatewayClass
	if b.decode(d, &o) {
		g.gw.GatewayClasses = append(g.gw.GatewayClasses, &o)
	}
}

func (b *builder) gateway(d *load.Doc, g *gathered) {
	var o gwv1.Gateway
	if b.decode(d, &o) {
		o.Namespace = d.Namespace
		b.checkListeners(d, &o)
		b.labeled(d, o.Labels)
		g.gw.Gateways = append(g.gw.Gateways, &o)
	}
}

// route places a decoded route in its document's namespace, checks its
// rules' names and indexes its labels.
func (b *builder) route(d *load.Doc, meta *metav1.ObjectMeta, rules int, name func(int) *gwv1.SectionName) {
	meta.Namespace = d.Namespace
	b.checkRules(d, rules, name)
	b.labeled(d, meta.Labels)
}

func (b *builder) httpRoute(d *load.Doc, g *gathered) {
	var o gwv1.HTTPRoute
	if b.decode(d, &o) {
		b.route(d, &o.ObjectMeta, len(o.Spec.Rules), func(i int) *gwv1.SectionName { return o.Spec.Rules[i].Name })
		g.gw.HTTPRoutes = append(g.gw.HTTPRoutes, &o)
	}
}

func (b *builder) grpcRoute(d *load.Doc, g *gathered) {
	var o gwv1.GRPCRoute
	if b.decode(d, &o) {
		b.route(d, &o.ObjectMeta, len(o.Spec.Rules), func(i int) *gwv1.SectionName { return o.Spec.Rules[i].Name })
		g.gw.GRPCRoutes = append(g.gw.GRPCRoutes, &o)
	}
}

func (b *builder) tlsRoute(d *load.Doc, g *gathered) {
	var o gwv1.TLSRoute
	if b.decode(d, &o) {
		b.route(d, &o.ObjectMeta, len(o.Spec.Rules), func(i int) *gwv1.SectionName { return o.Spec.Rules[i].Name })
		g.gw.TLSRoutes = append(g.gw.TLSRoutes, &o)
	}
}

func (b *builder) tcpRoute(d *load.Doc, g *gathered) {
	var o gwv1.TCPRoute
	if b.decode(d, &o) {
		b.route(d, &o.ObjectMeta, len(o.Spec.Rules), func(i int) *gwv1.SectionName { return o.Spec.Rules[i].Name })
		g.gw.TCPRoutes = append(g.gw.TCPRoutes, &o)
	}
}

func (b *builder) udpRoute(d *load.Doc, g *gathered) {
	var o gwv1.UDPRoute
	if b.decode(d, &o) {
		b.route(d, &o.ObjectMeta, len(o.Spec.Rules), func(i int) *gwv1.SectionName { return o.Spec.Rules[i].Name })
		g.gw.UDPRoutes = append(g.gw.UDPRoutes, &o)
	}
}

func (b *builder) listenerSet(d *load.Doc, g *gathered) {
	var o gwv1.ListenerSet
	if b.decode(d, &o) {
		o.Namespace = d.Namespace
		b.checkNames(d, len(o.Spec.Listeners), func(i int) gwv1.SectionName { return o.Spec.Listeners[i].Name })
		b.labeled(d, o.Labels)
		g.gw.ListenerSets = append(g.gw.ListenerSets, &o)
	}
}

func (b *builder) referenceGrant(d *load.Doc, g *gathered) {
	var o gwv1.ReferenceGrant
	if b.decode(d, &o) {
		o.Namespace = d.Namespace
		g.gw.ReferenceGrants = append(g.gw.ReferenceGrants, &o)
	}
}

func (b *builder) service(d *load.Doc, g *gathered) {
	var o corev1.Service
	if b.decode(d, &o) {
		o.Namespace = d.Namespace
		b.labeled(d, o.Labels)
		g.gw.Services = append(g.gw.Services, &o)
	}
}

func (b *builder) namespace(d *load.Doc, g *gathered) {
	var o corev1.Namespace
	if b.decode(d, &o) {
		if b.nsLabels == nil {
			b.nsLabels = map[string]map[string]string{}
		}
		b.nsLabels[o.Name] = o.Labels
		g.gw.Namespaces = append(g.gw.Namespaces, &o)
	}
}

// policyProfile reads a PolicyProfile of the input (docs/profiles.md).
func (b *builder) policyProfile(d *load.Doc, g *gathered) {
	var p profile.Profile
	if b.decode(d, &p) {
		p.Source = d.Source.String()
		if err := p.Validate(); err != nil {
			b.fail(d, fieldOf(err), "%v", msgOf(err))
		} else {
			g.profiles = append(g.profiles, &p)
		}
	}
}

// objectFields reads the fields an ObjectFields document gives its target.
func (b *builder) objectFields(d *load.Doc, _ *gathered) {
	var o ObjectFields
	if !b.decode(d, &o) {
		return
	}
	t := o.Spec.Target
	if t.Kind == "" || t.Name == "" {
		b.fail(d, "spec.target", "needs kind and name")
		return
	}
	r := ref.Ref{Group: t.Group, Kind: t.Kind, Namespace: t.Namespace, Name: t.Name}.String()
	if b.m.OwnFields == nil {
		b.m.OwnFields = map[string]map[string]any{}
	}
	if _, dup := b.m.OwnFields[r]; dup {
		b.fail(d, "spec.target", "%s already has an ObjectFields document", r)
		return
	}
	b.m.OwnFields[r] = o.Spec.Fields
}

// finding reads the header of a finding of the property suite
// (scenarios/findings/): it explains the objects that follow.
func (b *builder) finding(d *load.Doc, _ *gathered) {
	b.m.Finding = d.Name
	if spec, ok := d.Raw["spec"].(map[string]any); ok {
		b.m.FindingImplementation, _ = spec["implementation"].(string)
	}
}

func (b *builder) scenario(d *load.Doc, _ *gathered) {
	var s Scenario
	if b.decode(d, &s) {
		if b.m.Scenario != nil {
			b.fail(d, "kind", "a file set holds one Scenario; another is at %s", b.m.Scenario.Source)
		}
		s.Source = d.Source
		b.m.Scenario = &s
	}
}

// candidateData records the keys of a policy candidate's data that have a
// value (a ConfigMap's ca.crt), for profile.Reference.Keys.
func (b *builder) candidateData(d *load.Doc, key string) {
	if data, ok := d.Raw["data"].(map[string]any); ok {
		keys := map[string]bool{}
		for k, v := range data {
			if str, _ := v.(string); str != "" {
				keys[k] = true
			}
		}
		if b.data == nil {
			b.data = map[string]map[string]bool{}
		}
		b.data[key] = keys
	}
}
