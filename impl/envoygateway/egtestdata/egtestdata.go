// Package egtestdata turns the inputs of Envoy Gateway's translator tests
// (internal/gatewayapi/testdata/*.in.yaml in its module) into Kubernetes
// manifests, and reads the effective settings of their golden outputs
// (*.out.yaml: the xdsIR Envoy Gateway's translator produced), the oracle
// of `simulate --impl envoy-gateway` (docs/envoy-gateway.md, Envoy
// Gateway's own test cases).
//
// An input is Envoy Gateway's `resources` form: one YAML object whose keys
// (gateways, httpRoutes, backendTrafficPolicies, gatewayClass, …) each hold
// an object or a list of objects, every object with its apiVersion and
// kind. The test harness supplies objects every input may refer to
// (internal/gatewayapi/translator_test.go, "Add common test fixtures"): a
// GatewayClass "envoy-gateway-class" of Envoy Gateway's controller when the
// input has none, and the Services and EndpointSlices fixtures lists, which
// Manifests adds where the input has no object of the same kind, namespace
// and name.
package egtestdata

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/simulator/topology"
)

// ClassName is the GatewayClass Envoy Gateway's translator tests run under
// (internal/gatewayapi/translator_test.go: GatewayClassName).
const ClassName = "envoy-gateway-class"

// ControllerName is Envoy Gateway's controller name, which the harness's
// GatewayClass carries.
const ControllerName = "gateway.envoyproxy.io/gatewayclass-controller"

// MaxObjects bounds the objects read from one input (docs/limits.md).
const MaxObjects = 10000

// notObjects are keys of the resources form that hold no Kubernetes object.
var notObjects = map[string]bool{"envoyProxyDefaultSpec": true}

// Manifests reads one input in the resources form and returns it as
// multi-document YAML, the objects in the order of the input's keys
// (sorted) and lists, a GatewayClass first when the input has none. An
// error names the key and item.
func Manifests(name string, data []byte) ([]byte, error) {
	var res map[string]any
	if err := yaml.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("%s: not YAML: %v", name, err)
	}
	var objs []map[string]any
	hasClass := false
	for _, key := range slices.Sorted(maps.Keys(res)) {
		if notObjects[key] {
			continue
		}
		var items []any
		switch v := res[key].(type) {
		case []any:
			items = v
		case map[string]any:
			items = []any{v}
		case nil:
			continue
		default:
			return nil, fmt.Errorf("%s: %s: want an object or a list of objects, got %T", name, key, v)
		}
		for i, it := range items {
			o, ok := it.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: %s[%d]: want an object, got %T", name, key, i, it)
			}
			if s, _ := o["apiVersion"].(string); s == "" {
				return nil, fmt.Errorf("%s: %s[%d]: no apiVersion", name, key, i)
			}
			k, _ := o["kind"].(string)
			if k == "" {
				return nil, fmt.Errorf("%s: %s[%d]: no kind", name, key, i)
			}
			if k == "GatewayClass" {
				hasClass = true
			}
			o = served(o, k)
			if len(objs) == MaxObjects {
				return nil, fmt.Errorf("%s: more than %d objects", name, MaxObjects)
			}
			objs = append(objs, o)
		}
	}
	objs = append(objs, fixtures(objs)...)
	if !hasClass {
		objs = append([]map[string]any{{
			"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass",
			"metadata": map[string]any{"name": ClassName},
			"spec":     map[string]any{"controllerName": ControllerName},
		}}, objs...)
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "# Envoy Gateway v1.9.1 translator test input %s, as manifests (hack/eg-testdata.sh)\n", name)
	for i, o := range objs {
		b, err := yaml.Marshal(o)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out.WriteString("---\n")
		}
		out.Write(b)
	}
	return out.Bytes(), nil
}

// served is o at a version Gateway API v1.6.3 serves, for a Gateway API
// kind written at one it no longer serves (GRPCRoute v1alpha2 in older
// inputs): its first standard version, else its first experimental one,
// as an API server with v1.6.3's CRDs would ask it to be written (the
// schemas of these kinds did not change between the versions the inputs
// use). Other objects are kept.
func served(o map[string]any, kind string) map[string]any {
	group, version, ok := strings.Cut(o["apiVersion"].(string), "/")
	if !ok {
		return o
	}
	s, known := topology.LookupServed(group, kind)
	if !known || s.Serves(version) || len(s.Versions()) == 0 {
		return o
	}
	o = maps.Clone(o)
	o["apiVersion"] = group + "/" + s.Versions()[0]
	return o
}

// fixtures are the harness's Services and EndpointSlices, as manifests:
// service-1 … service-4 in default (clusterIP 1.1.1.1; ports http 8080,
// https 8443, tcp 8163, udp 8162; endpoint 7.7.7.7), mirror-service in
// default (2.2.2.2; http 8080; endpoint 7.6.5.4) and otel-collector in
// monitoring (3.3.3.3; grpc 4317 with appProtocol grpc, zipkin 9411;
// endpoint 8.7.6.5). Those objs already hold are left out.
func fixtures(objs []map[string]any) []map[string]any {
	have := map[string]bool{}
	for _, o := range objs {
		md, _ := o["metadata"].(map[string]any)
		have[fmt.Sprint(o["kind"], "/", md["namespace"], "/", md["name"])] = true
	}
	type port struct {
		name     string
		number   int
		protocol string
		app      string
	}
	var out []map[string]any
	add := func(ns, name, ip, endpoint string, ports []port) {
		slice := name + "-endpointslice"
		if n, ok := strings.CutPrefix(name, "service-"); ok {
			slice = "endpointslice-" + n
		}
		var sp, ep []any
		for _, p := range ports {
			s := map[string]any{"name": p.name, "port": p.number, "targetPort": p.number, "protocol": p.protocol}
			if p.app != "" {
				s["appProtocol"] = p.app
			}
			sp = append(sp, s)
			ep = append(ep, map[string]any{"name": p.name, "port": p.number, "protocol": p.protocol})
		}
		if !have["Service/"+ns+"/"+name] {
			out = append(out, map[string]any{"apiVersion": "v1", "kind": "Service",
				"metadata": map[string]any{"namespace": ns, "name": name},
				"spec":     map[string]any{"clusterIP": ip, "ports": sp}})
		}
		if !have["EndpointSlice/"+ns+"/"+slice] {
			out = append(out, map[string]any{"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
				"metadata":    map[string]any{"namespace": ns, "name": slice, "labels": map[string]any{"kubernetes.io/service-name": name}},
				"addressType": "IPv4", "ports": ep,
				"endpoints": []any{map[string]any{"addresses": []any{endpoint}, "conditions": map[string]any{"ready": true}}}})
		}
	}
	for i := 1; i <= 4; i++ {
		add("default", fmt.Sprintf("service-%d", i), "1.1.1.1", "7.7.7.7", []port{{"http", 8080, "TCP", ""}, {"https", 8443, "TCP", ""}, {"tcp", 8163, "TCP", ""}, {"udp", 8162, "UDP", ""}})
	}
	add("default", "mirror-service", "2.2.2.2", "7.6.5.4", []port{{"http", 8080, "TCP", ""}})
	add("monitoring", "otel-collector", "3.3.3.3", "8.7.6.5", []port{{"grpc", 4317, "TCP", "grpc"}, {"zipkin", 9411, "TCP", ""}})
	return out
}
