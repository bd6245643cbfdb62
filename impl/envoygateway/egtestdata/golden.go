package egtestdata

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// Setting is the effective setting of one path in Envoy Gateway's golden
// output, in gepcheck's path words (Gateway/ns/name, Gateway/ns/name#listener,
// HTTPRoute/ns/name, HTTPRoute/ns/name#rule) and spec fields (the
// policies' own: timeout.http.requestTimeout, …).
type Setting struct {
	Path []string
	Spec map[string]any
	// Policies are the policies the golden IR lists on the route
	// (metadata.policies, Kind/namespace/name): the path carries a policy.
	Policies []string
}

// Golden reads the xdsIR of a golden output: for every route of an
// HTTPRoute or a GRPCRoute and every HTTP listener, the settings an Envoy proxy gets from
// the fields gepcheck reads back from xDS (docs/envoy-gateway.md), as
// Envoy Gateway v1.9.1's xDS translator writes them from the IR
// (internal/xds/translator): route timeout from
// traffic.timeout.http.requestTimeout unless the HTTPRoute sets its own
// (getEffectiveRequestTimeout); retry.numRetries from traffic.retry, 2 when
// the IR has a retry without it (retryDefaultNumRetries);
// retry.retryOn.httpStatusCodes where the IR has retryOn and the codes are
// not the default [503] (buildRetryPolicy); circuitBreaker.maxConnections
// (cluster.go; 1024, the CRD's default, where the IR's circuitBreaker has
// none: routeSpec); the exact origins of security.cors.allowOrigins; the
// connection.limit.value of HTTP, TCP and TLS listeners
// (ClientTrafficPolicy connection.connectionLimit). Rule names come from the HTTPRoutes the
// output lists (route names carry the rule's index). Durations are
// written canonically (Canonical). A route of several matches or hostnames
// is several settings of one path.
func Golden(name string, data []byte) ([]Setting, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not YAML: %v", name, err)
	}
	rules := map[string][]any{} // Kind/namespace/name → the route's rules
	for _, k := range [][2]string{{"httpRoutes", "HTTPRoute"}, {"grpcRoutes", "GRPCRoute"}} {
		for _, r := range list(doc[k[0]]) {
			md := obj(obj(r)["metadata"])
			rules[k[1]+"/"+str(md["namespace"])+"/"+str(md["name"])] = list(obj(obj(r)["spec"])["rules"])
		}
	}
	var out []Setting
	ir := obj(doc["xdsIR"])
	for _, gw := range slices.Sorted(maps.Keys(ir)) {
		for _, l := range list(obj(ir[gw])["tcp"]) {
			// A TCP or TLS listener has no routes gepcheck reads; its
			// connection limit is ClientTrafficPolicy's.
			lm := obj(l)
			parts := strings.Split(str(lm["name"]), "/")
			if v, ok := obj(obj(lm["connection"])["limit"])["value"]; ok && len(parts) == 3 {
				g := "Gateway/" + parts[0] + "/" + parts[1]
				out = append(out, Setting{Path: []string{g, g + "#" + parts[2]}, Spec: map[string]any{"connection": map[string]any{"connectionLimit": map[string]any{"value": num(v)}}}})
			}
		}
		for _, l := range list(obj(ir[gw])["http"]) {
			lm := obj(l)
			parts := strings.Split(str(lm["name"]), "/")
			if len(parts) != 3 {
				continue
			}
			g := "Gateway/" + parts[0] + "/" + parts[1]
			listener := g + "#" + parts[2]
			if v, ok := obj(obj(lm["connection"])["limit"])["value"]; ok {
				out = append(out, Setting{Path: []string{g, listener}, Spec: map[string]any{"connection": map[string]any{"connectionLimit": map[string]any{"value": num(v)}}}})
			}
			for _, r := range list(lm["routes"]) {
				rm := obj(r)
				md := obj(rm["metadata"])
				if str(md["kind"]) != "HTTPRoute" && str(md["kind"]) != "GRPCRoute" {
					continue
				}
				route := str(md["kind"]) + "/" + str(md["namespace"]) + "/" + str(md["name"])
				section := str(md["sectionName"])
				if section == "" {
					section = ruleName(rm, rules[route])
				}
				s := Setting{Path: []string{g, listener, route, route + "#" + section}, Spec: routeSpec(rm)}
				for _, p := range list(md["policies"]) {
					pm := obj(p)
					s.Policies = append(s.Policies, str(pm["kind"])+"/"+str(pm["namespace"])+"/"+str(pm["name"]))
				}
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// routeSpec is one IR route's settings, as its xDS route and cluster have them.
func routeSpec(rm map[string]any) map[string]any {
	spec := map[string]any{}
	traffic := obj(rm["traffic"])
	timeout := str(rm["timeout"]) // the HTTPRoute's own timeouts.request
	if timeout == "" {
		timeout = str(obj(obj(traffic["timeout"])["http"])["requestTimeout"])
	}
	if timeout != "" {
		spec["timeout"] = map[string]any{"http": map[string]any{"requestTimeout": Canonical(timeout)}}
	}
	if rt, ok := traffic["retry"].(map[string]any); ok {
		retry := map[string]any{"numRetries": float64(2)}
		if n, ok := rt["numRetries"]; ok {
			retry["numRetries"] = num(n)
		}
		if on, ok := rt["retryOn"].(map[string]any); ok {
			codes := list(on["httpStatusCodes"])
			if codes == nil {
				codes = []any{}
			}
			if !(len(codes) == 1 && num(codes[0]) == 503) {
				nums := make([]any, len(codes))
				for i, c := range codes {
					nums[i] = num(c)
				}
				retry["retryOn"] = map[string]any{"httpStatusCodes": nums}
			}
		}
		spec["retry"] = retry
	}
	if cb, ok := traffic["circuitBreaker"].(map[string]any); ok {
		// The golden output is of the objects as written (Go values, no
		// API server): stored, a policy with a circuitBreaker has
		// maxConnections 1024 where it sets none, the CRD's default
		// (api/v1alpha1/circuitbreaker_types.go, +kubebuilder:default),
		// which egctl applies as an API server does.
		n, ok := cb["maxConnections"]
		if !ok {
			n = float64(1024)
		}
		spec["circuitBreaker"] = map[string]any{"maxConnections": num(n)}
	}
	var origins []any
	for _, o := range list(obj(obj(rm["security"])["cors"])["allowOrigins"]) {
		if e, ok := obj(o)["exact"]; ok {
			origins = append(origins, e)
		}
	}
	if len(origins) > 0 {
		spec["cors"] = map[string]any{"allowOrigins": origins}
	}
	return spec
}

// ruleName is the name of the rule an IR route was built from: its name is
// KIND/namespace/name/rule/INDEX/….
func ruleName(rm map[string]any, rules []any) string {
	parts := strings.Split(str(rm["name"]), "/")
	if len(parts) < 5 || parts[3] != "rule" {
		return ""
	}
	var i int
	if _, err := fmt.Sscan(parts[4], &i); err != nil || i < 0 || i >= len(rules) {
		return ""
	}
	if n := str(obj(rules[i])["name"]); n != "" {
		return n
	}
	return fmt.Sprintf("rules[%d]", i) // an unnamed rule, as gepcheck names its section
}

// Canonical writes a duration as Go prints it (1m0s for 60s), so that the
// IR's metav1.Duration and xDS's seconds compare; a value that is not a
// duration is kept.
func Canonical(s string) string {
	d, err := time.ParseDuration(s)
	if err != nil {
		return s
	}
	return d.String()
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func list(v any) []any         { l, _ := v.([]any); return l }
func str(v any) string         { s, _ := v.(string); return s }

func num(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case int64:
		return float64(n)
	case int:
		return float64(n)
	}
	var f float64
	fmt.Sscan(fmt.Sprint(v), &f)
	return f
}
