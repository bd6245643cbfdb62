package envoygateway

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/internal/realtest"
	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/findings"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// cachedEgctl returns a build of egctl from gepcheck's cache, or skips:
// `make test` uses it when `make egctl` (part of `make ci`) has built it;
// in `make ci` a missing build fails the test (realtest.Missing).
func cachedEgctl(t testing.TB, build string) string {
	t.Helper()
	bin, err := EgctlPath(Version, build)
	if err == nil {
		_, err = os.Stat(bin)
	}
	if err != nil {
		realtest.Missing(t, "egctl %s (%s build) is not cached (run make egctl): %v", Version, build, err)
	}
	return bin
}

// A short differential run against Envoy Gateway's real translator: a
// batch of generated scenarios, one egctl process. Disagreements are
// findings, reported, not failures; the test fails only if the driver
// cannot observe (egctl fails, or a case gets no observation).
func TestEnvoyGatewayBatch(t *testing.T) {
	eg := &Translator{Egctl: cachedEgctl(t, EgctlFast)}
	var cases []observe.Case
	for i := 0; i < 20; i++ {
		s := BackendTrafficScenarios("case-"+string(rune('a'+i)), 4).Example(i)
		cases = append(cases, observe.Case{Name: s.Namespaces[0], YAML: string(s.YAML()), Profiles: []string{"envoy-gateway-backendtrafficpolicy"}})
	}
	got, err := eg.Observe(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	want := observe.Reference(cases, eg.Capabilities())
	agree := 0
	for i, c := range cases {
		if got[i].Error != "" {
			t.Errorf("%s: %s", c.Name, got[i].Error)
			continue
		}
		if len(got[i].Effective) == 0 {
			t.Errorf("%s: Envoy Gateway realized no route: the xDS was not read", c.Name)
		}
		if d := compare.Strings(compare.Diff(want[i], got[i], eg.Capabilities())); len(d) > 0 {
			t.Logf("finding in %s:\n  %s", c.Name, strings.Join(d, "\n  "))
			continue
		}
		agree++
	}
	t.Logf("Envoy Gateway %s agrees with the reference on %d of %d cases", Version, agree, len(cases))
}

// A broken egctl is reported per case, never as a pass.
func TestEnvoyGatewayBrokenBinary(t *testing.T) {
	eg := &Translator{Egctl: "/bin/false"}
	s := BackendTrafficScenarios("case-x", 2).Example(1)
	obs, err := eg.Observe(context.Background(), []observe.Case{{Name: "x", YAML: string(s.YAML())}, {Name: "y", YAML: string(s.InNamespace("case-y").YAML())}})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		if !strings.Contains(o.Error, "egctl failed") {
			t.Errorf("%s: error %q, want egctl failed", o.Name, o.Error)
		}
	}
}

// BenchmarkEnvoyGatewayThroughput measures scenarios per second through
// both builds of egctl, batched (one process for many scenarios) and one
// process per scenario, in one run (docs/performance.md).
func BenchmarkEnvoyGatewayThroughput(b *testing.B) {
	cases := func(n int) []observe.Case {
		var cs []observe.Case
		for i := 0; i < n; i++ {
			s := BackendTrafficScenarios(fmt.Sprintf("bench-%d", i), 4).Example(i)
			cs = append(cs, observe.Case{Name: s.Namespaces[0], YAML: string(s.YAML())})
		}
		return cs
	}
	for _, build := range EgctlBuilds {
		for _, bc := range []struct {
			name       string
			n, perCall int
		}{{"batched-100", 100, 100}, {"batched-25", 100, 25}, {"one-per-process", 10, 1}} {
			b.Run(build+"/"+bc.name, func(b *testing.B) {
				eg := &Translator{Egctl: cachedEgctl(b, build)}
				cs := cases(bc.n)
				b.ResetTimer()
				for it := 0; it < b.N; it++ {
					for start := 0; start < len(cs); start += bc.perCall {
						obs, err := eg.Observe(context.Background(), cs[start:min(len(cs), start+bc.perCall)])
						if err != nil || obs[0].Error != "" {
							b.Fatalf("%v %s", err, obs[0].Error)
						}
					}
				}
				b.ReportMetric(float64(bc.n*b.N)/b.Elapsed().Seconds(), "scenarios/s")
			})
		}
	}
}

// The kept findings still show exactly the differences they record with
// the pinned Envoy Gateway version (scenarios/findings/envoy-gateway/,
// docs/envoy-gateway.md; findings.Verify, as gepcheck findings verify), but those
// found in a cluster (cluster-*.yaml: what its controller writes to an API
// server another implementation writes to too), which make ci's
// cluster-test reproduces there.
func TestEnvoyGatewayFindingsReproduce(t *testing.T) {
	eg := &Translator{Egctl: cachedEgctl(t, EgctlFast)}
	files, _ := filepath.Glob("../../scenarios/findings/envoy-gateway/*.yaml")
	if len(files) == 0 {
		t.Fatal("no findings kept")
	}
	compared := 0
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "cluster-") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c := observe.Case{Name: f, YAML: string(data)}
		want := observe.Reference([]observe.Case{c}, eg.Capabilities())
		got, err := eg.Observe(context.Background(), []observe.Case{c})
		if err != nil || got[0].Error != "" {
			t.Fatalf("%s: %v %s", f, err, got[0].Error)
		}
		n, err := findings.Verify(f, compare.Diff(want[0], got[0], eg.Capabilities()))
		if err != nil {
			t.Errorf("%s, with Envoy Gateway %s: %v", f, Version, err)
		}
		compared += n
	}
	if compared == 0 {
		t.Fatal("no recorded difference compared")
	}
	t.Logf("%d recorded differences reproduce exactly", compared)
}

// An API server fills in CRD defaults the driver does not read back
// (circuitBreaker.maxPendingRequests: 1024, …): the expectation keeps only
// Fields.
func TestReadable(t *testing.T) {
	spec := map[string]any{
		"circuitBreaker": map[string]any{"maxConnections": 100.0, "maxPendingRequests": 1024.0},
		"retry":          map[string]any{"numRetries": 2.0, "perRetry": map[string]any{"timeout": "1s"}},
		"loadBalancer":   map[string]any{"type": "Random"},
		"cors":           map[string]any{"allowOrigins": []any{"https://a.example.com"}},
		"timeout":        map[string]any{"tcp": map[string]any{"connectTimeout": "10s"}},
	}
	want := map[string]any{
		"circuitBreaker": map[string]any{"maxConnections": 100.0},
		"retry":          map[string]any{"numRetries": 2.0},
		"cors":           map[string]any{"allowOrigins": []any{"https://a.example.com"}},
	}
	if got := Readable(spec); !reflect.DeepEqual(got, want) {
		t.Errorf("Readable = %v, want %v", got, want)
	}
	if got := Readable(nil); len(got) != 0 {
		t.Errorf("Readable(nil) = %v, want empty", got)
	}
	// A retryOn without codes shows in xDS as no retriable status codes,
	// as an empty list does.
	on := map[string]any{"retry": map[string]any{"numRetries": 2.0, "retryOn": map[string]any{}}}
	want = map[string]any{"retry": map[string]any{"numRetries": 2.0, "retryOn": map[string]any{"httpStatusCodes": []any{}}}}
	if got := Readable(on); !reflect.DeepEqual(got, want) {
		t.Errorf("Readable(%v) = %v, want %v", on, got, want)
	}
	if _, changed := on["retry"].(map[string]any)["retryOn"].(map[string]any)["httpStatusCodes"]; changed {
		t.Error("Readable changed its argument")
	}
	// A BackendTLSPolicy naming its hostname as its only subjectAltName
	// reads as one naming none (Envoy Gateway checks the hostname then);
	// another SAN stays.
	tls := func(san string) map[string]any {
		return map[string]any{"validation": map[string]any{"hostname": "a.example.com", "subjectAltNames": []any{map[string]any{"type": "Hostname", "hostname": san}}}}
	}
	if got := Readable(tls("a.example.com")); !reflect.DeepEqual(got, map[string]any{"validation": map[string]any{"hostname": "a.example.com"}}) {
		t.Errorf("Readable(SAN = hostname) = %v", got)
	}
	if in := tls("b.example.com"); !reflect.DeepEqual(Readable(in), in) {
		t.Errorf("Readable(SAN != hostname) = %v, want it whole", Readable(in))
	}
}

// TestReadRetryStatusCodes: Envoy Gateway writes retriableStatusCodes
// [503] for a retry without retryOn (internal/xds/translator, route.go:
// retryDefaultRetriableStatusCode), none for a retryOn with no codes, and
// the codes given otherwise.
func TestReadRetryStatusCodes(t *testing.T) {
	route := func(rule string, retry map[string]any) any {
		return map[string]any{
			"metadata": map[string]any{"filterMetadata": map[string]any{"envoy-gateway": map[string]any{"resources": []any{
				map[string]any{"kind": "HTTPRoute", "namespace": "ns", "name": "r", "sectionName": rule}}}}},
			"route": map[string]any{"cluster": "c", "retryPolicy": retry},
		}
	}
	doc := map[string]any{"xds": map[string]any{"ns/gw": map[string]any{"configs": []any{
		map[string]any{"dynamicRouteConfigs": []any{map[string]any{"routeConfig": map[string]any{
			"name": "ns/gw/http",
			"virtualHosts": []any{map[string]any{"routes": []any{
				route("unset", map[string]any{"numRetries": 2.0, "retriableStatusCodes": []any{503.0}}),
				route("empty", map[string]any{"numRetries": 2.0}),
				route("set", map[string]any{"numRetries": 1.0, "retriableStatusCodes": []any{502.0, 504.0}}),
			}}},
		}}}},
	}}}}
	o := &observe.Observation{}
	ReadXDS(doc, nil, func(string) *observe.Observation { return o })
	want := map[string]any{
		"unset": map[string]any{"retry": map[string]any{"numRetries": 2.0}},
		"empty": map[string]any{"retry": map[string]any{"numRetries": 2.0, "retryOn": map[string]any{"httpStatusCodes": []any{}}}},
		"set":   map[string]any{"retry": map[string]any{"numRetries": 1.0, "retryOn": map[string]any{"httpStatusCodes": []any{502.0, 504.0}}}},
	}
	if len(o.Effective) != len(want) {
		t.Fatalf("%d paths read, want %d", len(o.Effective), len(want))
	}
	for _, p := range o.Effective {
		rule := strings.TrimPrefix(p.Path[3], "HTTPRoute/ns/r#")
		if !reflect.DeepEqual(p.Spec, want[rule]) {
			t.Errorf("rule %s: read %v, want %v", rule, p.Spec, want[rule])
		}
	}
}

// TestEgctlInputDefaultNamespace: objects written without a namespace are
// in default, as kubectl applies them; egctl is told so and the case is
// found by it (a scenario without namespaces got no observation).
func TestEgctlInputDefaultNamespace(t *testing.T) {
	yaml := `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw}
spec:
  gatewayClassName: eg
  listeners: [{name: http, port: 80, protocol: HTTP}]
`
	in, caseOf, err := egctlInput([]observe.Case{{Name: "c", YAML: yaml}})
	if err != nil {
		t.Fatal(err)
	}
	if i, ok := caseOf["default"]; !ok || i != 0 {
		t.Errorf("namespace default is not case 0's: %v", caseOf)
	}
	if strings.Count(string(in), "namespace: default") != 1 {
		t.Errorf("the Gateway (only) should be sent in namespace default:\n%s", in)
	}
}

// TestCatalogue: the scenarios in Envoy Gateway's kinds
// (scenarios/envoy-gateway/) hold in the reference engine under the
// profiles this plug-in registers, at every step; TestEnvoyGateway…
// and cluster-test run them against Envoy Gateway itself.
func TestCatalogue(t *testing.T) {
	// scenarios/stored/envoy-gateway: Envoy Gateway's CRDs as the API
	// server applies them (docs/profiles.md, What is stored).
	files, err := scenarios.Files([]string{"../../scenarios/envoy-gateway", "../../scenarios/stored/envoy-gateway"})
	if err != nil || len(files) == 0 {
		t.Fatalf("no catalogue: %v", err)
	}
	for _, f := range files {
		diffs, err := scenarios.Check(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, d := range diffs {
			t.Errorf("%s: %s", f, d)
		}
	}
}

// Envoy Gateway before v1.3 names no rule in a route's metadata (egctl
// v1.2.4's output, trimmed): the rule is the index in the route's name, and
// its name is read from the HTTPRoute egctl prints.
func TestReadRoutesRuleIndex(t *testing.T) {
	doc := map[string]any{
		"httpRoutes": []any{map[string]any{
			"metadata": map[string]any{"name": "route-1", "namespace": "case-x"},
			"spec":     map[string]any{"rules": []any{map[string]any{"name": "first"}, map[string]any{"name": "second"}}},
		}},
		"xds": map[string]any{"case-x/gw": map[string]any{"configs": []any{map[string]any{
			"dynamicRouteConfigs": []any{map[string]any{"routeConfig": map[string]any{
				"name": "case-x/gw/http",
				"virtualHosts": []any{map[string]any{"routes": []any{map[string]any{
					"name":     "httproute/case-x/route-1/rule/1/match/-1/*",
					"metadata": map[string]any{"filterMetadata": map[string]any{"envoy-gateway": map[string]any{"resources": []any{map[string]any{"kind": "HTTPRoute", "name": "route-1", "namespace": "case-x"}}}}},
					"route":    map[string]any{"timeout": "15s"},
				}}}},
			}}},
		}}}},
	}
	var o observe.Observation
	readRoutes(doc, func(string) *observe.Observation { return &o })
	want := "Gateway/case-x/gw Gateway/case-x/gw#http HTTPRoute/case-x/route-1 HTTPRoute/case-x/route-1#second"
	if len(o.Effective) != 1 || strings.Join(o.Effective[0].Path, " ") != want {
		t.Fatalf("read %v, want one path %s", o.Effective, want)
	}
}

// egctl before v1.3 attaches no route to a listener of a namespace it was
// not given: the input declares each namespace the cases use, once.
func TestEgctlInputDeclaresNamespaces(t *testing.T) {
	in, _, err := egctlInput([]observe.Case{
		{Name: "a", YAML: "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"},
		{Name: "b", YAML: "apiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: b}\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for ns, n := range map[string]int{"default": 1, "b": 1} {
		if got := strings.Count(string(in), "kind: Namespace\nmetadata:\n  name: "+ns+"\n"); got != n {
			t.Errorf("Namespace %s declared %d times in:\n%s", ns, got, in)
		}
	}
}

// egctl translates the Gateways of one GatewayClass (the last given): two
// cases naming different classes are not one batch (Observe bisects it),
// or the first case's Gateways would go untranslated and its policies
// unreported, as a kept finding batched with Envoy Gateway's own once
// showed (docs/envoy-gateway.md).
func TestEgctlInputOneClass(t *testing.T) {
	class := func(ns, name string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: " + name + "}\nspec: {controllerName: x}\n---\n" +
			"apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: " + ns + "}\n"
	}
	if _, _, err := egctlInput([]observe.Case{{Name: "a", YAML: class("a", "eg")}, {Name: "b", YAML: class("b", "eg")}}); err != nil {
		t.Errorf("two cases of one class: %v", err)
	}
	_, _, err := egctlInput([]observe.Case{{Name: "a", YAML: class("a", "example")}, {Name: "b", YAML: class("b", "eg")}})
	if err == nil || !strings.Contains(err.Error(), "GatewayClasses example and eg") {
		t.Errorf("two cases of two classes: %v, want an error naming both", err)
	}
}

// A case that names Envoy Gateway's controller in one class, as a cluster
// read as it is does, leaves another controller's class out of egctl's
// input: egctl translates the Gateways of one class (the last given), and
// an empty answer came back from a cluster with two (docs/cluster.md).
func TestEgctlInputOtherControllersClass(t *testing.T) {
	yaml := "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec: {controllerName: " + ControllerName + "}\n---\n" +
		"apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: example}\nspec: {controllerName: example.com/gateway-controller}\n"
	in, _, err := egctlInput([]observe.Case{{Name: "cluster", YAML: yaml}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(in), "name: eg\n") || strings.Contains(string(in), "name: example\n") {
		t.Errorf("egctl's input, want class eg and not example:\n%s", in)
	}
}
