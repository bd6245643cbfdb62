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
		// defines it (it MUST be the SNI). The one DNS matcher is the
		// hostname authenticated, no subjectAltNames (Readable).
		{Path: []string{"Service/ns/svc", "Service/ns/svc#https"}, Spec: map[string]any{"validation": map[string]any{"caCertificateRefs": ref}}},
		{Path: []string{"Service/ns/svc", "Service/ns/svc#https-alt"}, Spec: map[string]any{"validation": map[string]any{"caCertificateRefs": ref, "hostname": "b.example.com"}}},
		{Path: []string{"Service/" + long + "/backendtlspolicy-san-dns-test", "Service/" + long + "/backendtlspolicy-san-dns-test#btls"},
			Spec: map[string]any{"validation": map[string]any{"caCertificateRefs": []any{map[string]any{"group": "", "kind": "ConfigMap", "name": "ca-2"}}}}},
	}
	if !reflect.DeepEqual(o.Effective, want) {
		t.Errorf("read %v\nwant %v", o.Effective, want)
	}
}

// Readable keeps what Contour's clusters are compared on: Core support and
// subjectAltNames, unless they are the hostname alone (Gateway API v1,
// BackendTLSPolicyValidation.Hostname: the hostname is authenticated then,
// as without subjectAltNames).
func TestReadable(t *testing.T) {
	san := map[string]any{"type": "URI", "uri": "spiffe://y/z"}
	spec := map[string]any{"validation": map[string]any{"hostname": "h", "caCertificateRefs": []any{"x"},
		"subjectAltNames": []any{san}, "wellKnownCACertificates": "System"}, "options": map[string]any{"k": "v"}}
	want := map[string]any{"validation": map[string]any{"hostname": "h", "caCertificateRefs": []any{"x"}, "subjectAltNames": []any{san}}}
	if got := Readable(spec); !reflect.DeepEqual(got, want) {
		t.Errorf("Readable = %v, want %v", got, want)
	}
	spec = map[string]any{"validation": map[string]any{"hostname": "h", "caCertificateRefs": []any{"x"},
		"subjectAltNames": []any{map[string]any{"type": "Hostname", "hostname": "h"}}}}
	want = map[string]any{"validation": map[string]any{"hostname": "h", "caCertificateRefs": []any{"x"}}}
	if got := Readable(spec); !reflect.DeepEqual(got, want) {
		t.Errorf("Readable with the hostname as its one subjectAltName = %v, want %v", got, want)
	}
}

// GATEWAY-API-033 (Gateway API v1, BackendTLSPolicyValidation.Hostname: "If
// SubjectAltNames are specified, Hostname can be used for certificate
// selection but MUST NOT be used for authentication"), judged on what
// readClusters reads against the reference's side (Readable, less the
// hostname: Contour sends no SNI, kept finding
// effective-setting-validation). The policies are those of Gateway API
// v1.6.3's conformance test BackendTLSPolicySANValidation (hostname
// abc.example.com; multiple-sans, san-dns-mismatch). Contour v1.33.8's
// cluster matches the hostname alone (SubjectNames: the hostname,
// internal/dag/gatewayapi_processor.go; one DNS exact matcher each,
// internal/envoy/v3/auth.go): it disagrees on subjectAltNames with each
// policy that has them, and agrees with one without (GATEWAY-API-032). A
// cluster matching the policy's subjectAltNames, a URI and a DNS
// matcher, agrees.
func TestReadClustersHostnameNotAuthentication(t *testing.T) {
	ca := generators.BackendTLSCAs[0].Data["ca.crt"]
	refs := []any{map[string]any{"group": "", "kind": "ConfigMap", "name": "ca-1"}}
	read := func(matchers ...[2]string) map[string]any {
		var ms []any
		for _, m := range matchers {
			ms = append(ms, map[string]any{"sanType": m[0], "matcher": map[string]any{"exact": m[1]}})
		}
		cfg := map[string]any{"configs": []any{map[string]any{"dynamicActiveClusters": []any{
			map[string]any{"cluster": map[string]any{"name": "ns/svc/443/c64d4fa59a", "transportSocket": map[string]any{
				"name": "envoy.transport_sockets.tls",
				"typedConfig": map[string]any{"commonTlsContext": map[string]any{"validationContext": map[string]any{
					"trustedCa":                 map[string]any{"inlineBytes": base64.StdEncoding.EncodeToString([]byte(ca))},
					"matchTypedSubjectAltNames": ms,
				}}}}}}}}}}
		o := &observe.Observation{}
		readClusters(cfg, map[string]map[string]string{"ns/svc": {"443": "https"}}, map[string]string{"ns\x00" + strings.TrimSpace(ca): "ca-1"},
			func(string) *observe.Observation { return o })
		if len(o.Effective) != 1 {
			t.Fatalf("read %v, want one path", o.Effective)
		}
		return o.Effective[0].Spec
	}
	want := func(sans ...any) map[string]any {
		v := map[string]any{"hostname": "abc.example.com", "caCertificateRefs": refs}
		if len(sans) > 0 {
			v["subjectAltNames"] = sans
		}
		r := Readable(map[string]any{"validation": v})
		delete(r["validation"].(map[string]any), "hostname")
		return r
	}
	uri := map[string]any{"type": "URI", "uri": "spiffe://abc.example.com/test-identity"}
	multiple := want(uri, map[string]any{"type": "Hostname", "hostname": "abc.example.com"})
	mismatch := want(map[string]any{"type": "Hostname", "hostname": "dce.example.com"})
	contour := read([2]string{"DNS", "abc.example.com"})
	for name, w := range map[string]map[string]any{"multiple-sans": multiple, "san-dns-mismatch": mismatch} {
		if reflect.DeepEqual(contour, w) {
			t.Errorf("%s: the hostname authenticated beside subjectAltNames reads as the policy: %v", name, contour)
		}
	}
	if noSANs := want(); !reflect.DeepEqual(contour, noSANs) {
		t.Errorf("the hostname matched for a policy without subjectAltNames:\n read %v\n want %v", contour, noSANs)
	}
	if got := read([2]string{"URI", uri["uri"].(string)}, [2]string{"DNS", "abc.example.com"}); !reflect.DeepEqual(got, multiple) {
		t.Errorf("the policy's subjectAltNames matched:\n read %v\n want %v", got, multiple)
	}
	if got := read([2]string{"DNS", "dce.example.com"}, [2]string{"DNS", "abc.example.com"}); reflect.DeepEqual(got, mismatch) || reflect.DeepEqual(got, want()) {
		t.Errorf("the hostname matched beside a subjectAltName reads as the policy: %v", got)
	}
}
