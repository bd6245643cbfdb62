package envoygateway

import (
	"slices"
	"time"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/generators"
)

func init() {
	generators.Register("envoy-gateway-backendtrafficpolicy", BackendTrafficScenarios)
	generators.Register("envoy-gateway-clienttrafficpolicy", ClientTrafficScenarios)
	generators.Register("envoy-gateway-securitypolicy", SecurityScenarios)
}

// BTPField is a BackendTrafficPolicy field that shows as one readable xDS
// value per route rule (docs/envoy-gateway.md).
type BTPField struct {
	// Path is the dotted field of the policy's spec.
	Path []string
	// Values are the values drawn.
	Values []any
}

// BTPFields is the table of BackendTrafficPolicy fields the Envoy generators.Gateway
// generator draws from.
var BTPFields = []BTPField{
	{Path: []string{"timeout", "http", "requestTimeout"}, Values: []any{"5s", "10s", "15s"}},
	{Path: []string{"retry", "numRetries"}, Values: []any{float64(1), float64(2), float64(3)}},
	// A list: merge patches replace it whole (RFC 7386), empty included.
	// Never 503, Envoy Gateway's own value when retry.retryOn is unset
	// (ReadXDS).
	{Path: []string{"retry", "retryOn", "httpStatusCodes"}, Values: []any{[]any{float64(500)}, []any{float64(502), float64(504)}, []any{}}},
	// A setting of the rule's cluster, not of its route: absent unless set.
	{Path: []string{"circuitBreaker", "maxConnections"}, Values: []any{float64(100), float64(200), float64(300)}},
}

// BackendTrafficScenarios draws Envoy-Gateway-shaped scenarios in namespace
// ns: a GatewayClass with Envoy Gateway's controllerName, a generators.Gateway with two
// listeners, two HTTPRoutes with named rules (one attached to the generators.Gateway,
// one to a listener), a generators.Service, and BackendTrafficPolicies on the generators.Gateway,
// a listener, the routes and a rule, with mergeType JSONMerge or
// StrategicMerge on some route-level ones; creationTimestamps and names drawn to make conflicts.
func BackendTrafficScenarios(ns string, maxPolicies int) *rapid.Generator[*generators.Scenario] {
	if maxPolicies <= 0 {
		maxPolicies = 4
	}
	targets := []generators.Target{
		{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "gw"},
		{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "gw", Section: "http"},
		{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-1"},
		{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-1", Section: "rule-1"},
		{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-2"},
	}
	return rapid.Custom(func(t *rapid.T) *generators.Scenario {
		s := egTopology("envoy-gateway-backendtrafficpolicy", ns)
		used := map[string]bool{}
		n := rapid.IntRange(1, maxPolicies).Draw(t, "policies")
		for i := 0; i < n; i++ {
			tgs := drawTargets(t, targets)
			tg := tgs[0]
			created := generators.BaseTime.Add(time.Duration(rapid.IntRange(0, 2).Draw(t, "created")) * time.Second)
			p := generators.Policy{Group: "gateway.envoyproxy.io", Kind: "BackendTrafficPolicy", Namespace: ns, Name: generators.DrawName(t, used), Created: &created,
				Targets: tgs, Spec: map[string]any{}}
			for _, f := range rapid.SliceOfNDistinct(rapid.IntRange(0, len(BTPFields)-1), 1, len(BTPFields), rapid.ID[int]).Draw(t, "fields") {
				setPath(p.Spec, BTPFields[f].Path, rapid.SampledFrom(BTPFields[f].Values).Draw(t, "value"))
			}
			drawShape(t, p.Spec, btpObjects)
			if tg.Kind == "HTTPRoute" && len(tgs) == 1 && rapid.Bool().Draw(t, "merge") {
				p.Spec["mergeType"] = rapid.SampledFrom(mergeTypes).Draw(t, "mergeType")
			}
			s.Policies = append(s.Policies, p)
		}
		return s
	})
}

// btpObjects are the objects of BTPFields' paths.
var btpObjects = [][]string{{"timeout"}, {"timeout", "http"}, {"retry"}, {"retry", "retryOn"}, {"circuitBreaker"}}

// drawShape, one time in three, sets one of objects to a value that
// matters to merge patches: null (RFC 7386 deletes; an API server prunes
// it first, Kubernetes, Defaulting and Nullable) or an empty object (a
// merge patch changes nothing; an atomic policy replaces the whole spec).
// Objects drawn but not set stay partially set, by the field table.
func drawShape(t *rapid.T, spec map[string]any, objects [][]string) {
	if rapid.IntRange(0, 2).Draw(t, "shape") != 0 {
		return
	}
	path := rapid.SampledFrom(objects).Draw(t, "shaped object")
	if rapid.Bool().Draw(t, "null") {
		setPath(spec, path, nil)
	} else {
		setPath(spec, path, map[string]any{})
	}
}

// mergeTypes are the values of BackendTrafficPolicy's mergeType.
var mergeTypes = []string{"JSONMerge", "StrategicMerge"}

// egTopology is the generators.Gateway API part of Envoy-Gateway-shaped scenarios.
func egTopology(profile, ns string) *generators.Scenario {
	s := &generators.Scenario{Profile: profile, ControllerName: ControllerName, ServiceClusterIPs: true}
	s.Namespaces = []string{ns}
	s.GatewayClasses = []string{"eg"}
	s.Gateways = []generators.Gateway{{Namespace: ns, Name: "gw", Class: "eg", Listeners: []generators.Listener{{Name: "http", Port: 80}, {Name: "http-2", Port: 8080}}}}
	s.Services = []generators.Service{{Namespace: ns, Name: "svc"}}
	b := []generators.BackendRef{{Name: "svc"}}
	s.Routes = []generators.Route{
		{Namespace: ns, Name: "route-1", Parents: []generators.ParentRef{{Name: "gw"}}, Rules: []generators.Rule{{Name: "rule-1", Backends: b}, {Name: "rule-2", Backends: b}}},
		{Namespace: ns, Name: "route-2", Parents: []generators.ParentRef{{Name: "gw", Section: "http"}}, Rules: []generators.Rule{{Name: "rule-1", Backends: b}}},
	}
	return s
}

// SecurityScenarios draws SecurityPolicy scenarios on the
// topology of BackendTrafficScenarios: policies on the Gateway, a route or a
// rule setting cors.allowOrigins (read back from each route's CORS filter
// configuration), cors sometimes null or empty.
func SecurityScenarios(ns string, maxPolicies int) *rapid.Generator[*generators.Scenario] {
	if maxPolicies <= 0 {
		maxPolicies = 4
	}
	targets := []generators.Target{
		{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "gw"},
		{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-1"},
		{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-1", Section: "rule-1"},
		{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-2"},
	}
	origins := []any{"https://a.example.com", "https://b.example.com", "https://c.example.com"}
	return rapid.Custom(func(t *rapid.T) *generators.Scenario {
		s := egTopology("envoy-gateway-securitypolicy", ns)
		used := map[string]bool{}
		n := rapid.IntRange(1, maxPolicies).Draw(t, "policies")
		for i := 0; i < n; i++ {
			created := generators.BaseTime.Add(time.Duration(rapid.IntRange(0, 2).Draw(t, "created")) * time.Second)
			s.Policies = append(s.Policies, generators.Policy{Group: "gateway.envoyproxy.io", Kind: "SecurityPolicy", Namespace: ns, Name: generators.DrawName(t, used), Created: &created,
				Targets: drawTargets(t, targets),
				Spec:    map[string]any{"cors": map[string]any{"allowOrigins": []any{rapid.SampledFrom(origins).Draw(t, "origin")}}}})
			drawShape(t, s.Policies[len(s.Policies)-1].Spec, [][]string{{"cors"}})
		}
		return s
	})
}

// missingRoute and missingGateway are targetRefs to objects no scenario
// has: a policy may target something that does not exist beside what does
// (GEP-713, TargetNotFound).
var (
	missingRoute   = generators.Target{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "route-missing"}
	missingGateway = generators.Target{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "gw-missing"}
)

// drawTargets draws a policy's targetRefs: mostly one of targets, one time
// in four two distinct ones, one time in ten with a missing object of a
// kind targets has instead or beside.
func drawTargets(t *rapid.T, targets []generators.Target) []generators.Target {
	var missing []generators.Target
	for _, m := range []generators.Target{missingGateway, missingRoute} {
		if slices.ContainsFunc(targets, func(t generators.Target) bool { return t.Kind == m.Kind }) {
			missing = append(missing, m)
		}
	}
	out := []generators.Target{rapid.SampledFrom(targets).Draw(t, "target")}
	if rapid.IntRange(0, 3).Draw(t, "two targets") == 0 {
		second := rapid.SampledFrom(targets).Draw(t, "second target")
		if second != out[0] {
			out = append(out, second)
		}
	}
	if rapid.IntRange(0, 9).Draw(t, "missing target") == 0 {
		m := rapid.SampledFrom(missing).Draw(t, "missing kind")
		if rapid.Bool().Draw(t, "beside") {
			out = append(out, m)
		} else {
			out[0] = m
		}
	}
	return out
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

// ClientTrafficScenarios draws ClientTrafficPolicy scenarios in
// namespace ns: a Gateway with two listeners and one to four policies on
// the Gateway, a listener, or a Gateway that does not exist, setting
// connection.connectionLimit.value (read back from the listener's
// connection_limit filter), connection sometimes null or empty.
func ClientTrafficScenarios(ns string, maxPolicies int) *rapid.Generator[*generators.Scenario] {
	if maxPolicies <= 0 {
		maxPolicies = 4
	}
	targets := []generators.Target{
		{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "gw"},
		{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "gw", Section: "http"},
		{Group: "gateway.networking.k8s.io", Kind: "Gateway", Name: "gw", Section: "http-2"},
	}
	return rapid.Custom(func(t *rapid.T) *generators.Scenario {
		s := &generators.Scenario{Profile: "envoy-gateway-clienttrafficpolicy", ControllerName: ControllerName, ServiceClusterIPs: true}
		s.Namespaces = []string{ns}
		s.GatewayClasses = []string{"eg"}
		s.Gateways = []generators.Gateway{{Namespace: ns, Name: "gw", Class: "eg", Listeners: []generators.Listener{{Name: "http", Port: 80}, {Name: "http-2", Port: 8080}}}}
		used := map[string]bool{}
		n := rapid.IntRange(1, maxPolicies).Draw(t, "policies")
		for i := 0; i < n; i++ {
			created := generators.BaseTime.Add(time.Duration(rapid.IntRange(0, 2).Draw(t, "created")) * time.Second)
			s.Policies = append(s.Policies, generators.Policy{Group: "gateway.envoyproxy.io", Kind: "ClientTrafficPolicy", Namespace: ns, Name: generators.DrawName(t, used), Created: &created,
				Targets: drawTargets(t, targets),
				Spec:    map[string]any{"connection": map[string]any{"connectionLimit": map[string]any{"value": float64(rapid.SampledFrom([]int{100, 200, 300}).Draw(t, "limit"))}}}})
			// connectionLimit.value is required: only connection is
			// shaped.
			drawShape(t, s.Policies[len(s.Policies)-1].Spec, [][]string{{"connection"}})
		}
		return s
	})
}
