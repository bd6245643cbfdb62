package envoygateway

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/suite/impl/internal/gatewayapi"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// egctl v1.9.1's xDS for a route to port 443 (https) of Service svc under a
// BackendTLSPolicy with hostname, a ConfigMap CA and two subject alt names
// (trimmed to what readBackendTLS reads), and a route to port 80 without
// TLS.
const backendTLSXDS = `{"xds": {"ns/gw": {"configs": [
 {"dynamicActiveClusters": [{"cluster": {"name": "httproute/ns/r/rule/0", "transportSocketMatches": [
  {"name": "httproute/ns/r/rule/0/tls/0", "transportSocket": {"typedConfig": {
   "sni": "port.example.com",
   "commonTlsContext": {"combinedValidationContext": {
    "defaultValidationContext": {"matchTypedSubjectAltNames": [{"matcher": {"exact": "a.example.com"}, "sanType": "DNS"}, {"matcher": {"exact": "spiffe://x/y"}, "sanType": "URI"}]},
    "validationContextSdsSecretConfig": {"name": "tls-port/ns-ca"}}}}}}]}}]},
 {"dynamicEndpointConfigs": [
  {"endpointConfig": {"clusterName": "httproute/ns/r/rule/0", "endpoints": [{
   "metadata": {"filterMetadata": {"envoy-gateway": {"resources": [{"kind": "Service", "name": "svc", "namespace": "ns", "sectionName": "443"}]}}},
   "lbEndpoints": [{"metadata": {"filterMetadata": {"envoy.transport_socket_match": {"name": "httproute/ns/r/rule/0/tls/0"}}}}]}]}},
  {"endpointConfig": {"clusterName": "httproute/ns/r/rule/1", "endpoints": [{
   "metadata": {"filterMetadata": {"envoy-gateway": {"resources": [{"kind": "Service", "name": "svc", "namespace": "ns", "sectionName": "80"}]}}},
   "lbEndpoints": [{}]}]}}]}]}}}`

func TestReadBackendTLS(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(backendTLSXDS), &doc); err != nil {
		t.Fatal(err)
	}
	var o observe.Observation
	ports := map[string]map[string]string{"ns/svc": {"443": "https", "80": "http"}}
	readBackendTLS(doc, ports, func(string) *observe.Observation { return &o })
	o.Normalize()
	got, _ := json.Marshal(o.Effective)
	want := `[{"path":["Service/ns/svc","Service/ns/svc#https"],"spec":{"validation":{"hostname":"port.example.com","subjectAltNames":[{"hostname":"a.example.com","type":"Hostname"},{"type":"URI","uri":"spiffe://x/y"}]}}}]`
	if string(got) != want {
		t.Errorf("effective:\n got %s\nwant %s", got, want)
	}

	// The ports compared are those the input routes send traffic to
	// through a Gateway of the input, whatever Envoy Gateway configured.
	route := func(name, gw string, ports ...float64) map[string]any {
		var rules []any
		for _, p := range ports {
			rules = append(rules, map[string]any{"backendRefs": []any{map[string]any{"name": "svc", "port": p}}})
		}
		return map[string]any{"kind": "HTTPRoute", "metadata": map[string]any{"name": name, "namespace": "ns"},
			"spec": map[string]any{"parentRefs": []any{map[string]any{"name": gw}}, "rules": rules}}
	}
	objects := []map[string]any{
		{"kind": "Gateway", "metadata": map[string]any{"name": "gw", "namespace": "ns"}},
		route("r", "gw", 443, 80), route("orphan", "no-such-gateway", 8443),
	}
	ports["ns/svc"]["8443"] = "https-alt"
	o.Reached = gatewayapi.ReachedPorts(objects, ports)
	o.Normalize()
	if r, _ := json.Marshal(o.Reached); string(r) != `["Service/ns/svc#http","Service/ns/svc#https"]` {
		t.Errorf("reached %s", r)
	}

	// A policy without status whose Service no route reaches has no place
	// to report; one on a reached port, or with status, has.
	policy := func(name, svc, section string, ancestors bool) *unstructured.Unstructured {
		tr := map[string]any{"kind": "Service", "name": svc}
		if section != "" {
			tr["sectionName"] = section
		}
		u := &unstructured.Unstructured{Object: map[string]any{"kind": "BackendTLSPolicy", "metadata": map[string]any{"name": name, "namespace": "ns"},
			"spec": map[string]any{"targetRefs": []any{tr}}}}
		if ancestors {
			u.Object["status"] = map[string]any{"ancestors": []any{map[string]any{}}}
		}
		return u
	}
	gatewayapi.MarkUnreported(&o, []*unstructured.Unstructured{
		policy("other-svc", "other", "", false), policy("unrouted-port", "svc", "grpc", false),
		policy("whole", "svc", "", false), policy("port", "svc", "https", false), policy("with-status", "other", "", true),
	})
	if r, _ := json.Marshal(o.Unreported); string(r) != `["BackendTLSPolicy/ns/other-svc","BackendTLSPolicy/ns/unrouted-port"]` {
		t.Errorf("unreported %s", r)
	}
}

// The system CAs read as wellKnownCACertificates System, and a hostname
// matched as the only subject alt name is no subjectAltNames (Envoy
// Gateway matches the hostname when a policy names none).
func TestBackendTLSSpecSystemCAs(t *testing.T) {
	tls := map[string]any{"sni": "h.example.com", "commonTlsContext": map[string]any{"combinedValidationContext": map[string]any{
		"defaultValidationContext":         map[string]any{"matchTypedSubjectAltNames": []any{map[string]any{"matcher": map[string]any{"exact": "h.example.com"}, "sanType": "DNS"}}},
		"validationContextSdsSecretConfig": map[string]any{"name": "system_ca_certificates"}}}}
	got, _ := json.Marshal(backendTLSSpec(tls))
	if want := `{"validation":{"hostname":"h.example.com","wellKnownCACertificates":"System"}}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
