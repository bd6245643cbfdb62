package contour

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Contour's clusters as its xDS server serves them (the shape of
// docs/contour-and-traefik.md's captures): one with an UpstreamTlsContext
// whose CA is inlined and whose SAN matcher is the policy's hostname, no
// SNI; one in plain text; one of a namespace the case does not own.
func TestReadClusters(t *testing.T) {
	ca := generators.BackendTLSCAs[0].Data["ca.crt"]
	tls := func(sni string) map[string]any {
		ctx := map[string]any{
			"commonTlsContext": map[string]any{"validationContext": map[string]any{
				"trustedCa":                 map[string]any{"inlineBytes": base64.StdEncoding.EncodeToString([]byte(ca))},
				"matchTypedSubjectAltNames": []any{map[string]any{"sanType": "DNS", "matcher": map[string]any{"exact": "b.example.com"}}},
			}},
		}
		if sni != "" {
			ctx["sni"] = sni
		}
		return map[string]any{"name": "envoy.transport_sockets.tls", "typedConfig": ctx}
	}
	cfg := map[string]any{"configs": []any{map[string]any{"dynamicActiveClusters": []any{
		map[string]any{"cluster": map[string]any{"name": "ns/svc/443/c64d4fa59a", "transportSocket": tls("")}},
		map[string]any{"cluster": map[string]any{"name": "ns/svc/8443/d0e1f2a3b4", "transportSocket": tls("b.example.com")}},
		map[string]any{"cluster": map[string]any{"name": "ns/svc/80/da39a3ee5e"}},
		map[string]any{"cluster": map[string]any{"name": "other/svc/443/c64d4fa59a", "transportSocket": tls("")}},
		// A name longer than 60 characters, shortened by hashing
		// (Contour's Hashname): the Service port is in altStatName.
		map[string]any{"cluster": map[string]any{"name": "gc-63cc6-69f448/backendt-69f448/443/0139c698ed",
			"altStatName": "gc-63cc6f-0-gateway-conformance-infra_backendtlspolicy-san-dns-test_443", "transportSocket": tls("")}},
	}}}}
	ports := map[string]map[string]string{"ns/svc": {"443": "https", "8443": "https-alt", "80": "http"}, "other/svc": {"443": "https"},
		"gc-63cc6f-0-gateway-conformance-infra/backendtlspolicy-san-dns-test": {"443": "btls"}}
	cas := map[string]string{"ns\x00" + strings.TrimSpace(ca): "ca-1"}
	o := &observe.Observation{}
	long := "gc-63cc6f-0-gateway-conformance-infra"
	cas[long+"\x00"+strings.TrimSpace(ca)] = "ca-2"
	readClusters(cfg, ports, cas, func(ns string) *observe.Observation {
		if ns == "ns" || ns == long {
			return o
		}
		return nil
	})
	ref := []any{map[string]any{"group": "", "kind": "ConfigMap", "name": "ca-1"}}
	want := []observe.Path{
		// No SNI: the hostname is not in effect as BackendTLSPolicy
		// defines it (it MUST be the SNI).
		{Path: []string{"Service/ns/svc", "Service/ns/svc#https"}, Spec: map[string]any{"validation": map[string]any{"caCertificateRefs": ref}}},
		{Path: []string{"Service/ns/svc", "Service/ns/svc#https-alt"}, Spec: map[string]any{"validation": map[string]any{"caCertificateRefs": ref, "hostname": "b.example.com"}}},
		{Path: []string{"Service/" + long + "/backendtlspolicy-san-dns-test", "Service/" + long + "/backendtlspolicy-san-dns-test#btls"},
			Spec: map[string]any{"validation": map[string]any{"caCertificateRefs": []any{map[string]any{"group": "", "kind": "ConfigMap", "name": "ca-2"}}}}},
	}
	if !reflect.DeepEqual(o.Effective, want) {
		t.Errorf("read %v\nwant %v", o.Effective, want)
	}
}

// Readable keeps what Contour's clusters are compared on: Core support.
func TestReadable(t *testing.T) {
	spec := map[string]any{"validation": map[string]any{"hostname": "h", "caCertificateRefs": []any{"x"},
		"subjectAltNames": []any{"y"}, "wellKnownCACertificates": "System"}, "options": map[string]any{"k": "v"}}
	want := map[string]any{"validation": map[string]any{"hostname": "h", "caCertificateRefs": []any{"x"}}}
	if got := Readable(spec); !reflect.DeepEqual(got, want) {
		t.Errorf("Readable = %v, want %v", got, want)
	}
}
