package traefik

import (
	"reflect"
	"testing"

	"github.com/gepcheck/gepcheck/suite/observe"
)

// Traefik's dynamic configuration as gepcheck-traefik-config serves it
// (the shape captured by hand, docs/contour-and-traefik.md): the backend
// of rule 1 has a servers transport (serverName, a root CA), rule 0's is
// plain text.
func TestReadConfig(t *testing.T) {
	route := map[string]any{
		"metadata": map[string]any{"namespace": "ns", "name": "r"},
		"spec": map[string]any{
			"parentRefs": []any{map[string]any{"name": "gw"}},
			"rules": []any{
				map[string]any{"backendRefs": []any{map[string]any{"name": "svc", "port": int64(80)}}},
				map[string]any{"backendRefs": []any{map[string]any{"name": "svc", "port": int64(443)}}},
			},
		},
	}
	const b0 = "httproute-ns-r-gw-ns-gw-ep-ep80-0-25620bab8b496047872d-svc-ns-svc-0"
	const b1 = "httproute-ns-r-gw-ns-gw-ep-ep80-1-314b9e888ad88dd15cb0-svc-ns-svc-0"
	cfg := map[string]any{"http": map[string]any{
		"services": map[string]any{
			b0:                       map[string]any{"loadBalancer": map[string]any{"servers": []any{}}},
			b1:                       map[string]any{"loadBalancer": map[string]any{"serversTransport": b1 + "@kubernetesgateway"}},
			b1[:len(b1)-14] + "-wrr": map[string]any{"weighted": map[string]any{}},
		},
		"serversTransports": map[string]any{b1: map[string]any{"serverName": "b.example.com", "rootCAs": []any{"PEM\n"}}},
	}}
	ports := map[string]map[string]string{"ns/svc": {"80": "http", "443": "https"}}
	o := &observe.Observation{}
	readConfig(cfg, []map[string]any{route}, ports, map[string]string{"ns\x00PEM": "ca"}, func(ns string) *observe.Observation {
		if ns == "ns" {
			return o
		}
		return nil
	})
	want := []observe.Path{{Path: []string{"Service/ns/svc", "Service/ns/svc#https"}, Spec: map[string]any{"validation": map[string]any{
		"hostname": "b.example.com", "caCertificateRefs": []any{map[string]any{"group": "", "kind": "ConfigMap", "name": "ca"}}}}}}
	if !reflect.DeepEqual(o.Effective, want) {
		t.Errorf("read %v\nwant %v", o.Effective, want)
	}
}

// GATEWAY-API-033 (Gateway API v1, BackendTLSPolicyValidation.Hostname: "If
// SubjectAltNames are specified, Hostname can be used for certificate
// selection but MUST NOT be used for authentication"), judged on what
// readConfig reads: for a policy with hostname abc.example.com and the
// subjectAltNames of Gateway API v1.6.3's conformance test
// BackendTLSPolicySANValidation (san-dns-mismatch), Traefik v3.7.13's
// servers transport has serverName abc.example.com alone
// (loadServersTransport), which Go's TLS client verifies the certificate
// against: it disagrees with the reference on subjectAltNames. Without
// subjectAltNames it agrees (GATEWAY-API-032); a transport that skips
// verification (insecureSkipVerify) authenticates no name and disagrees
// with either.
func TestReadConfigHostnameNotAuthentication(t *testing.T) {
	route := map[string]any{
		"metadata": map[string]any{"namespace": "ns", "name": "r"},
		"spec": map[string]any{
			"parentRefs": []any{map[string]any{"name": "gw"}},
			"rules":      []any{map[string]any{"backendRefs": []any{map[string]any{"name": "svc", "port": int64(443)}}}},
		},
	}
	const b = "httproute-ns-r-gw-ns-gw-ep-ep80-0-314b9e888ad88dd15cb0-svc-ns-svc-0"
	read := func(st map[string]any) map[string]any {
		cfg := map[string]any{"http": map[string]any{
			"services":          map[string]any{b: map[string]any{"loadBalancer": map[string]any{"serversTransport": b + "@kubernetesgateway"}}},
			"serversTransports": map[string]any{b: st},
		}}
		o := &observe.Observation{}
		readConfig(cfg, []map[string]any{route}, map[string]map[string]string{"ns/svc": {"443": "https"}}, map[string]string{"ns\x00PEM": "ca"},
			func(string) *observe.Observation { return o })
		if len(o.Effective) != 1 {
			t.Fatalf("read %v, want one path", o.Effective)
		}
		return o.Effective[0].Spec
	}
	refs := []any{map[string]any{"group": "", "kind": "ConfigMap", "name": "ca"}}
	withSANs := Readable(map[string]any{"validation": map[string]any{"hostname": "abc.example.com", "caCertificateRefs": refs,
		"subjectAltNames": []any{map[string]any{"type": "Hostname", "hostname": "dce.example.com"}}}})
	noSANs := Readable(map[string]any{"validation": map[string]any{"hostname": "abc.example.com", "caCertificateRefs": refs}})
	traefik := read(map[string]any{"serverName": "abc.example.com", "rootCAs": []any{"PEM\n"}})
	if reflect.DeepEqual(traefik, withSANs) {
		t.Errorf("hostname used for authentication beside subjectAltNames reads as the policy: %v", traefik)
	}
	if !reflect.DeepEqual(traefik, noSANs) {
		t.Errorf("serverName for a policy without subjectAltNames:\n read %v\n want %v", traefik, noSANs)
	}
	skip := read(map[string]any{"serverName": "abc.example.com", "rootCAs": []any{"PEM\n"}, "insecureSkipVerify": true})
	if reflect.DeepEqual(skip, noSANs) || reflect.DeepEqual(skip, withSANs) {
		t.Errorf("insecureSkipVerify reads as an authenticated name: %v", skip)
	}
	uri := read(map[string]any{"serverName": "abc.example.com", "rootCAs": []any{"PEM\n"}, "peerCertURI": "spiffe://abc.example.com/test-identity"})
	if want := []any{map[string]any{"type": "Hostname", "hostname": "abc.example.com"}, map[string]any{"type": "URI", "uri": "spiffe://abc.example.com/test-identity"}}; !reflect.DeepEqual(uri["validation"].(map[string]any)["subjectAltNames"], want) {
		t.Errorf("peerCertURI: read %v, want subjectAltNames %v", uri, want)
	}
}
