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
