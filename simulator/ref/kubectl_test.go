package ref

import "testing"

// Kubectl resolves kubectl's forms against the objects of the input.
func TestKubectl(t *testing.T) {
	known := []Ref{
		{Kind: "GatewayClass", Name: "example"},
		{Kind: "Gateway", Namespace: "infra", Name: "g1"},
		{Kind: "HTTPRoute", Namespace: "default", Name: "r1", Section: "rule-1"},
		{Kind: "BackendTrafficPolicy", Namespace: "default", Name: "p"},
	}
	for _, tc := range []struct{ in, ns, want string }{
		{"gatewayclass/example", "", "GatewayClass/example"}, // cluster-scoped: no namespace
		{"gc/example", "", "GatewayClass/example"},
		{"gatewayclasses/example", "", "GatewayClass/example"},
		{"gtw/g1", "infra", "Gateway/infra/g1"},
		{"gateways/g1", "", "Gateway/default/g1"}, // kubectl's default namespace
		{"httproute/r1#rule-1", "", "HTTPRoute/default/r1#rule-1"},
		{"HTTPRoutes/default/r1", "default", "HTTPRoute/default/r1"},
		{"backendtrafficpolicies/p", "", "BackendTrafficPolicy/default/p"},
		{"Unknown/x", "", "Unknown/default/x"}, // left as written: the explanation names it
	} {
		r, err := Kubectl(tc.in, tc.ns, known)
		if err != nil || r.String() != tc.want {
			t.Errorf("Kubectl(%q, -n %q) = %s, %v; want %s", tc.in, tc.ns, r, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, ns string }{{"a/b/c/d", ""}, {"gateway/", ""}, {"Gateway/infra/g1", "other"}} {
		if _, err := Kubectl(tc.in, tc.ns, known); err == nil {
			t.Errorf("Kubectl(%q, -n %q): no error", tc.in, tc.ns)
		}
	}
	for kind, want := range map[string]string{"Gateway": "gateways", "GatewayClass": "gatewayclasses", "BackendTrafficPolicy": "backendtrafficpolicies", "Gateway API": "gateway apis", "Proxy": "proxies", "Key": "keys"} {
		if got := Plural(kind); got != want {
			t.Errorf("plural(%s) = %s, want %s", kind, got, want)
		}
	}
}
