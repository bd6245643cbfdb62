package simulator

import (
	"errors"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// hierarchyProfile is a policy kind that targets every level of Gateway API
// v1.6's hierarchy and augments route rules (Patch defaults, so that what
// each level contributes shows in the effective spec), with label-selector
// targets in spec.targetSelectors (profile.TargetSelectors).
const hierarchyProfile = `apiVersion: gepcheck.dev/v1alpha1
kind: PolicyProfile
metadata: {name: hierarchy}
spec:
  policy: {group: example.com, kind: TestPolicy}
  targets:
  - {group: gateway.networking.k8s.io, kind: Gateway, sectionName: Optional}
  - {group: gateway.networking.k8s.io, kind: ListenerSet, sectionName: Optional}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, sectionName: Optional}
  - {group: gateway.networking.k8s.io, kind: GRPCRoute, sectionName: Optional}
  - {group: gateway.networking.k8s.io, kind: TCPRoute, sectionName: Optional}
  effectiveTargets:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, section: true}
  - {group: gateway.networking.k8s.io, kind: GRPCRoute, section: true}
  - {group: gateway.networking.k8s.io, kind: TCPRoute, section: true}
  mergeStrategies: [PatchDefaults]
  targetSelectors: {field: targetSelectors}
`

const listenerSetObjects = `---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: app}
spec:
  gatewayClassName: c
  allowedListeners: {namespaces: {from: Same}}
  listeners:
  - {name: http, port: 80, protocol: HTTP}
  - {name: tcp, port: 9000, protocol: TCP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: team, namespace: app}
spec:
  parentRef: {name: gw}
  listeners:
  - {name: http, port: 8080, protocol: HTTP}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: on-set, namespace: app, labels: {tier: gold}}
spec:
  parentRefs: [{kind: ListenerSet, name: team, sectionName: http}]
  rules: [{name: main}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: on-gw, namespace: app}
spec:
  parentRefs: [{name: gw, sectionName: http}]
  rules: [{name: main}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: grpc, namespace: app, labels: {tier: gold}}
spec:
  parentRefs: [{name: gw}]
  rules: [{name: main}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: TCPRoute
metadata: {name: tcp, namespace: app, labels: {tier: silver}}
spec:
  parentRefs: [{name: gw, sectionName: tcp}]
  rules: [{backendRefs: []}]
`

func testPolicy(name, targets, spec string) string {
	return "---\napiVersion: example.com/v1\nkind: TestPolicy\nmetadata: {name: " + name + ", namespace: app}\nspec:\n" + targets + "\n  " + spec + "\n"
}

// TestListenerSetPaths: the path of a route attached to a ListenerSet runs
// Gateway > ListenerSet > listener > route > rule (GEP-1713, Policy
// Attachment: "a ListenerSet can inherit policy from a Gateway"); a policy
// on the ListenerSet, or on one of its listeners, reaches its routes only,
// never the Gateway's own listeners ("Policies that attach to a
// ListenerSet apply to all listeners defined in that resource, but do not
// impact listeners in the parent Gateway"), even a Gateway listener of the
// same name; a policy on the Gateway's listener "http" does not reach the
// ListenerSet's listener "http" (Gateway Parents and sectionName).
func TestListenerSetPaths(t *testing.T) {
	in := hierarchyProfile + listenerSetObjects +
		testPolicy("on-gateway", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]", "a: gateway") +
		testPolicy("on-gateway-http", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: http}]", "b: gateway-http") +
		testPolicy("on-set", "  targetRefs: [{group: gateway.networking.k8s.io, kind: ListenerSet, name: team}]", "c: set") +
		testPolicy("on-set-http", "  targetRefs: [{group: gateway.networking.k8s.io, kind: ListenerSet, name: team, sectionName: http}]", "d: set-http")
	out := simulate(t, in, Options{})
	checkEffective(t, out, `{"a":"gateway","c":"set","d":"set-http"}`, nil,
		"Gateway/app/gw", "ListenerSet/app/team", "ListenerSet/app/team#http", "HTTPRoute/app/on-set", "HTTPRoute/app/on-set#main")
	checkEffective(t, out, `{"a":"gateway","b":"gateway-http"}`, nil,
		"Gateway/app/gw", "Gateway/app/gw#http", "HTTPRoute/app/on-gw", "HTTPRoute/app/on-gw#main")
	// GRPCRoute and TCPRoute rules are paths of their own.
	checkEffective(t, out, `{"a":"gateway","b":"gateway-http"}`, nil,
		"Gateway/app/gw", "Gateway/app/gw#http", "GRPCRoute/app/grpc", "GRPCRoute/app/grpc#main")
	checkEffective(t, out, `{"a":"gateway"}`, nil,
		"Gateway/app/gw", "Gateway/app/gw#tcp", "TCPRoute/app/tcp", "TCPRoute/app/tcp#rules[0]")
	checkCondition(t, out, "TestPolicy/app/on-set", "", engine.TypeAccepted, "True", engine.ReasonAccepted)
	checkCondition(t, out, "TestPolicy/app/on-set-http", "", engine.TypeAccepted, "True", engine.ReasonAccepted)
}

// TestTargetSelectors: label-selector targets are targets (Envoy Gateway
// v1.9.1, TargetSelector; the direction of GEP-3779, Label Selectors):
// matchLabels and matchExpressions select objects of their kind in the
// policy's namespace, and a policy whose selectors select nothing has no
// target.
func TestTargetSelectors(t *testing.T) {
	in := hierarchyProfile + listenerSetObjects +
		testPolicy("gold-routes", "  targetSelectors: [{kind: HTTPRoute, matchLabels: {tier: gold}}, {kind: GRPCRoute, matchExpressions: [{key: tier, operator: In, values: [gold, silver]}]}]", "x: gold") +
		testPolicy("not-gold", "  targetSelectors: [{kind: TCPRoute, matchExpressions: [{key: tier, operator: NotIn, values: [gold]}]}]", "w: not-gold") +
		testPolicy("none", "  targetSelectors: [{kind: HTTPRoute, matchLabels: {tier: bronze}}]", "z: none")
	m := loadYAML(t, in, Options{})
	out := m.Run(engine.StickyOverrides, nil)
	checkEffective(t, out, `{"x":"gold"}`, map[string]string{"x": "TestPolicy/app/gold-routes"},
		"Gateway/app/gw", "ListenerSet/app/team", "ListenerSet/app/team#http", "HTTPRoute/app/on-set", "HTTPRoute/app/on-set#main")
	checkEffective(t, out, `{"x":"gold"}`, nil,
		"Gateway/app/gw", "Gateway/app/gw#http", "GRPCRoute/app/grpc", "GRPCRoute/app/grpc#main")
	checkEffective(t, out, `{"w":"not-gold"}`, nil,
		"Gateway/app/gw", "Gateway/app/gw#tcp", "TCPRoute/app/tcp", "TCPRoute/app/tcp#rules[0]")
	for _, p := range pathsOf(out) {
		if strings.Contains(p, "HTTPRoute/app/on-gw") {
			t.Errorf("the unlabeled HTTPRoute on-gw has a path: %s", p)
		}
	}
	checkCondition(t, out, "TestPolicy/app/none", "", engine.TypeAccepted, "False", engine.ReasonTargetNotFound, "select no object")
	if !strings.Contains(strings.Join(m.Warnings, "\n"), "TestPolicy/app/none: spec.targetSelectors select no object") {
		t.Errorf("no warning for the selector that selects nothing: %q", m.Warnings)
	}
	// Two policies that select nothing, in either document order: the same
	// warnings in the same order.
	none2 := testPolicy("none-2", "  targetSelectors: [{kind: TCPRoute, matchLabels: {tier: bronze}}]", "za: none")
	a := loadYAML(t, in+none2, Options{})
	b := loadYAML(t, hierarchyProfile+listenerSetObjects+none2+strings.TrimPrefix(in, hierarchyProfile+listenerSetObjects), Options{})
	if strings.Join(a.Warnings, "\n") != strings.Join(b.Warnings, "\n") {
		t.Errorf("warnings depend on document order:\n%q\n%q", a.Warnings, b.Warnings)
	}
}

// TestTargetSelectorsCrossNamespace: a selector with namespaces.from All
// selects an object of another namespace only when a ReferenceGrant there
// allows the policy kind (Envoy Gateway v1.9.1, TargetSelector.Namespaces:
// "Cross-namespace targets without a matching ReferenceGrant are
// ignored").
func TestTargetSelectorsCrossNamespace(t *testing.T) {
	objects := hierarchyProfile + `---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: c
  listeners: [{name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: granted, namespace: other, labels: {tier: gold}}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  rules: [{name: main}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ungranted, namespace: third, labels: {tier: gold}}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  rules: [{name: main}]
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: allow, namespace: other}
spec:
  from: [{group: example.com, kind: TestPolicy, namespace: app}]
  to: [{group: gateway.networking.k8s.io, kind: HTTPRoute}]
`
	in := objects + testPolicy("all", "  targetSelectors: [{kind: HTTPRoute, namespaces: {from: All}, matchLabels: {tier: gold}}]", "x: all") +
		testPolicy("same", "  targetSelectors: [{kind: HTTPRoute, matchLabels: {tier: gold}}]", "w: same")
	out := simulate(t, in, Options{})
	checkEffective(t, out, `{"x":"all"}`, nil, "Gateway/infra/gw", "Gateway/infra/gw#http", "HTTPRoute/other/granted", "HTTPRoute/other/granted#main")
	for _, p := range pathsOf(out) {
		if strings.Contains(p, "ungranted") {
			t.Errorf("a route no ReferenceGrant allows is selected: %s", p)
		}
	}
	checkCondition(t, out, "TestPolicy/app/same", "", engine.TypeAccepted, "False", engine.ReasonTargetNotFound)
}

// TestBadInputHierarchy: a version Gateway API v1.6.3 does not serve, and a
// malformed target selector, are errors naming file, document, line and
// field.
func TestBadInputHierarchy(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{{
		name: "GRPCRoute v1alpha2",
		in:   "apiVersion: gateway.networking.k8s.io/v1alpha2\nkind: GRPCRoute\nmetadata: {name: r}\nspec: {}\n",
		want: `<stdin>: document 1 (line 1): GRPCRoute default/r: field apiVersion: Gateway API v1.6.3 does not serve GRPCRoute at gateway.networking.k8s.io/v1alpha2: it serves v1 (standard)`,
	}, {
		name: "BackendTLSPolicy v1alpha2",
		in:   "apiVersion: gateway.networking.k8s.io/v1alpha2\nkind: BackendTLSPolicy\nmetadata: {name: p}\nspec: {}\n",
		want: `field apiVersion: Gateway API v1.6.3 does not serve BackendTLSPolicy at gateway.networking.k8s.io/v1alpha2: it serves v1 (standard), v1alpha3 (experimental)`,
	}, {
		name: "selector operator",
		in:   hierarchyProfile + "---\napiVersion: example.com/v1\nkind: TestPolicy\nmetadata: {name: p, namespace: app}\nspec:\n  targetSelectors:\n  - kind: HTTPRoute\n    matchExpressions:\n    - {key: a, operator: Equals, values: [b]}\n",
		want: `document 2 (line 26): TestPolicy app/p: field spec.targetSelectors[0].matchExpressions[0].operator: must be In, NotIn, Exists or DoesNotExist, not "Equals"`,
	}, {
		name: "selector without kind",
		in:   hierarchyProfile + "---\napiVersion: example.com/v1\nkind: TestPolicy\nmetadata: {name: p, namespace: app}\nspec:\n  targetSelectors:\n  - matchLabels: {a: b}\n",
		want: `TestPolicy app/p: field spec.targetSelectors[0].kind: is required`,
	}} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadFiles([]string{"-"}, strings.NewReader(c.in), Options{})
			var errs load.Errors
			if !errors.As(err, &errs) {
				t.Fatalf("err = %v, want load.Errors", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, c.want)
			}
		})
	}
	// Versions either channel serves load: TLSRoute v1alpha2 and v1alpha3
	// (experimental), ReferenceGrant v1beta1.
	ok := "apiVersion: gateway.networking.k8s.io/v1alpha3\nkind: TLSRoute\nmetadata: {name: r}\nspec: {}\n---\napiVersion: gateway.networking.k8s.io/v1alpha2\nkind: TLSRoute\nmetadata: {name: s}\nspec: {}\n"
	if _, err := LoadFiles([]string{"-"}, strings.NewReader(ok), Options{}); err != nil {
		t.Errorf("served versions refused: %v", err)
	}
}
