package generators

import (
	"time"

	"pgregory.net/rapid"
)

// EnvoyGatewayControllerName is the controllerName of Envoy Gateway's
// GatewayClass.
const EnvoyGatewayControllerName = "gateway.envoyproxy.io/gatewayclass-controller"

// BTPField is a BackendTrafficPolicy field that shows as one readable xDS
// value per route rule (docs/envoy-gateway.md).
type BTPField struct {
	// Path is the dotted field of the policy's spec.
	Path []string
	// Values are the values drawn.
	Values []any
}

// BTPFields is the table of BackendTrafficPolicy fields the Envoy Gateway
// generator draws from.
var BTPFields = []BTPField{
	{Path: []string{"timeout", "http", "requestTimeout"}, Values: []any{"5s", "10s", "15s"}},
	{Path: []string{"retry", "numRetries"}, Values: []any{float64(1), float64(2), float64(3)}},
	// A setting of the rule's cluster, not of its route: absent unless set.
	{Path: []string{"circuitBreaker", "maxConnections"}, Values: []any{float64(100), float64(200), float64(300)}},
}

// EnvoyGatewayScenarios draws Envoy-Gateway-shaped scenarios in namespace
// ns: a GatewayClass with Envoy Gateway's controllerName, a Gateway with two
// listeners, two HTTPRoutes with named rules (one attached to the Gateway,
// one to a listener), a Service, and BackendTrafficPolicies on the Gateway,
// a listener, the routes and a rule, with mergeType JSONMerge on some
// route-level ones; creationTimestamps and names drawn to make conflicts.
func EnvoyGatewayScenarios(ns string, maxPolicies int) *rapid.Generator[*Scenario] {
	if maxPolicies <= 0 {
		maxPolicies = 4
	}
	targets := []Target{
		{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "gw"},
		{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "gw", Section: "http"},
		{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-1"},
		{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-1", Section: "rule-1"},
		{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-2"},
	}
	return rapid.Custom(func(t *rapid.T) *Scenario {
		s := egTopology("envoy-gateway-backendtrafficpolicy", ns)
		used := map[string]bool{}
		n := rapid.IntRange(1, maxPolicies).Draw(t, "policies")
		for i := 0; i < n; i++ {
			tg := rapid.SampledFrom(targets).Draw(t, "target")
			created := BaseTime.Add(time.Duration(rapid.IntRange(0, 2).Draw(t, "created")) * time.Second)
			p := Policy{Group: "gateway.envoyproxy.io", Kind: "BackendTrafficPolicy", Namespace: ns, Name: drawName(t, used), Created: &created,
				Targets: []Target{tg}, Spec: map[string]any{}}
			for _, f := range rapid.SliceOfNDistinct(rapid.IntRange(0, len(BTPFields)-1), 1, len(BTPFields), rapid.ID[int]).Draw(t, "fields") {
				setPath(p.Spec, BTPFields[f].Path, rapid.SampledFrom(BTPFields[f].Values).Draw(t, "value"))
			}
			if tg.Kind == "HTTPRoute" && rapid.IntRange(0, 2).Draw(t, "merge") == 0 {
				p.Spec["mergeType"] = "JSONMerge"
			}
			s.Policies = append(s.Policies, p)
		}
		return s
	})
}

// egTopology is the Gateway API part of Envoy-Gateway-shaped scenarios.
func egTopology(profile, ns string) *Scenario {
	s := &Scenario{Profile: profile}
	s.Namespaces = []string{ns}
	s.GatewayClasses = []string{"eg"}
	s.Gateways = []Gateway{{Namespace: ns, Name: "gw", Class: "eg", Listeners: []Listener{{Name: "http", Port: 80}, {Name: "http-2", Port: 8080}}}}
	s.Services = []Service{{Namespace: ns, Name: "svc"}}
	b := []BackendRef{{Name: "svc"}}
	s.Routes = []Route{
		{Namespace: ns, Name: "route-1", Parents: []ParentRef{{Name: "gw"}}, Rules: []Rule{{Name: "rule-1", Backends: b}, {Name: "rule-2", Backends: b}}},
		{Namespace: ns, Name: "route-2", Parents: []ParentRef{{Name: "gw", Section: "http"}}, Rules: []Rule{{Name: "rule-1", Backends: b}}},
	}
	return s
}

// EnvoyGatewaySecurityScenarios draws SecurityPolicy scenarios on the
// topology of EnvoyGatewayScenarios: policies on the Gateway, a route or a
// rule setting cors.allowOrigins (read back from each route's CORS filter
// configuration).
func EnvoyGatewaySecurityScenarios(ns string, maxPolicies int) *rapid.Generator[*Scenario] {
	if maxPolicies <= 0 {
		maxPolicies = 4
	}
	targets := []Target{
		{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "gw"},
		{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-1"},
		{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-1", Section: "rule-1"},
		{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-2"},
	}
	origins := []any{"https://a.example.com", "https://b.example.com", "https://c.example.com"}
	return rapid.Custom(func(t *rapid.T) *Scenario {
		s := egTopology("envoy-gateway-securitypolicy", ns)
		used := map[string]bool{}
		n := rapid.IntRange(1, maxPolicies).Draw(t, "policies")
		for i := 0; i < n; i++ {
			created := BaseTime.Add(time.Duration(rapid.IntRange(0, 2).Draw(t, "created")) * time.Second)
			s.Policies = append(s.Policies, Policy{Group: "gateway.envoyproxy.io", Kind: "SecurityPolicy", Namespace: ns, Name: drawName(t, used), Created: &created,
				Targets: []Target{rapid.SampledFrom(targets).Draw(t, "target")},
				Spec:    map[string]any{"cors": map[string]any{"allowOrigins": []any{rapid.SampledFrom(origins).Draw(t, "origin")}}}})
		}
		return s
	})
}

func setPath(m map[string]any, path []string, v any) {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// InNamespace returns a copy of a single-namespace scenario moved to
// namespace ns, so that scenarios can be batched one namespace each.
func (s *Scenario) InNamespace(ns string) *Scenario {
	c := s.Clone()
	c.Namespaces = []string{ns}
	for i := range c.Gateways {
		c.Gateways[i].Namespace = ns
	}
	for i := range c.Routes {
		c.Routes[i].Namespace = ns
	}
	for i := range c.Services {
		c.Services[i].Namespace = ns
	}
	for i := range c.Policies {
		c.Policies[i].Namespace = ns
	}
	for i := range c.OwnFields {
		c.OwnFields[i].Namespace = ns
	}
	return c
}

// EnvoyGatewayClientScenarios draws ClientTrafficPolicy scenarios in
// namespace ns: a Gateway with two listeners and one to four policies on the
// Gateway or on one listener, setting connection.connectionLimit.value
// (read back from the listener's connection_limit filter).
func EnvoyGatewayClientScenarios(ns string, maxPolicies int) *rapid.Generator[*Scenario] {
	if maxPolicies <= 0 {
		maxPolicies = 4
	}
	targets := []Target{
		{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "gw"},
		{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "gw", Section: "http"},
		{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "gw", Section: "http-2"},
	}
	return rapid.Custom(func(t *rapid.T) *Scenario {
		s := &Scenario{Profile: "envoy-gateway-clienttrafficpolicy"}
		s.Namespaces = []string{ns}
		s.GatewayClasses = []string{"eg"}
		s.Gateways = []Gateway{{Namespace: ns, Name: "gw", Class: "eg", Listeners: []Listener{{Name: "http", Port: 80}, {Name: "http-2", Port: 8080}}}}
		used := map[string]bool{}
		n := rapid.IntRange(1, maxPolicies).Draw(t, "policies")
		for i := 0; i < n; i++ {
			created := BaseTime.Add(time.Duration(rapid.IntRange(0, 2).Draw(t, "created")) * time.Second)
			s.Policies = append(s.Policies, Policy{Group: "gateway.envoyproxy.io", Kind: "ClientTrafficPolicy", Namespace: ns, Name: drawName(t, used), Created: &created,
				Targets: []Target{rapid.SampledFrom(targets).Draw(t, "target")},
				Spec:    map[string]any{"connection": map[string]any{"connectionLimit": map[string]any{"value": float64(rapid.SampledFrom([]int{100, 200, 300}).Draw(t, "limit"))}}}})
		}
		return s
	})
}
