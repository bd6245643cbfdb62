package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/impl/envoygateway"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/internal/realtest"
)

var updateImpl = flag.Bool("update-impl", false, "rewrite testdata/impl/ from explain --impl envoy-gateway")

// explain --impl envoy-gateway --policy on docs/examples/envoy-gateway-merge.yaml,
// against goldens read by hand: Envoy Gateway merges the rule policy
// pay-timeout onto the Gateway's gateway-defaults (docs/envoy-gateway.md,
// Findings, 2), so gateway-defaults' retry.numRetries is applied on the
// rule pay, where the reference (GEP-713, Merge strategy: the established
// Atomic policy is replaced) has no retry, and its timeout is not applied
// there (pay-timeout's 2s); on the rule browse both are applied on both
// sides. Needs egctl v1.9.1 (make egctl); -update-impl rewrites them.
func TestExplainImplPolicyEnvoyGateway(t *testing.T) {
	if bin, err := envoygateway.EgctlPath(envoygateway.Version, envoygateway.EgctlFast); err != nil || !fileExists(bin) {
		realtest.Missing(t, "egctl %s is not cached (run make egctl)", envoygateway.Version)
	}
	const input = "../../docs/examples/envoy-gateway-merge.yaml"
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"explain-policy-gateway-defaults.txt", []string{"--policy", "BackendTrafficPolicy/gateway-defaults", "-n", "shop"}},
		{"explain-policy-pay-timeout.txt", []string{"--policy", "BackendTrafficPolicy/shop/pay-timeout"}},
		{"explain-policy-gateway-defaults.json", []string{"--policy", "BackendTrafficPolicy/shop/gateway-defaults", "-o", "json"}},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"explain", "--impl", "envoy-gateway", "-f", input}, tc.args...)
		if code := run(args, strings.NewReader(""), &stdout, &stderr); code != exitcode.OK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		path := filepath.Join("testdata", "impl", tc.golden)
		if *updateImpl {
			if err := os.WriteFile(path, stdout.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if stdout.String() != string(want) {
			t.Errorf("%v: output differs from %s (go test -run %s -update-impl rewrites it):\n%s", args, path, t.Name(), stdout.String())
		}
	}
}
