package topology

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func listenerSet(ns, name, gwNS, gw string, ls ...gwv1.ListenerEntry) *gwv1.ListenerSet {
	o := &gwv1.ListenerSet{ObjectMeta: meta(ns, name)}
	o.Spec.ParentRef = gwv1.ParentGatewayReference{Name: gwv1.ObjectName(gw)}
	if gwNS != "" {
		o.Spec.ParentRef.Namespace = ptr(gwv1.Namespace(gwNS))
	}
	o.Spec.Listeners = ls
	return o
}

func entry(name string, port int32, proto gwv1.ProtocolType) gwv1.ListenerEntry {
	return gwv1.ListenerEntry{Name: gwv1.SectionName(name), Port: gwv1.PortNumber(port), Protocol: proto}
}

func allowListeners(gw *gwv1.Gateway, f gwv1.FromNamespaces) *gwv1.Gateway {
	gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: &f}}
	return gw
}

func setParent(name, section string) gwv1.ParentReference {
	p := gwv1.ParentReference{Name: gwv1.ObjectName(name), Kind: ptr(gwv1.Kind(KindListenerSet))}
	if section != "" {
		p.SectionName = ptr(gwv1.SectionName(section))
	}
	return p
}

// TestListenerSet checks GEP-1713's attachment rules as edges: Gateway >
// ListenerSet > listener > route, only when the Gateway allows the
// ListenerSet (Gateway & ListenerSet Handshake), and a route whose parent is
// the Gateway never reaches a ListenerSet's listeners (Gateway Parents and
// sectionName), even one named like a Gateway listener (Listener
// Validation: names need not be unique across resources).
func TestListenerSet(t *testing.T) {
	cases := []struct {
		name         string
		in           GatewayAPI
		want, absent []string
		warnings     []string
	}{{
		name: "allowed from Same",
		in: GatewayAPI{
			Gateways:     []*gwv1.Gateway{allowListeners(gateway("app", "gw", "c", listenerSpec("http", 80, gwv1.HTTPProtocolType)), gwv1.NamespacesFromSame)},
			ListenerSets: []*gwv1.ListenerSet{listenerSet("app", "ls", "", "gw", entry("http", 8080, gwv1.HTTPProtocolType), entry("second", 8081, gwv1.HTTPProtocolType))},
			HTTPRoutes: []*gwv1.HTTPRoute{
				httpRoute("app", "on-set", []gwv1.ParentReference{setParent("ls", "second")}, httpRule("a")),
				httpRoute("app", "on-set-all", []gwv1.ParentReference{setParent("ls", "")}, httpRule("a")),
				httpRoute("app", "on-gateway", []gwv1.ParentReference{parentRef("", "gw")}, httpRule("a")),
			},
		},
		want: []string{
			"Gateway/app/gw > ListenerSet/app/ls",
			"ListenerSet/app/ls > ListenerSet/app/ls#http",
			"ListenerSet/app/ls > ListenerSet/app/ls#second",
			"ListenerSet/app/ls#second > HTTPRoute/app/on-set",
			"ListenerSet/app/ls#http > HTTPRoute/app/on-set-all",
			"ListenerSet/app/ls#second > HTTPRoute/app/on-set-all",
			"Gateway/app/gw#http > HTTPRoute/app/on-gateway",
		},
		absent: []string{
			"ListenerSet/app/ls#http > HTTPRoute/app/on-gateway",
			"ListenerSet/app/ls#http > HTTPRoute/app/on-set",
			"Gateway/app/gw#http > HTTPRoute/app/on-set-all",
		},
	}, {
		name: "not allowed by default",
		in: GatewayAPI{
			Gateways:     []*gwv1.Gateway{gateway("app", "gw", "c", listenerSpec("http", 80, gwv1.HTTPProtocolType))},
			ListenerSets: []*gwv1.ListenerSet{listenerSet("app", "ls", "", "gw", entry("x", 8080, gwv1.HTTPProtocolType))},
			HTTPRoutes:   []*gwv1.HTTPRoute{httpRoute("app", "r", []gwv1.ParentReference{setParent("ls", "")}, httpRule("a"))},
		},
		want:   []string{"ListenerSet/app/ls > ListenerSet/app/ls#x"},
		absent: []string{"Gateway/app/gw > ListenerSet/app/ls", "ListenerSet/app/ls#x > HTTPRoute/app/r"},
		warnings: []string{
			`ListenerSet app/ls: spec.parentRef (Gateway app/gw): the Gateway does not allow the ListenerSet: allowedListeners.namespaces.from is None (GEP-1713, Gateway & ListenerSet Handshake)`,
			`HTTPRoute app/r: spec.parentRefs[0] (ListenerSet app/ls): the ListenerSet is not attached to a Gateway`,
		},
	}, {
		name: "Same refuses another namespace; All allows it",
		in: GatewayAPI{
			Gateways: []*gwv1.Gateway{
				allowListeners(gateway("infra", "same", "c", listenerSpec("http", 80, gwv1.HTTPProtocolType)), gwv1.NamespacesFromSame),
				allowListeners(gateway("infra", "all", "c", listenerSpec("http", 80, gwv1.HTTPProtocolType)), gwv1.NamespacesFromAll),
			},
			ListenerSets: []*gwv1.ListenerSet{
				listenerSet("app", "to-same", "infra", "same", entry("x", 8080, gwv1.HTTPProtocolType)),
				listenerSet("app", "to-all", "infra", "all", entry("x", 8080, gwv1.HTTPProtocolType)),
			},
		},
		want:     []string{"Gateway/infra/all > ListenerSet/app/to-all"},
		absent:   []string{"Gateway/infra/same > ListenerSet/app/to-same"},
		warnings: []string{`allowedListeners.namespaces.from is Same and the ListenerSet is not in namespace "infra"`},
	}, {
		name: "sectionName names a listener of the direct parent only",
		in: GatewayAPI{
			Gateways:     []*gwv1.Gateway{allowListeners(gateway("app", "gw", "c", listenerSpec("notfoo", 80, gwv1.HTTPProtocolType)), gwv1.NamespacesFromSame)},
			ListenerSets: []*gwv1.ListenerSet{listenerSet("app", "ls", "", "gw", entry("foo", 80, gwv1.HTTPProtocolType))},
			HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("app", "r", []gwv1.ParentReference{func() gwv1.ParentReference {
				p := parentRef("", "gw")
				p.SectionName = ptr(gwv1.SectionName("foo"))
				return p
			}()}, httpRule("a"))},
		},
		absent:   []string{"ListenerSet/app/ls#foo > HTTPRoute/app/r"},
		warnings: []string{`HTTPRoute app/r: spec.parentRefs[0] (Gateway app/gw sectionName "foo"): no listener named "foo"`},
	}}
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

// TestLayer4Routes checks TLSRoute, TCPRoute and UDPRoute as route levels:
// route > rule (named or positional) > Service, attached to the listeners
// whose protocol carries them (Gateway API, Listener.protocol and
// allowedRoutes).
func TestLayer4Routes(t *testing.T) {
	br := func(name string) []gwv1.BackendRef {
		return []gwv1.BackendRef{{BackendObjectReference: backend("", name)}}
	}
	in := GatewayAPI{
		Gateways: []*gwv1.Gateway{gateway("app", "gw", "c",
			listenerSpec("tls", 443, gwv1.TLSProtocolType), listenerSpec("tcp", 9000, gwv1.TCPProtocolType), listenerSpec("udp", 5300, gwv1.UDPProtocolType))},
		Services: []*corev1.Service{service("app", "svc")},
		TLSRoutes: []*gwv1.TLSRoute{{ObjectMeta: meta("app", "tls"), Spec: gwv1.TLSRouteSpec{
			CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{parentRef("", "gw")}},
			Rules:           []gwv1.TLSRouteRule{{Name: ptr(gwv1.SectionName("main")), BackendRefs: br("svc")}}}}},
		TCPRoutes: []*gwv1.TCPRoute{{ObjectMeta: meta("app", "tcp"), Spec: gwv1.TCPRouteSpec{
			CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{parentRef("", "gw")}},
			Rules:           []gwv1.TCPRouteRule{{BackendRefs: br("svc")}}}}},
		UDPRoutes: []*gwv1.UDPRoute{{ObjectMeta: meta("app", "udp"), Spec: gwv1.UDPRouteSpec{
			CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{parentRef("", "gw")}},
			Rules:           []gwv1.UDPRouteRule{{BackendRefs: br("svc")}}}}},
	}
	var g Graph
	g.AddGatewayAPI(in)
	got := edges(&g)
	for _, e := range []string{
		"Gateway/app/gw#tls > TLSRoute/app/tls",
		"TLSRoute/app/tls > TLSRoute/app/tls#main",
		"TLSRoute/app/tls#main > Service/app/svc",
		"Gateway/app/gw#tcp > TCPRoute/app/tcp",
		"Gateway/app/gw#tls > TCPRoute/app/tcp",
		"TCPRoute/app/tcp > TCPRoute/app/tcp#rules[0]",
		"TCPRoute/app/tcp#rules[0] > Service/app/svc",
		"Gateway/app/gw#udp > UDPRoute/app/udp",
		"UDPRoute/app/udp#rules[0] > Service/app/svc",
	} {
		if !slices.Contains(got, e) {
			t.Errorf("missing edge %s", e)
		}
	}
	for _, e := range []string{"Gateway/app/gw#tcp > TLSRoute/app/tls", "Gateway/app/gw#udp > TCPRoute/app/tcp", "Gateway/app/gw#tcp > UDPRoute/app/udp"} {
		if slices.Contains(got, e) {
			t.Errorf("unexpected edge %s", e)
		}
	}
	if len(g.Warnings) != 0 {
		t.Errorf("warnings: %s", strings.Join(g.Warnings, "\n"))
	}
	if t.Failed() {
		t.Logf("edges:\n%s", strings.Join(got, "\n"))
	}
}
