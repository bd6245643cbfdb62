package envoygateway

import (
	"encoding/json"
	"testing"

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
