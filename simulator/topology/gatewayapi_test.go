package topology

import (
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gepcheck/gepcheck/simulator/ref"
)

func ptr[T any](v T) *T { return &v }

// edges lists the edges of g as "parent > child", sorted.
func edges(g *Graph) []string {
	var out []string
	for i := range g.Nodes {
		for _, c := range g.Nodes[i].Children {
			out = append(out, g.Nodes[i].Ref.String()+" > "+g.Nodes[c].Ref.String())
		}
	}
	slices.Sort(out)
	return out
}

func refOf(kind, ns, name string) ref.Ref {
	group := GatewayAPIGroup
	if kind == KindService {
		group = CoreGroup
	}
	return ref.Ref{Group: group, Kind: kind, Namespace: ns, Name: name}
}

func meta(ns, name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: ns, Name: name} }

func class(name string) *gwv1.GatewayClass {
	return &gwv1.GatewayClass{ObjectMeta: meta("", name)}
}

func gateway(ns, name, class string, ls ...gwv1.Listener) *gwv1.Gateway {
	return &gwv1.Gateway{ObjectMeta: meta(ns, name), Spec: gwv1.GatewaySpec{GatewayClassName: gwv1.ObjectName(class), Listeners: ls}}
}

func listenerSpec(name string, port int32, proto gwv1.ProtocolType) gwv1.Listener {
	return gwv1.Listener{Name: gwv1.SectionName(name), Port: gwv1.PortNumber(port), Protocol: proto}
}

// from sets allowedRoutes.namespaces on a listenerSpec.
func from(l gwv1.Listener, f gwv1.FromNamespaces, sel *metav1.LabelSelector) gwv1.Listener {
	if l.AllowedRoutes == nil {
		l.AllowedRoutes = &gwv1.AllowedRoutes{}
	}
	l.AllowedRoutes.Namespaces = &gwv1.RouteNamespaces{From: &f, Selector: sel}
	return l
}

func kinds(l gwv1.Listener, ks ...string) gwv1.Listener {
	if l.AllowedRoutes == nil {
		l.AllowedRoutes = &gwv1.AllowedRoutes{}
	}
	for _, k := range ks {
		l.AllowedRoutes.Kinds = append(l.AllowedRoutes.Kinds, gwv1.RouteGroupKind{Kind: gwv1.Kind(k)})
	}
	return l
}

func parentRef(ns, name string) gwv1.ParentReference {
	p := gwv1.ParentReference{Name: gwv1.ObjectName(name)}
	if ns != "" {
		p.Namespace = ptr(gwv1.Namespace(ns))
	}
	return p
}

func backend(ns, name string) gwv1.BackendObjectReference {
	b := gwv1.BackendObjectReference{Name: gwv1.ObjectName(name)}
	if ns != "" {
		b.Namespace = ptr(gwv1.Namespace(ns))
	}
	return b
}

func httpRule(name string, backends ...gwv1.BackendObjectReference) gwv1.HTTPRouteRule {
	r := gwv1.HTTPRouteRule{}
	if name != "" {
		r.Name = ptr(gwv1.SectionName(name))
	}
	for _, b := range backends {
		r.BackendRefs = append(r.BackendRefs, gwv1.HTTPBackendRef{BackendRef: gwv1.BackendRef{BackendObjectReference: b}})
	}
	return r
}

func httpRoute(ns, name string, parents []gwv1.ParentReference, rules ...gwv1.HTTPRouteRule) *gwv1.HTTPRoute {
	hr := &gwv1.HTTPRoute{ObjectMeta: meta(ns, name)}
	hr.Spec.ParentRefs = parents
	hr.Spec.Rules = rules
	return hr
}

func grpcRoute(ns, name string, parents []gwv1.ParentReference, backends ...gwv1.BackendObjectReference) *gwv1.GRPCRoute {
	gr := &gwv1.GRPCRoute{ObjectMeta: meta(ns, name)}
	gr.Spec.ParentRefs = parents
	rule := gwv1.GRPCRouteRule{}
	for _, b := range backends {
		rule.BackendRefs = append(rule.BackendRefs, gwv1.GRPCBackendRef{BackendRef: gwv1.BackendRef{BackendObjectReference: b}})
	}
	gr.Spec.Rules = []gwv1.GRPCRouteRule{rule}
	return gr
}

func service(ns, name string, ports ...string) *corev1.Service {
	svc := &corev1.Service{ObjectMeta: meta(ns, name)}
	for i, p := range ports {
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: p, Port: int32(8000 + i)})
	}
	return svc
}

func namespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func grant(ns string, fromKind, fromNS, toName string) *gwv1.ReferenceGrant {
	g := &gwv1.ReferenceGrant{ObjectMeta: meta(ns, "grant")}
	g.Spec.From = []gwv1.ReferenceGrantFrom{{Group: GatewayAPIGroup, Kind: gwv1.Kind(fromKind), Namespace: gwv1.Namespace(fromNS)}}
	to := gwv1.ReferenceGrantTo{Group: "", Kind: "Service"}
	if toName != "" {
		to.Name = ptr(gwv1.ObjectName(toName))
	}
	g.Spec.To = []gwv1.ReferenceGrantTo{to}
	return g
}

var (
	http80   = listenerSpec("http", 80, gwv1.HTTPProtocolType)
	https443 = listenerSpec("https", 443, gwv1.HTTPSProtocolType)
	alt8080  = listenerSpec("alt", 8080, gwv1.HTTPProtocolType)
	tcp9000  = listenerSpec("tcp", 9000, gwv1.TCPProtocolType)
)

func TestAddGatewayAPI(t *testing.T) {
	cases := []struct {
		name     string
		in       GatewayAPI
		want     []string // edges that must be present
		absent   []string // edges that must not be present
		warnings []string // substrings, one per expected warning, in order
	}{
		{
			name: "GatewayClass edge",
			in: GatewayAPI{
				GatewayClasses: []*gwv1.GatewayClass{class("gc")},
				Gateways:       []*gwv1.Gateway{gateway("infra", "gw", "gc", http80), gateway("infra", "orphan", "missing")},
			},
			want: []string{
				"GatewayClass/gc > Gateway/infra/gw",
				"Gateway/infra/gw > Gateway/infra/gw#http",
			},
			absent: []string{"GatewayClass/gc > Gateway/infra/orphan"},
		},
		{
			name: "route attached to two gateways",
			in: GatewayAPI{
				Gateways: []*gwv1.Gateway{
					gateway("app", "gw1", "gc", http80),
					gateway("infra", "gw2", "gc", from(https443, gwv1.NamespacesFromAll, nil)),
				},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("app", "r", []gwv1.ParentReference{parentRef("", "gw1"), parentRef("infra", "gw2")})},
			},
			want: []string{
				"Gateway/app/gw1#http > HTTPRoute/app/r",
				"Gateway/infra/gw2#https > HTTPRoute/app/r",
			},
		},
		{
			name: "sectionName",
			in: GatewayAPI{
				Gateways: []*gwv1.Gateway{gateway("app", "gw", "gc", http80, alt8080)},
				HTTPRoutes: []*gwv1.HTTPRoute{
					httpRoute("app", "r", []gwv1.ParentReference{{Name: "gw", SectionName: ptr(gwv1.SectionName("alt"))}}),
					httpRoute("app", "missing", []gwv1.ParentReference{{Name: "gw", SectionName: ptr(gwv1.SectionName("nope"))}}),
				},
			},
			want:     []string{"Gateway/app/gw#alt > HTTPRoute/app/r"},
			absent:   []string{"Gateway/app/gw#http > HTTPRoute/app/r"},
			warnings: []string{`HTTPRoute app/missing: spec.parentRefs[0] (Gateway app/gw sectionName "nope"): no listener named "nope"`},
		},
		{
			name: "port",
			in: GatewayAPI{
				Gateways: []*gwv1.Gateway{gateway("app", "gw", "gc", http80, alt8080, https443)},
				HTTPRoutes: []*gwv1.HTTPRoute{
					httpRoute("app", "r", []gwv1.ParentReference{{Name: "gw", Port: ptr(gwv1.PortNumber(8080))}}),
					httpRoute("app", "none", []gwv1.ParentReference{{Name: "gw", Port: ptr(gwv1.PortNumber(1))}}),
				},
			},
			want:     []string{"Gateway/app/gw#alt > HTTPRoute/app/r"},
			absent:   []string{"Gateway/app/gw#http > HTTPRoute/app/r", "Gateway/app/gw#https > HTTPRoute/app/r"},
			warnings: []string{"HTTPRoute app/none: spec.parentRefs[0] (Gateway app/gw port 1): no listener with port 1"},
		},
		{
			name: "allowedRoutes Same is the default",
			in: GatewayAPI{
				Gateways: []*gwv1.Gateway{gateway("infra", "gw", "gc", http80, from(alt8080, gwv1.NamespacesFromSame, nil))},
				HTTPRoutes: []*gwv1.HTTPRoute{
					httpRoute("app", "r", []gwv1.ParentReference{parentRef("infra", "gw")}),
					httpRoute("infra", "local", []gwv1.ParentReference{parentRef("", "gw")}),
				},
			},
			want:   []string{"Gateway/infra/gw#http > HTTPRoute/infra/local", "Gateway/infra/gw#alt > HTTPRoute/infra/local"},
			absent: []string{"Gateway/infra/gw#http > HTTPRoute/app/r", "Gateway/infra/gw#alt > HTTPRoute/app/r"},
			warnings: []string{
				`HTTPRoute app/r: spec.parentRefs[0] (Gateway infra/gw): no listener accepts the route: ` +
					`listener "http": allowedRoutes.namespaces.from is Same and the route is not in namespace "infra"; ` +
					`listener "alt": allowedRoutes.namespaces.from is Same`,
			},
		},
		{
			name: "allowedRoutes All and partial acceptance",
			in: GatewayAPI{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http80, from(alt8080, gwv1.NamespacesFromAll, nil))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("app", "r", []gwv1.ParentReference{parentRef("infra", "gw")})},
			},
			want:   []string{"Gateway/infra/gw#alt > HTTPRoute/app/r"},
			absent: []string{"Gateway/infra/gw#http > HTTPRoute/app/r"},
		},
		{
			name: "allowedRoutes Selector",
			in: GatewayAPI{
				Namespaces: []*corev1.Namespace{
					namespace("prod-a", map[string]string{"env": "prod"}),
					namespace("dev", map[string]string{"env": "dev"}),
				},
				Gateways: []*gwv1.Gateway{gateway("infra", "gw", "gc",
					from(http80, gwv1.NamespacesFromSelector, &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}),
					from(alt8080, gwv1.NamespacesFromSelector, &metav1.LabelSelector{MatchLabels: map[string]string{NamespaceNameLabel: "undeclared"}}),
					from(https443, gwv1.NamespacesFromSelector, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
						{Key: NamespaceNameLabel, Operator: metav1.LabelSelectorOpIn, Values: []string{"dev"}},
					}}),
				)},
				HTTPRoutes: []*gwv1.HTTPRoute{
					httpRoute("prod-a", "r", []gwv1.ParentReference{parentRef("infra", "gw")}),
					httpRoute("dev", "r", []gwv1.ParentReference{parentRef("infra", "gw")}),
					httpRoute("undeclared", "r", []gwv1.ParentReference{parentRef("infra", "gw")}),
					httpRoute("other", "r", []gwv1.ParentReference{parentRef("infra", "gw")}),
				},
			},
			want: []string{
				"Gateway/infra/gw#http > HTTPRoute/prod-a/r",
				"Gateway/infra/gw#https > HTTPRoute/dev/r",
				"Gateway/infra/gw#alt > HTTPRoute/undeclared/r",
			},
			absent: []string{
				"Gateway/infra/gw#http > HTTPRoute/dev/r",
				"Gateway/infra/gw#alt > HTTPRoute/prod-a/r",
				"Gateway/infra/gw#https > HTTPRoute/undeclared/r",
			},
			warnings: []string{`HTTPRoute other/r: spec.parentRefs[0] (Gateway infra/gw): no listener accepts the route: listener "http": namespace "other" does not match allowedRoutes.namespaces.selector "env=prod"`},
		},
		{
			name: "allowedRoutes kinds and protocols",
			in: GatewayAPI{
				Gateways: []*gwv1.Gateway{gateway("app", "gw", "gc", kinds(http80, "GRPCRoute"), https443, tcp9000)},
				HTTPRoutes: []*gwv1.HTTPRoute{
					httpRoute("app", "h", []gwv1.ParentReference{parentRef("", "gw")}),
					httpRoute("app", "t", []gwv1.ParentReference{{Name: "gw", SectionName: ptr(gwv1.SectionName("tcp"))}}),
				},
				GRPCRoutes: []*gwv1.GRPCRoute{grpcRoute("app", "g", []gwv1.ParentReference{parentRef("", "gw")})},
			},
			want: []string{
				"Gateway/app/gw#https > HTTPRoute/app/h",
				"Gateway/app/gw#http > GRPCRoute/app/g",
				"Gateway/app/gw#https > GRPCRoute/app/g",
				"GRPCRoute/app/g > GRPCRoute/app/g#rules[0]",
			},
			absent: []string{
				"Gateway/app/gw#http > HTTPRoute/app/h",
				"Gateway/app/gw#tcp > HTTPRoute/app/h",
				"Gateway/app/gw#tcp > GRPCRoute/app/g",
			},
			warnings: []string{`HTTPRoute app/t: spec.parentRefs[0] (Gateway app/gw sectionName "tcp"): no listener accepts the route: listener "tcp": protocol TCP does not carry HTTPRoute`},
		},
		{
			name: "missing and unsupported parents",
			in: GatewayAPI{
				Gateways: []*gwv1.Gateway{gateway("app", "empty", "gc")},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("app", "r", []gwv1.ParentReference{
					parentRef("", "nope"),
					{Name: "svc", Group: ptr(gwv1.Group("")), Kind: ptr(gwv1.Kind("Service"))},
					parentRef("", "empty"),
				})},
			},
			warnings: []string{
				"HTTPRoute app/r: spec.parentRefs[0] (Gateway app/nope): Gateway not found",
				"HTTPRoute app/r: spec.parentRefs[1] (Service app/svc): only Gateway and ListenerSet parents are supported",
				"HTTPRoute app/r: spec.parentRefs[2] (Gateway app/empty): the Gateway has no listeners",
			},
		},
		{
			name: "rules, shared Service and ports",
			in: GatewayAPI{
				Services: []*corev1.Service{service("app", "svc", "http", "", "metrics")},
				HTTPRoutes: []*gwv1.HTTPRoute{
					httpRoute("app", "r1", nil, httpRule("", backend("", "svc")), httpRule("named", backend("", "svc"), backend("", "svc"))),
					httpRoute("app", "r2", nil, httpRule("", backend("app", "svc"))),
				},
				GRPCRoutes: []*gwv1.GRPCRoute{grpcRoute("app", "g", nil, backend("", "svc"))},
			},
			want: []string{
				"HTTPRoute/app/r1 > HTTPRoute/app/r1#rules[0]",
				"HTTPRoute/app/r1 > HTTPRoute/app/r1#named",
				"HTTPRoute/app/r1#rules[0] > Service/app/svc",
				"HTTPRoute/app/r1#named > Service/app/svc",
				"HTTPRoute/app/r2#rules[0] > Service/app/svc",
				"GRPCRoute/app/g#rules[0] > Service/app/svc",
				"Service/app/svc > Service/app/svc#http",
				"Service/app/svc > Service/app/svc#metrics",
			},
			absent: []string{"HTTPRoute/app/r1 > HTTPRoute/app/r1#rules[1]"},
		},
		{
			name: "cross-namespace backends and ReferenceGrants",
			in: GatewayAPI{
				Services: []*corev1.Service{service("backend", "svc"), service("backend", "other"), service("open", "svc")},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("app", "r", nil,
					httpRule("granted", backend("backend", "svc")),
					httpRule("wrong-name", backend("backend", "other")),
					httpRule("any-name", backend("open", "svc")),
					httpRule("missing", backend("backend", "nope")),
					httpRule("kind", gwv1.BackendObjectReference{Name: "b", Group: ptr(gwv1.Group("example.com")), Kind: ptr(gwv1.Kind("Bucket"))}),
				)},
				GRPCRoutes: []*gwv1.GRPCRoute{grpcRoute("app", "g", nil, backend("backend", "svc"))},
				ReferenceGrants: []*gwv1.ReferenceGrant{
					grant("backend", "HTTPRoute", "app", "svc"),
					grant("open", "HTTPRoute", "app", ""),
					grant("app", "GRPCRoute", "app", ""), // in the wrong namespace
				},
			},
			want: []string{
				"HTTPRoute/app/r#granted > Service/backend/svc",
				"HTTPRoute/app/r#any-name > Service/open/svc",
			},
			absent: []string{
				"HTTPRoute/app/r#wrong-name > Service/backend/other",
				"GRPCRoute/app/g#rules[0] > Service/backend/svc",
			},
			warnings: []string{
				`HTTPRoute app/r: spec.rules[1].backendRefs[0] (Service backend/other): no ReferenceGrant in namespace "backend" allows this cross-namespace reference`,
				"HTTPRoute app/r: spec.rules[3].backendRefs[0] (Service backend/nope): Service not found",
				"HTTPRoute app/r: spec.rules[4].backendRefs[0] (Bucket.example.com app/b): only Service backends are part of the hierarchy",
				`GRPCRoute app/g: spec.rules[0].backendRefs[0] (Service backend/svc): no ReferenceGrant in namespace "backend"`,
			},
		},
		{
			name: "empty namespace is default",
			in: GatewayAPI{
				Gateways:   []*gwv1.Gateway{gateway("", "gw", "gc", http80)},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("", "r", []gwv1.ParentReference{parentRef("", "gw")}, httpRule("", backend("", "svc")))},
				Services:   []*corev1.Service{service("", "svc")},
			},
			want: []string{
				"Gateway/default/gw#http > HTTPRoute/default/r",
				"HTTPRoute/default/r#rules[0] > Service/default/svc",
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var g Graph
			g.AddGatewayAPI(c.in)
			got := edges(&g)
			for _, e := range c.want {
				if !slices.Contains(got, e) {
					t.Errorf("missing edge %s", e)
				}
			}
			for _, e := range c.absent {
				if slices.Contains(got, e) {
					t.Errorf("unexpected edge %s", e)
				}
			}
			if len(g.Warnings) != len(c.warnings) {
				t.Fatalf("got %d warnings, want %d:\n%s", len(g.Warnings), len(c.warnings), strings.Join(g.Warnings, "\n"))
			}
			for i, w := range c.warnings {
				if !strings.Contains(g.Warnings[i], w) {
					t.Errorf("warning %d = %q, want it to contain %q", i, g.Warnings[i], w)
				}
			}
			if t.Failed() {
				t.Logf("edges:\n%s", strings.Join(got, "\n"))
			}
		})
	}
}

func TestAddGatewayAPISharedService(t *testing.T) {
	var g Graph
	g.AddGatewayAPI(GatewayAPI{
		Gateways: []*gwv1.Gateway{gateway("app", "gw", "gc", http80)},
		HTTPRoutes: []*gwv1.HTTPRoute{
			httpRoute("app", "r2", []gwv1.ParentReference{parentRef("", "gw")}, httpRule("", backend("", "svc"))),
			httpRoute("app", "r1", []gwv1.ParentReference{parentRef("", "gw")}, httpRule("", backend("", "svc"))),
		},
		Services: []*corev1.Service{service("app", "svc")},
	})
	id, ok := g.Lookup(refOf(KindService, "app", "svc"))
	if !ok {
		t.Fatal("no Service node")
	}
	var parents []string
	for _, p := range g.Node(id).Parents {
		parents = append(parents, g.Node(p).Ref.String())
	}
	if want := []string{"HTTPRoute/app/r1#rules[0]", "HTTPRoute/app/r2#rules[0]"}; !reflect.DeepEqual(parents, want) {
		t.Errorf("Service parents = %v, want %v", parents, want)
	}
	gw, _ := g.Lookup(refOf(KindGateway, "app", "gw"))
	var roots []string
	for _, r := range g.Roots() {
		roots = append(roots, g.Node(r).Ref.String())
	}
	// Without a GatewayClass, the Gateway's only parent is its Namespace
	// (GEP-2649's Namespace > Gateway hierarchy).
	if want := []string{"Namespace/app"}; !reflect.DeepEqual(roots, want) || len(g.Node(gw).Parents) != 1 {
		t.Errorf("roots = %v, want %v; Gateway parents %d, want 1", roots, want, len(g.Node(gw).Parents))
	}
}

// TestAddGatewayAPIOrder checks that the graph does not depend on the order
// of the input slices.
func TestAddGatewayAPIOrder(t *testing.T) {
	in := GatewayAPI{
		GatewayClasses: []*gwv1.GatewayClass{class("gc"), class("other")},
		Gateways: []*gwv1.Gateway{
			gateway("infra", "gw", "gc", from(http80, gwv1.NamespacesFromAll, nil), https443),
			gateway("app", "gw", "other", alt8080, tcp9000),
			gateway("app", "gw2", "gc", http80),
		},
		HTTPRoutes: []*gwv1.HTTPRoute{
			httpRoute("app", "a", []gwv1.ParentReference{parentRef("infra", "gw"), parentRef("", "gw")}, httpRule("", backend("", "s1")), httpRule("x", backend("", "s2"))),
			httpRoute("app", "b", []gwv1.ParentReference{parentRef("", "gw2"), parentRef("", "nope")}, httpRule("", backend("", "s1"), backend("backend", "s3"))),
			httpRoute("infra", "c", []gwv1.ParentReference{parentRef("", "gw")}, httpRule("", backend("backend", "s3"))),
		},
		GRPCRoutes: []*gwv1.GRPCRoute{
			grpcRoute("app", "g", []gwv1.ParentReference{parentRef("", "gw")}, backend("", "s2")),
			grpcRoute("app", "h", []gwv1.ParentReference{parentRef("", "gw2")}, backend("", "missing")),
		},
		Services:        []*corev1.Service{service("app", "s1", "a", "b"), service("app", "s2"), service("backend", "s3", "p")},
		Namespaces:      []*corev1.Namespace{namespace("app", nil), namespace("infra", nil)},
		ReferenceGrants: []*gwv1.ReferenceGrant{grant("backend", "HTTPRoute", "app", "s3")},
	}
	var want Graph
	want.AddGatewayAPI(in)
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 50; i++ {
		shuffle(rng, in.GatewayClasses)
		shuffle(rng, in.Gateways)
		shuffle(rng, in.HTTPRoutes)
		shuffle(rng, in.GRPCRoutes)
		shuffle(rng, in.Services)
		shuffle(rng, in.Namespaces)
		var got Graph
		got.AddGatewayAPI(in)
		if !reflect.DeepEqual(got.Nodes, want.Nodes) || !reflect.DeepEqual(got.Warnings, want.Warnings) {
			t.Fatalf("shuffle %d: graph differs:\n%s\nwarnings %q\nwant\n%s\nwarnings %q",
				i, strings.Join(edges(&got), "\n"), got.Warnings, strings.Join(edges(&want), "\n"), want.Warnings)
		}
	}
}

func shuffle[T any](rng *rand.Rand, s []T) {
	rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
}

// TestAddGatewayAPINil checks that missing objects and fields do not panic.
func TestAddGatewayAPINil(t *testing.T) {
	var g Graph
	g.AddGatewayAPI(GatewayAPI{
		GatewayClasses:  []*gwv1.GatewayClass{nil},
		Gateways:        []*gwv1.Gateway{nil, {}, {Spec: gwv1.GatewaySpec{Listeners: []gwv1.Listener{{AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{}}}}}}},
		HTTPRoutes:      []*gwv1.HTTPRoute{nil, {Spec: gwv1.HTTPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{}}}, Rules: []gwv1.HTTPRouteRule{{BackendRefs: []gwv1.HTTPBackendRef{{}}}}}}},
		GRPCRoutes:      []*gwv1.GRPCRoute{nil, {}},
		Services:        []*corev1.Service{nil, {}},
		Namespaces:      []*corev1.Namespace{nil, {}},
		ReferenceGrants: []*gwv1.ReferenceGrant{nil, {}},
	})
	g.AddGatewayAPI(GatewayAPI{})
}
