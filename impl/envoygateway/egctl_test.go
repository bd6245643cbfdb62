package envoygateway

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/suite/observe"

	"github.com/gepcheck/gepcheck/generators"
)

// TestEnvoyGatewayEgctlBuildsAgree: the fast build of egctl (egctlPatches)
// prints exactly what the stock build prints — the same bytes for the
// same input, and the same error for input Envoy Gateway refuses — so a
// result of the fast build is Envoy Gateway's result (docs/envoy-gateway.md,
// "Two builds of egctl"). Run by make ci, which builds both.
func TestEnvoyGatewayEgctlBuildsAgree(t *testing.T) {
	stock, fast := cachedEgctl(t, EgctlStock), cachedEgctl(t, EgctlFast)

	// Scenarios of all three kinds, several documents of each CRD kind,
	// so the fast build reuses what it cached for most of them.
	const perKind = 40
	var cases []observe.Case
	for i := 0; i < 3*perKind; i++ {
		ns := fmt.Sprintf("agree-%d", i)
		gen := []func(string, int) *generators.Scenario{
			func(ns string, i int) *generators.Scenario { return BackendTrafficScenarios(ns, 4).Example(i) },
			func(ns string, i int) *generators.Scenario {
				return ClientTrafficScenarios(ns, 4).Example(i)
			},
			func(ns string, i int) *generators.Scenario {
				return SecurityScenarios(ns, 4).Example(i)
			},
		}[i%3]
		cases = append(cases, observe.Case{Name: ns, YAML: string(gen(ns, i).YAML())})
	}
	in, _, err := egctlInput(cases)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "120 generated scenarios", stock, fast, in, false)

	// Documents Envoy Gateway refuses, each after valid documents of its
	// kind: a CEL rule of Envoy Gateway's CRD, a schema bound, a CEL rule
	// of Gateway API's CRD.
	valid := cases[0].YAML
	for _, bad := range []struct{ name, doc string }{
		{"CEL rule: targetRefs kind", `apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: bad, namespace: agree-0}
spec:
  targetRefs: [{group: "", kind: Service, name: svc}]
`},
		{"CEL rule: fault injection", `apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: bad, namespace: agree-0}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  faultInjection: {}
`},
		{"schema: minimum", `apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: bad, namespace: agree-0}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  retry: {numRetries: -1}
`},
		{"Gateway API CEL rule: tls on HTTP", `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: bad, namespace: agree-0}
spec:
  gatewayClassName: eg
  listeners:
  - {name: http, port: 80, protocol: HTTP, tls: {mode: Terminate}}
`},
	} {
		in, _, err := egctlInput([]observe.Case{{Name: "agree-0", YAML: valid + "---\n" + bad.doc}})
		if err != nil {
			t.Fatal(err)
		}
		same(t, bad.name, stock, fast, in, true)
	}
}

// same runs both builds on in and fails unless they exit alike and print
// the same bytes on stdout and stderr; wantErr says which exit is expected.
func same(t *testing.T, what, stock, fast string, in []byte, wantErr bool) {
	t.Helper()
	run := func(bin string) (string, string, error) {
		cmd := exec.CommandContext(context.Background(), bin, "x", "translate", "--from", "gateway-api", "--to", "gateway-api,xds", "-f", "-")
		cmd.Stdin = bytes.NewReader(in)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	so, se, serr := run(stock)
	fo, fe, ferr := run(fast)
	if (serr != nil) != wantErr {
		t.Fatalf("%s: stock egctl exit %v, want error %v: %s", what, serr, wantErr, gotool.Tail(se, 1))
	}
	if fmt.Sprint(serr) != fmt.Sprint(ferr) || so != fo || se != fe {
		t.Fatalf("%s: the builds differ: exit %v / %v; stdout %d / %d bytes; stderr %q / %q", what, serr, ferr, len(so), len(fo), gotool.Tail(se, 1), gotool.Tail(fe, 1))
	}
	if wantErr {
		t.Logf("%s: both refuse: %s", what, strings.TrimSpace(gotool.Tail(se, 1)))
	} else {
		t.Logf("%s: %d bytes, identical", what, len(so))
	}
}
