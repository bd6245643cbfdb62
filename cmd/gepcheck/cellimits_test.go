package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/internal/exitcode"
)

// celInput is Kuadrant RFC Example E2's pair of RateLimitPolicies
// (scenarios/kuadrant/e2-constraint-violated.yaml) with the gateway
// policy's overrides block conditioned on when, and rates limits in the
// route policy's limit x.
func celInput(when string, rates int) string {
	var r strings.Builder
	for i := range rates {
		fmt.Fprintf(&r, "{limit: %d, window: 1m}, ", 50+i)
	}
	return fmt.Sprintf(`apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: gw-policy, namespace: default, creationTimestamp: "2024-01-01T00:00:00Z"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  overrides:
    limits:
      x: {rates: [{limit: 10, window: 1m}]}
    strategy: merge
    when: %q
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: route-policy, namespace: default, creationTimestamp: "2024-01-01T00:01:00Z"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  limits:
    x: {rates: [%s]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: example}
spec: {controllerName: example.com/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: default}
spec:
  gatewayClassName: example
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: route, namespace: default}
spec:
  parentRefs: [{name: gw}]
  rules: [{name: rule-1, backendRefs: [{name: app, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: app, namespace: default}
`, when, strings.TrimSuffix(r.String(), ", "))
}

// Each CEL limit stops a condition with exit 2 and an error naming the
// file, the policy, the field and the flag; the same input with the limit
// raised runs, so it is the limit that stops it (docs/limits.md).
func TestCELLimits(t *testing.T) {
	nested, err := os.ReadFile("testdata/limits/cel-nested.yaml")
	if err != nil {
		t.Fatal(err)
	}
	all := "self.limits.x.rates.all(r, r.limit > 0)"
	for _, tc := range []struct {
		name   string
		input  string
		limit  []string // over the limit
		raised []string // the same input within it
		want   []string
	}{
		// The Kuadrant RFC's when conditions are CEL; .all() nested three
		// deep over lists of self never ended before the limits.
		{"estimated cost", string(nested), nil, []string{"--max-cel-cost", "1000000000000"},
			[]string{"<stdin>: document 1", "RateLimitPolicy/default/gw-policy", "spec.overrides.when", "estimated worst-case CEL cost", "--max-cel-cost"}},
		// 3,000 rates: the estimate (1,000 elements a list) is under
		// 8,000, the actual cost over it. With a wall-clock budget no
		// loaded machine reaches: at the default 100 ms, a busy machine
		// stopped the evaluation by its timeout before its cost reached
		// the limit, and the cost limit went unchecked. Now only the cost
		// limit can stop it; unenforced, the run ends exit 0.
		{"actual cost", celInput(all, 3000), []string{"--max-cel-cost", "8000", "--cel-timeout", "5m"}, nil,
			[]string{"<stdin>: document 1", "RateLimitPolicy/default/gw-policy", "spec.overrides.when", "actual CEL cost is over the limit of 8000", "--max-cel-cost"}},
		{"wall clock", celInput(all, 3000), []string{"--cel-timeout", "1ns"}, nil,
			[]string{"<stdin>: document 1", "spec.overrides.when", "took longer than the limit of 1ns", "--cel-timeout"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sim := func(extra []string) (int, string, string) {
				var stdout, stderr bytes.Buffer
				args := append([]string{"simulate", "-f", "-", "-o", "json"}, extra...)
				code := run(args, strings.NewReader(tc.input), &stdout, &stderr)
				return code, stdout.String(), stderr.String()
			}
			code, _, stderr := sim(tc.limit)
			if code != exitcode.BadInput {
				t.Fatalf("over the limit: exit %d, want %d; stderr:\n%s", code, exitcode.BadInput, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, stderr)
				}
			}
			// Raised, with a wall-clock budget no loaded machine reaches
			// (100 ms by default): it is the one limit that stops it.
			code, stdout, stderr := sim(append([]string{"--cel-timeout", "5m"}, tc.raised...))
			if code != exitcode.OK {
				t.Fatalf("limit raised: exit %d; stderr:\n%s", code, stderr)
			}
			// Within the limits the condition is evaluated: the route's
			// limits break the constraint (> 10), so gw-policy's override
			// is in effect (Kuadrant RFC, Example E2).
			if !strings.Contains(stdout, `"limits.x": "RateLimitPolicy/default/gw-policy"`) {
				t.Errorf("limit raised: gw-policy's override is not in effect:\n%.2000s", stdout)
			}
		})
	}
}
