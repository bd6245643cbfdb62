package topology

import (
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestGrantsAllows(t *testing.T) {
	policyGrant := &gwv1.ReferenceGrant{}
	policyGrant.Namespace = "infra"
	policyGrant.Spec.From = []gwv1.ReferenceGrantFrom{
		{Group: "example.com", Kind: "ColorPolicy", Namespace: "team-a"},
		{Group: "example.com", Kind: "ColorPolicy", Namespace: "team-b"},
	}
	policyGrant.Spec.To = []gwv1.ReferenceGrantTo{
		{Group: GatewayAPIGroup, Kind: "Gateway", Name: ptr(gwv1.ObjectName("gw"))},
		{Group: "", Kind: "Service"},
	}
	defaultNS := grant("", "HTTPRoute", "app", "svc") // no namespace: "default"
	gs := Grants{nil, policyGrant, defaultNS}

	cases := []struct {
		name                                         string
		fromGroup, fromKind, fromNS, toGroup, toKind string
		toNS, toName                                 string
		want                                         bool
	}{
		{"same namespace needs no grant", GatewayAPIGroup, "HTTPRoute", "x", "", "Service", "x", "s", true},
		{"granted by name", "example.com", "ColorPolicy", "team-a", GatewayAPIGroup, "Gateway", "infra", "gw", true},
		{"second from entry", "example.com", "ColorPolicy", "team-b", GatewayAPIGroup, "Gateway", "infra", "gw", true},
		{"other name", "example.com", "ColorPolicy", "team-a", GatewayAPIGroup, "Gateway", "infra", "gw2", false},
		{"any name", "example.com", "ColorPolicy", "team-a", "", "Service", "infra", "anything", true},
		{"other from namespace", "example.com", "ColorPolicy", "team-c", "", "Service", "infra", "s", false},
		{"other from kind", "example.com", "SizePolicy", "team-a", "", "Service", "infra", "s", false},
		{"other from group", "other.com", "ColorPolicy", "team-a", "", "Service", "infra", "s", false},
		{"other to group", "example.com", "ColorPolicy", "team-a", "apps", "Service", "infra", "s", false},
		{"grant must live in target namespace", "example.com", "ColorPolicy", "team-a", GatewayAPIGroup, "Gateway", "team-x", "gw", false},
		{"grant without namespace is in default", GatewayAPIGroup, "HTTPRoute", "app", "", "Service", "default", "svc", true},
	}
	for _, c := range cases {
		if got := gs.Allows(c.fromGroup, c.fromKind, c.fromNS, c.toGroup, c.toKind, c.toNS, c.toName); got != c.want {
			t.Errorf("%s: Allows = %v, want %v", c.name, got, c.want)
		}
	}
	if Grants(nil).Allows("a", "B", "x", "c", "D", "y", "n") {
		t.Error("nil Grants allow a cross-namespace reference")
	}
}
