package simulator

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

// End-to-end tests: YAML as a user would kubectl apply it, through
// LoadFiles/Build and Model.Run. Every expected value comes from GEP-713 (the
// section is cited) or from docs/semantics.md, with the reasoning written
// next to it.

// ---- helpers -------------------------------------------------------------

// loadYAML reads docs from a stdin reader ("-").
func loadYAML(t *testing.T, docs string, opts Options) *Model {
	t.Helper()
	m, err := LoadFiles([]string{"-"}, strings.NewReader(docs), opts)
	if err != nil {
		t.Fatalf("LoadFiles: %v", err)
	}
	return m
}

// simulate loads docs and runs them under sticky-overrides.
func simulate(t *testing.T, docs string, opts Options) *Output {
	t.Helper()
	return loadYAML(t, docs, opts).Run(engine.StickyOverrides, nil)
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantJSON normalizes a JSON literal so that it compares with asJSON.
func wantJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON in test: %s: %v", s, err)
	}
	return asJSON(t, v)
}

func pathOf(elems ...string) string { return strings.Join(elems, " > ") }

func pathsOf(out *Output) []string {
	var ps []string
	for _, e := range out.EffectivePolicies {
		ps = append(ps, pathOf(e.Path...))
	}
	return ps
}

// effectiveOn returns the effective policy of a path, failing if it has none.
func effectiveOn(t *testing.T, out *Output, path ...string) engine.EffectivePolicy {
	t.Helper()
	for _, e := range out.EffectivePolicies {
		if slices.Equal(e.Path, path) {
			return e
		}
	}
	t.Fatalf("no effective policy on %s; paths: %q", pathOf(path...), pathsOf(out))
	return engine.EffectivePolicy{}
}

// checkEffective checks the spec and the provenance of a path.
func checkEffective(t *testing.T, out *Output, spec string, prov map[string]string, path ...string) {
	t.Helper()
	e := effectiveOn(t, out, path...)
	if got, want := asJSON(t, e.Spec), wantJSON(t, spec); got != want {
		t.Errorf("%s: spec %s, want %s", pathOf(path...), got, want)
	}
	if prov != nil {
		if got, want := asJSON(t, e.Provenance), asJSON(t, prov); got != want {
			t.Errorf("%s: provenance %s, want %s", pathOf(path...), got, want)
		}
	}
}

func policyStatus(t *testing.T, out *Output, policy string) engine.PolicyStatus {
	t.Helper()
	for _, p := range out.Policies {
		if p.Ref == policy {
			return p
		}
	}
	t.Fatalf("policy %s not in the output", policy)
	return engine.PolicyStatus{}
}

// checkCondition checks a condition of a policy, or of one of its targets
// when target is not empty. msg lists substrings of the message.
func checkCondition(t *testing.T, out *Output, policy, target, typ, status, reason string, msg ...string) {
	t.Helper()
	p := policyStatus(t, out, policy)
	cs, where := p.Conditions, policy
	if target != "" {
		where = policy + " on " + target
		cs = nil
		for _, pt := range p.Targets {
			if pt.Ref == target {
				cs = pt.Conditions
			}
		}
		if cs == nil {
			t.Fatalf("%s: no target %s in %+v", policy, target, p.Targets)
		}
	}
	c, ok := engine.FindCondition(cs, typ)
	if !ok {
		t.Fatalf("%s: no %s condition in %+v", where, typ, cs)
	}
	if c.Status != status || c.Reason != reason {
		t.Errorf("%s: %s=%s/%s (%s), want %s/%s", where, typ, c.Status, c.Reason, c.Message, status, reason)
	}
	for _, m := range msg {
		if !strings.Contains(c.Message, m) {
			t.Errorf("%s: %s message %q does not contain %q", where, typ, c.Message, m)
		}
	}
}

func affectedBy(out *Output, target string) []string {
	for _, ts := range out.Targets {
		if ts.Ref == target {
			return ts.AffectedBy
		}
	}
	return nil
}

func writeTestFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func joinDocs(docs ...string) string { return strings.Join(docs, "\n---\n") }

// ---- fixtures ------------------------------------------------------------

// GEP-713, End-to-end examples, Example 2. Defaults & Overrides: g1 > r1 >
// b1, g1 > r2 > b1, g2 > r3 > b1, g2 > r4 > b2; p1[color:red] → g1,
// p2[color:blue] → r1, p3[overrides:{color:yellow}] → g2, p4[color:green] →
// r4. One document per element so that tests can split and shuffle them.
var example2 = []string{
	`apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: example}
spec: {controllerName: example.com/gateway-controller}`,
	`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g1}
spec:
  gatewayClassName: example
  listeners: [{name: http, protocol: HTTP, port: 80}]`,
	`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g2}
spec:
  gatewayClassName: example
  listeners: [{name: http, protocol: HTTP, port: 80}]`,
	`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r1}
spec:
  parentRefs: [{name: g1}]
  rules: [{backendRefs: [{name: b1, port: 80}]}]`,
	`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r2}
spec:
  parentRefs: [{name: g1}]
  rules: [{backendRefs: [{name: b1, port: 80}]}]`,
	`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r3}
spec:
  parentRefs: [{name: g2}]
  rules: [{backendRefs: [{name: b1, port: 80}]}]`,
	`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r4}
spec:
  parentRefs: [{name: g2}]
  rules: [{backendRefs: [{name: b2, port: 80}]}]`,
	`apiVersion: v1
kind: Service
metadata: {name: b1}
spec: {ports: [{port: 80}]}`,
	`apiVersion: v1
kind: Service
metadata: {name: b2}
spec: {ports: [{port: 80}]}`,
	`apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p1}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g1}]
  color: red`,
	`apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p2}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r1}]
  color: blue`,
	`apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p3}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g2}]
  overrides: {color: yellow}`,
	`apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p4}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r4}]
  color: green`,
}

var inherited = Options{Profiles: []string{"color-inherited"}}

// checkExample2 checks the outcome GEP-713 states for Example 2.
func checkExample2(t *testing.T, out *Output) {
	t.Helper()
	// "g1 > r1 > b1 must be colored blue (more specific p2 spec beats less
	// specific defaults at p1)."
	checkEffective(t, out, `{"color":"blue"}`, map[string]string{"color": "ColorPolicy/default/p2"},
		"Gateway/default/g1", "HTTPRoute/default/r1", "Service/default/b1")
	// "g1 > r2 > b1 must be colored red"
	checkEffective(t, out, `{"color":"red"}`, map[string]string{"color": "ColorPolicy/default/p1"},
		"Gateway/default/g1", "HTTPRoute/default/r2", "Service/default/b1")
	// "g2 > r3 > b1 must be colored yellow"
	checkEffective(t, out, `{"color":"yellow"}`, map[string]string{"color": "ColorPolicy/default/p3"},
		"Gateway/default/g2", "HTTPRoute/default/r3", "Service/default/b1")
	// "g2 > r4 > b2 must be colored yellow (overrides specified at p3 beats
	// more specific policy p4)."
	checkEffective(t, out, `{"color":"yellow"}`, map[string]string{"color": "ColorPolicy/default/p3"},
		"Gateway/default/g2", "HTTPRoute/default/r4", "Service/default/b2")
	if n := len(out.EffectivePolicies); n != 4 {
		t.Errorf("%d effective policies, want the 4 paths of Example 2: %q", n, pathsOf(out))
	}
}

// ---- input ---------------------------------------------------------------

func TestReadFromStdin(t *testing.T) {
	m, err := LoadFiles([]string{"-"}, strings.NewReader(joinDocs(example2...)), inherited)
	if err != nil {
		t.Fatal(err)
	}
	checkExample2(t, m.Run(engine.StickyOverrides, nil))
	if _, err := LoadFiles([]string{"-"}, nil, inherited); err == nil {
		t.Error(`LoadFiles("-") without a reader: no error`)
	}
}

// TestReadDirectory splits Example 2 across several files and a
// subdirectory: objects refer to each other across files, and the outcome
// equals the one read from stdin.
func TestReadDirectory(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "infra.yaml"), joinDocs(example2[0:3]...))
	writeTestFile(t, filepath.Join(dir, "apps", "routes.yml"), joinDocs(example2[3:7]...))
	writeTestFile(t, filepath.Join(dir, "apps", "services.json"),
		`{"apiVersion": "v1", "kind": "List", "items": [
		  {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "b1"}, "spec": {"ports": [{"port": 80}]}},
		  {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "b2"}, "spec": {"ports": [{"port": 80}]}}]}`)
	writeTestFile(t, filepath.Join(dir, "policies", "gateway.yaml"), joinDocs(example2[9], example2[11]))
	writeTestFile(t, filepath.Join(dir, "policies", "routes.yaml"), joinDocs(example2[10], example2[12]))
	writeTestFile(t, filepath.Join(dir, "README.md"), "not a manifest: skipped\n")

	m, err := LoadFiles([]string{dir}, nil, inherited)
	if err != nil {
		t.Fatal(err)
	}
	fromDir := m.Run(engine.StickyOverrides, nil)
	checkExample2(t, fromDir)
	fromStdin := simulate(t, joinDocs(example2...), inherited)
	if a, b := asJSON(t, fromDir), asJSON(t, fromStdin); a != b {
		t.Errorf("directory and stdin differ:\n dir:   %s\n stdin: %s", a, b)
	}
}

// orderFixture has ties that only the conflict resolution rules can break
// (GEP-713, Conflict resolution rules 2 and 3, docs/semantics.md on missing
// timestamps) and a None kind next to an inherited one, so that reading
// order would show if it leaked into the outcome.
var orderFixture = append(slices.Clone(example2),
	`apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: tie-b}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r2}]
  strategy: patch
  colors: {dark: b, light: b}`,
	`apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: tie-a}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r2}]
  strategy: patch
  colors: {dark: a, extra: a}`,
	`apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: tls-2, creationTimestamp: "2025-01-01T00:00:00Z"}
spec:
  targetRefs: [{group: "", kind: Service, name: b1}]
  validation: {hostname: two.example.com, wellKnownCACertificates: System}`,
	`apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: tls-1, creationTimestamp: "2025-01-01T00:00:00Z"}
spec:
  targetRefs: [{group: "", kind: Service, name: b1}]
  validation: {hostname: one.example.com, wellKnownCACertificates: System}`,
	`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r0}
spec:
  parentRefs: [{name: g2}, {name: g1}]
  rules: [{backendRefs: [{name: b2, port: 80}]}, {backendRefs: [{name: b1, port: 80}]}]`,
)

func TestDocumentOrderDoesNotMatter(t *testing.T) {
	opts := Options{Profiles: []string{"color-inherited", "backendtlspolicy"}}
	want := simulate(t, joinDocs(orderFixture...), opts)
	if len(want.EffectivePolicies) < 8 || len(want.Policies) != 8 {
		t.Fatalf("fixture too small to show anything: %d paths, %d policies", len(want.EffectivePolicies), len(want.Policies))
	}
	// The None kind: tls-1 and tls-2 tie on time; rule 3 picks tls-1
	// ({namespace}/{name} first), whatever the document order.
	checkEffective(t, want, `{"validation":{"hostname":"one.example.com","wellKnownCACertificates":"System"}}`, nil, "Service/default/b1")
	wantOut := asJSON(t, want)
	for _, sem := range []engine.Semantics{engine.StickyOverrides, engine.GEP713} {
		wantSem := asJSON(t, loadYAML(t, joinDocs(orderFixture...), opts).Run(sem, nil))
		r := rand.New(rand.NewPCG(713, uint64(len(sem))))
		for i := 0; i < 25; i++ {
			docs := slices.Clone(orderFixture)
			r.Shuffle(len(docs), func(a, b int) { docs[a], docs[b] = docs[b], docs[a] })
			got := asJSON(t, loadYAML(t, joinDocs(docs...), opts).Run(sem, nil))
			if got != wantSem {
				t.Fatalf("[%s] shuffle %d changes the outcome:\n got:  %s\n want: %s", sem, i, got, wantSem)
			}
		}
	}
	// Reversed, as a fixed permutation.
	rev := slices.Clone(orderFixture)
	slices.Reverse(rev)
	if got := asJSON(t, simulate(t, joinDocs(rev...), opts)); got != wantOut {
		t.Errorf("reversed input changes the outcome:\n got:  %s\n want: %s", got, wantOut)
	}
}

// ---- profiles ------------------------------------------------------------

// TestAmbiguousBuiltinProfile: ColorPolicy matches color-direct and
// color-inherited (docs/profiles.md, Built-in profiles); gepcheck must not
// guess which semantics the user means.
func TestAmbiguousBuiltinProfile(t *testing.T) {
	_, err := LoadFiles([]string{"-"}, strings.NewReader(joinDocs(example2...)), Options{})
	if err == nil {
		t.Fatal("ColorPolicy without --profile: no error")
	}
	for _, want := range []string{"--profile", "color-direct", "color-inherited"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	// Choosing one resolves it.
	if _, err := LoadFiles([]string{"-"}, strings.NewReader(joinDocs(example2...)), Options{Profiles: []string{"color-direct"}}); err != nil {
		t.Errorf("with --profile color-direct: %v", err)
	}
}

// TestKindWithoutProfile: a kind no profile describes is not an error (the
// input may hold any other object), only a warning.
func TestKindWithoutProfile(t *testing.T) {
	docs := joinDocs(append(slices.Clone(example2), `apiVersion: example.com/v1
kind: RetryPolicy
metadata: {name: r}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g1}]
  retries: 3`)...)
	m, err := LoadFiles([]string{"-"}, strings.NewReader(docs), inherited)
	if err != nil {
		t.Fatalf("unknown policy kind is an error: %v", err)
	}
	out := m.Run(engine.StickyOverrides, nil)
	found := false
	for _, w := range out.Warnings {
		found = found || strings.Contains(w, "RetryPolicy")
	}
	if !found {
		t.Errorf("no warning about RetryPolicy: %q", out.Warnings)
	}
	checkExample2(t, out)
	for _, p := range out.Policies {
		if strings.HasPrefix(p.Ref, "RetryPolicy/") {
			t.Errorf("RetryPolicy simulated: %+v", p)
		}
	}
}

// ---- listeners and projection -------------------------------------------

// listenerProfile: ColorPolicy may target a Gateway or one of its listeners
// (GEP-713, Targeting sections of an object: "a policy that specifies
// additional behaviour for a given listener of a Gateway ... provide the
// sectionName"), and HTTPRoutes; it augments Services.
const listenerProfile = `apiVersion: gepcheck.dev/v1alpha1
kind: PolicyProfile
metadata: {name: color-listener}
spec:
  citation: "GEP-713, Targeting sections of an object"
  policy: {group: policies.controller.io, kind: ColorPolicy}
  targets:
  - {group: gateway.networking.k8s.io, kind: Gateway, sectionName: Optional}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute}
  effectiveTargets: [{group: "", kind: Service}]
  mergeStrategies: [AtomicDefaults]`

// listenerTopology: g1 has listeners public and internal; r-public attaches
// through public only, r-internal through internal only, r-both (no
// sectionName) through both.
var listenerTopology = []string{
	`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g1}
spec:
  gatewayClassName: example
  listeners:
  - {name: public, protocol: HTTP, port: 80}
  - {name: internal, protocol: HTTP, port: 8080}`,
	`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r-public}
spec:
  parentRefs: [{name: g1, sectionName: public}]
  rules: [{backendRefs: [{name: b-public, port: 80}]}]`,
	`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r-internal}
spec:
  parentRefs: [{name: g1, sectionName: internal}]
  rules: [{backendRefs: [{name: b-internal, port: 80}]}]`,
	`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r-both}
spec:
  parentRefs: [{name: g1}]
  rules: [{backendRefs: [{name: b-both, port: 80}]}]`,
	`apiVersion: v1
kind: Service
metadata: {name: b-public}
spec: {ports: [{port: 80}]}`,
	`apiVersion: v1
kind: Service
metadata: {name: b-internal}
spec: {ports: [{port: 80}]}`,
	`apiVersion: v1
kind: Service
metadata: {name: b-both}
spec: {ports: [{port: 80}]}`,
}

const internalPolicy = `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p-internal}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g1, sectionName: internal}]
  color: blue`

func listenerInput(extra ...string) string {
	docs := append([]string{listenerProfile}, listenerTopology...)
	return joinDocs(append(docs, extra...)...)
}

// TestListenerPolicy: a policy on listener internal augments only what is
// reached through that listener (GEP-713, Targeting sections of an object;
// Hierarchy of target kinds: "umbrella effect over everything beneath").
// The PolicyProfile document in the input is used without --profile.
func TestListenerPolicy(t *testing.T) {
	out := simulate(t, listenerInput(internalPolicy), Options{})
	// Paths keep Gateway, listener, HTTPRoute and Service (the node types
	// the profile targets or augments, docs/semantics.md); only paths
	// through g1#internal carry a policy.
	checkEffective(t, out, `{"color":"blue"}`, map[string]string{"color": "ColorPolicy/default/p-internal"},
		"Gateway/default/g1", "Gateway/default/g1#internal", "HTTPRoute/default/r-internal", "Service/default/b-internal")
	checkEffective(t, out, `{"color":"blue"}`, nil,
		"Gateway/default/g1", "Gateway/default/g1#internal", "HTTPRoute/default/r-both", "Service/default/b-both")
	if n := len(out.EffectivePolicies); n != 2 {
		t.Errorf("%d effective policies, want 2 (r-public and r-both through public are not beneath g1#internal): %q", n, pathsOf(out))
	}
	if got := affectedBy(out, "Service/default/b-public"); len(got) != 0 {
		t.Errorf("Service/default/b-public affected by %v: it is not reached through listener internal", got)
	}
	// GEP-713, Target object status: "for a hypothetical ColorPolicy policy
	// that targets a specific named section of the Gateway object ... the
	// controller SHOULD add to the status of the listener section".
	if got := affectedBy(out, "Gateway/default/g1#internal"); !slices.Equal(got, []string{"ColorPolicy/default/p-internal"}) {
		t.Errorf("Gateway/default/g1#internal affected by %v, want [ColorPolicy/default/p-internal]", got)
	}
	checkCondition(t, out, "ColorPolicy/default/p-internal", "Gateway/default/g1#internal", engine.TypeAccepted, "True", engine.ReasonAccepted)
	checkCondition(t, out, "ColorPolicy/default/p-internal", "", engine.TypeProgrammed, "True", engine.ReasonProgrammed)
}

// TestProjection: a route attached to both listeners of one Gateway gives one
// path for a kind that does not care about listeners (docs/semantics.md,
// "Paths are projected onto the kinds a policy kind cares about"), and one
// path per listener for a kind that may target listeners.
func TestProjection(t *testing.T) {
	gwPolicy := `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p-gw}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g1}]
  color: red`
	rBoth := []string{listenerTopology[0], listenerTopology[3], listenerTopology[6], gwPolicy}

	out := simulate(t, joinDocs(rBoth...), inherited)
	checkEffective(t, out, `{"color":"red"}`, nil, "Gateway/default/g1", "HTTPRoute/default/r-both", "Service/default/b-both")
	if n := len(out.EffectivePolicies); n != 1 {
		t.Errorf("color-inherited: %d paths, want ONE (Gateway > HTTPRoute > Service): %q", n, pathsOf(out))
	}
	if p := policyStatus(t, out, "ColorPolicy/default/p-gw"); p.Paths != 1 {
		t.Errorf("p-gw in effect on %d paths, want 1", p.Paths)
	}

	out = simulate(t, joinDocs(append([]string{listenerProfile}, rBoth...)...), Options{})
	for _, l := range []string{"public", "internal"} {
		checkEffective(t, out, `{"color":"red"}`, nil, "Gateway/default/g1", "Gateway/default/g1#"+l, "HTTPRoute/default/r-both", "Service/default/b-both")
	}
	if n := len(out.EffectivePolicies); n != 2 {
		t.Errorf("color-listener: %d paths, want one per listener: %q", n, pathsOf(out))
	}
}

// ---- route rules ---------------------------------------------------------

// grpcRuleProfile: ColorPolicy targets GRPCRoutes or their rules and augments
// rules (GEP-713, Targeting sections of an object; Abstract process: "named
// sections of a proper Kubernetes kind").
const grpcRuleProfile = `apiVersion: gepcheck.dev/v1alpha1
kind: PolicyProfile
metadata: {name: color-grpc-rules}
spec:
  policy: {group: policies.controller.io, kind: ColorPolicy}
  targets: [{group: gateway.networking.k8s.io, kind: GRPCRoute, sectionName: Optional}]
  effectiveTargets: [{group: gateway.networking.k8s.io, kind: GRPCRoute, section: true}]
  mergeStrategies: [AtomicDefaults]`

const grpcRoute = `apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: gr}
spec:
  parentRefs: [{name: g1}]
  rules:
  - matches: [{method: {service: acme.Echo}}]
  - matches: [{method: {service: acme.Health}}]
  - name: login
    matches: [{method: {service: acme.Login}}]`

func TestGRPCRouteRules(t *testing.T) {
	docs := joinDocs(grpcRuleProfile, example2[1], grpcRoute,
		`apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p-route}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GRPCRoute, name: gr}]
  color: green`,
		`apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p-login}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GRPCRoute, name: gr, sectionName: login}]
  color: blue`)
	out := simulate(t, docs, Options{})
	// Unnamed rules are rules[0] and rules[1] (docs/semantics.md: "Rules
	// without a name get the positional name rules[i] (0-based)"); the
	// route-level policy is all there is on them.
	for _, s := range []string{"rules[0]", "rules[1]"} {
		checkEffective(t, out, `{"color":"green"}`, map[string]string{"color": "ColorPolicy/default/p-route"},
			"GRPCRoute/default/gr", "GRPCRoute/default/gr#"+s)
	}
	// On rule login, p-route (route, higher) is established and p-login
	// (rule, lower) the challenger: GEP-713, Conflict resolution rule 1;
	// Atomic defaults: f(established, challenger) → challenger.
	checkEffective(t, out, `{"color":"blue"}`, map[string]string{"color": "ColorPolicy/default/p-login"},
		"GRPCRoute/default/gr", "GRPCRoute/default/gr#login")
	if n := len(out.EffectivePolicies); n != 3 {
		t.Errorf("%d paths, want one per rule (3): %q", n, pathsOf(out))
	}
	// p-route is beaten on login only: partially programmed (GEP-713,
	// Status conditions, PolicyReasonPartiallyProgrammed: "parts of the
	// policy's spec have been programmed, while other parts are known to
	// have been superseded" — here on some paths, not on others).
	checkCondition(t, out, "ColorPolicy/default/p-route", "", engine.TypeProgrammed, "True", engine.ReasonPartiallyProgrammed, "ColorPolicy/default/p-login")
}

// TestPositionalRuleNameNotTargetable: docs/semantics.md says the positional
// name rules[i] "cannot be targeted, as in a real cluster" (Gateway API
// section names are DNS subdomains, so the API server refuses "rules[0]";
// GEP-713, Targeting sections of an object, needs "sections uniquely
// identifiable by name", which an unnamed rule is not): the loader refuses
// it as the API server would, naming the field.
func TestPositionalRuleNameNotTargetable(t *testing.T) {
	docs := joinDocs(grpcRuleProfile, example2[1], grpcRoute,
		`apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p-pos}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GRPCRoute, name: gr, sectionName: "rules[0]"}]
  color: red`)
	_, err := LoadFiles([]string{"-"}, strings.NewReader(docs), Options{})
	if err == nil || !strings.Contains(err.Error(), `ColorPolicy default/p-pos: field spec.targetRefs[0].sectionName: "rules[0]" is not a valid name`) {
		t.Errorf("a targetRef with sectionName \"rules[0]\": %v, want an error naming the field", err)
	}
}

// ---- cross-namespace references -----------------------------------------

func xnsProfile(cross bool) string {
	c := "false"
	if cross {
		c = "true"
	}
	return `apiVersion: gepcheck.dev/v1alpha1
kind: PolicyProfile
metadata: {name: color-xns}
spec:
  citation: "GEP-713, Cross namespace references"
  policy: {group: policies.controller.io, kind: ColorPolicy}
  targets: [{group: gateway.networking.k8s.io, kind: HTTPRoute}]
  effectiveTargets: [{group: "", kind: Service}]
  crossNamespace: ` + c + `
  mergeStrategies: [AtomicDefaults]`
}

var xnsObjects = []string{
	`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g1, namespace: apps}
spec:
  gatewayClassName: example
  listeners: [{name: http, protocol: HTTP, port: 80}]`,
	`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r1, namespace: apps}
spec:
  parentRefs: [{name: g1}]
  rules: [{backendRefs: [{name: b1, port: 80}]}]`,
	`apiVersion: v1
kind: Service
metadata: {name: b1, namespace: apps}
spec: {ports: [{port: 80}]}`,
	`apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p, namespace: policies}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: apps, name: r1}]
  color: purple`,
}

// grant is a ReferenceGrant in namespace ns trusting ColorPolicies of
// namespace policies to refer to HTTPRoutes.
func grant(ns string) string {
	return `apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: allow-colors, namespace: ` + ns + `}
spec:
  from: [{group: policies.controller.io, kind: ColorPolicy, namespace: policies}]
  to: [{group: gateway.networking.k8s.io, kind: HTTPRoute}]`
}

// TestCrossNamespace: GEP-713, Cross namespace references: policies that
// allow them "MUST support ... The policy is paired with ReferenceGrants or
// some other form of equivalent handshake that ensures that the target is
// accepting the policy."
func TestCrossNamespace(t *testing.T) {
	const policy, target = "ColorPolicy/policies/p", "HTTPRoute/apps/r1"
	path := []string{"HTTPRoute/apps/r1", "Service/apps/b1"}

	t.Run("no grant", func(t *testing.T) {
		out := simulate(t, joinDocs(append([]string{xnsProfile(true)}, xnsObjects...)...), Options{})
		checkCondition(t, out, policy, target, engine.TypeAccepted, "False", engine.ReasonInvalid, "apps")
		checkCondition(t, out, policy, "", engine.TypeAccepted, "False", engine.ReasonInvalid)
		if len(out.EffectivePolicies) != 0 {
			t.Errorf("the policy is applied without a ReferenceGrant: %q", pathsOf(out))
		}
	})
	t.Run("grant in the target namespace", func(t *testing.T) {
		out := simulate(t, joinDocs(append([]string{xnsProfile(true), grant("apps")}, xnsObjects...)...), Options{})
		checkCondition(t, out, policy, target, engine.TypeAccepted, "True", engine.ReasonAccepted)
		checkEffective(t, out, `{"color":"purple"}`, map[string]string{"color": policy}, path...)
	})
	t.Run("grant in the policy namespace", func(t *testing.T) {
		// A grant next to the policy says nothing about the target
		// "accepting the policy".
		out := simulate(t, joinDocs(append([]string{xnsProfile(true), grant("policies")}, xnsObjects...)...), Options{})
		checkCondition(t, out, policy, target, engine.TypeAccepted, "False", engine.ReasonInvalid)
		if len(out.EffectivePolicies) != 0 {
			t.Errorf("applied with a grant in the wrong namespace: %q", pathsOf(out))
		}
	})
	t.Run("kind without cross-namespace references", func(t *testing.T) {
		// GEP-713: "Policies can opt for allowing instances to target
		// objects across Kubernetes namespaces"; this kind did not, so a
		// namespace in a targetRef is invalid, grant or not.
		out := simulate(t, joinDocs(append([]string{xnsProfile(false), grant("apps")}, xnsObjects...)...), Options{})
		checkCondition(t, out, policy, target, engine.TypeAccepted, "False", engine.ReasonInvalid)
		if len(out.EffectivePolicies) != 0 {
			t.Errorf("applied although the kind forbids cross-namespace targets: %q", pathsOf(out))
		}
	})
}

// ---- virtual kinds -------------------------------------------------------

// TestVirtualKind: GEP-713, Targeting virtual types: "implementations MAY
// choose to support a reference to a virtual resource type ExternalService,
// unknown by the Kuberentes API server but known by the controller". The
// policy is the GEP's own example. ExternalService is declared and effective
// target alike, so the kind is Direct and implements None (Merge strategy:
// None: "Policy kinds that ... only support targeting a single kind, with
// Declared target equal to Effective target, by default MUST implement the
// None merge strategy").
func TestVirtualKind(t *testing.T) {
	docs := joinDocs(`apiVersion: gepcheck.dev/v1alpha1
kind: PolicyProfile
metadata: {name: color-external}
spec:
  citation: "GEP-713, Targeting virtual types"
  policy: {group: policies.controller.io, kind: ColorPolicy}
  targets: [{group: networking.acme.io, kind: ExternalService, virtual: true}]
  effectiveTargets: [{group: networking.acme.io, kind: ExternalService}]
  mergeStrategies: [None]`,
		`apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata:
  name: my-color-policy
spec:
  targetRefs:
  - group: networking.acme.io
    kind: ExternalService
    name: foo.com
  color: blue`)
	out := simulate(t, docs, Options{})
	// A virtual target has no namespace unless the targetRef names one
	// (docs/profiles.md, engine.AddVirtualTargets): ExternalService/foo.com.
	checkEffective(t, out, `{"color":"blue"}`, map[string]string{"color": "ColorPolicy/default/my-color-policy"}, "ExternalService/foo.com")
	if n := len(out.EffectivePolicies); n != 1 {
		t.Errorf("%d paths, want 1: %q", n, pathsOf(out))
	}
	checkCondition(t, out, "ColorPolicy/default/my-color-policy", "ExternalService/foo.com", engine.TypeAccepted, "True", engine.ReasonAccepted)
	checkCondition(t, out, "ColorPolicy/default/my-color-policy", "", engine.TypeProgrammed, "True", engine.ReasonProgrammed)
}

// ---- TargetNotFound ------------------------------------------------------

// TestTargetNotFound: GEP-713, Policy status: Accepted covers "semantic
// validation enforced by the controller, such as whether the target objects
// exist"; the message names what is missing.
func TestTargetNotFound(t *testing.T) {
	t.Run("object", func(t *testing.T) {
		out := simulate(t, joinDocs(append(slices.Clone(example2), `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p-missing}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: missing}]
  color: black`)...), inherited)
		checkCondition(t, out, "ColorPolicy/default/p-missing", "HTTPRoute/default/missing", engine.TypeAccepted, "False", engine.ReasonTargetNotFound, "HTTPRoute/default/missing")
		checkCondition(t, out, "ColorPolicy/default/p-missing", "", engine.TypeAccepted, "False", engine.ReasonTargetNotFound, "HTTPRoute/default/missing")
		checkExample2(t, out) // and nothing else changes
	})
	t.Run("listener", func(t *testing.T) {
		out := simulate(t, listenerInput(`apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p-nope}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g1, sectionName: nope}]
  color: black`), Options{})
		checkCondition(t, out, "ColorPolicy/default/p-nope", "Gateway/default/g1#nope", engine.TypeAccepted, "False", engine.ReasonTargetNotFound, "Gateway/default/g1", `"nope"`)
		if len(out.EffectivePolicies) != 0 {
			t.Errorf("a policy on a missing listener is in effect: %q", pathsOf(out))
		}
	})
}

// ---- BackendTLSPolicy ----------------------------------------------------

// TestBackendTLSPolicy: GEP-713, Current use of policies: "BackendTLSPolicy |
// ... | Service, Port | None | Direct"; Merge strategy: None: "The spec ...
// with the oldest creation timestamp MUST be considered the established spec
// and that spec beats all challenger specs" and "All challenger specs ...
// MUST be rejected ... the Accepted status condition of the policy SHOULD be
// set to false". The newer policy is named a-... so that rule 3 alone would
// pick it: only rule 2 makes the older one win.
func TestBackendTLSPolicy(t *testing.T) {
	docs := joinDocs(
		`apiVersion: v1
kind: Service
metadata: {name: s1}
spec: {ports: [{port: 443}]}`,
		`apiVersion: v1
kind: Service
metadata: {name: s2}
spec: {ports: [{name: https, port: 443}]}`,
		`apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: a-newer, creationTimestamp: "2025-01-01T00:00:10Z"}
spec:
  targetRefs: [{group: "", kind: Service, name: s1}]
  validation: {hostname: newer.example.com, wellKnownCACertificates: System}`,
		`apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: b-older, creationTimestamp: "2025-01-01T00:00:00Z"}
spec:
  targetRefs: [{group: "", kind: Service, name: s1}]
  validation: {hostname: older.example.com, wellKnownCACertificates: System}`,
		`apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: port-tls}
spec:
  targetRefs: [{group: "", kind: Service, name: s2, sectionName: https}]
  validation: {hostname: s2.example.com, wellKnownCACertificates: System}`)
	// No --profile: backendtlspolicy is the only built-in for the kind.
	out := simulate(t, docs, Options{})
	checkEffective(t, out, `{"validation":{"hostname":"older.example.com","wellKnownCACertificates":"System"}}`,
		map[string]string{"validation.hostname": "BackendTLSPolicy/default/b-older", "validation.wellKnownCACertificates": "BackendTLSPolicy/default/b-older"},
		"Service/default/s1")
	checkCondition(t, out, "BackendTLSPolicy/default/b-older", "", engine.TypeAccepted, "True", engine.ReasonAccepted)
	checkCondition(t, out, "BackendTLSPolicy/default/b-older", "", engine.TypeProgrammed, "True", engine.ReasonProgrammed)
	checkCondition(t, out, "BackendTLSPolicy/default/a-newer", "", engine.TypeAccepted, "False", engine.ReasonConflicted, "BackendTLSPolicy/default/b-older")
	checkCondition(t, out, "BackendTLSPolicy/default/a-newer", "Service/default/s1", engine.TypeAccepted, "False", engine.ReasonConflicted, "BackendTLSPolicy/default/b-older")
	// A port is a section of the Service ("Target kinds: Service, Port"):
	// the path goes on to it, printed Service/ns/name#port
	// (docs/semantics.md).
	checkEffective(t, out, `{"validation":{"hostname":"s2.example.com","wellKnownCACertificates":"System"}}`, nil,
		"Service/default/s2", "Service/default/s2#https")
	if n := len(out.EffectivePolicies); n != 2 {
		t.Errorf("%d paths, want 2: %q", n, pathsOf(out))
	}
	// GEP-713, Target object status: b-older's target is affected by it,
	// not by the rejected a-newer (Example 1: "Status of Backend b1 should
	// be reported as affected by the ColorPolicy p1" only).
	if got := affectedBy(out, "Service/default/s1"); !slices.Equal(got, []string{"BackendTLSPolicy/default/b-older"}) {
		t.Errorf("Service/default/s1 affected by %v, want [BackendTLSPolicy/default/b-older]", got)
	}
	if got := affectedBy(out, "Service/default/s2#https"); !slices.Equal(got, []string{"BackendTLSPolicy/default/port-tls"}) {
		t.Errorf("Service/default/s2#https affected by %v, want [BackendTLSPolicy/default/port-tls]", got)
	}
}

// ---- explain -------------------------------------------------------------

// TestExplainTarget answers GEP-713's discoverability questions ("know that
// their object is affected by a policy, which policy is affecting it, and
// what the content of the policy is") for a listener section.
func TestExplainTarget(t *testing.T) {
	out := simulate(t, listenerInput(internalPolicy), Options{})
	x, err := ExplainTarget(out, ref.Ref{Kind: "Gateway", Namespace: "default", Name: "g1", Section: "internal"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ColorPolicy/default/p-internal"}; !slices.Equal(x.AttachedPolicies, want) || !slices.Equal(x.AffectedBy, want) {
		t.Errorf("attached %v, affected by %v; want %v for both", x.AttachedPolicies, x.AffectedBy, want)
	}
	// The paths through g1#internal: r-internal and r-both.
	var got []string
	for _, p := range x.Paths {
		got = append(got, pathOf(p.Path...))
		if asJSON(t, p.Spec) != `{"color":"blue"}` {
			t.Errorf("%s: spec %s, want {\"color\":\"blue\"}", pathOf(p.Path...), asJSON(t, p.Spec))
		}
	}
	slices.Sort(got)
	want := []string{
		pathOf("Gateway/default/g1", "Gateway/default/g1#internal", "HTTPRoute/default/r-both", "Service/default/b-both"),
		pathOf("Gateway/default/g1", "Gateway/default/g1#internal", "HTTPRoute/default/r-internal", "Service/default/b-internal"),
	}
	if !slices.Equal(got, want) {
		t.Errorf("paths through g1#internal: %q, want %q", got, want)
	}
	// Listener public: no policy reaches anything through it.
	if x, err := ExplainTarget(out, ref.Ref{Kind: "Gateway", Namespace: "default", Name: "g1", Section: "public"}); err == nil && (len(x.Paths) > 0 || len(x.AttachedPolicies) > 0) {
		t.Errorf("g1#public: %+v, want nothing", x)
	}
}

// TestExplainPolicyIfDeleted: in Example 2, p4 is overridden by p3 on its
// only path ("g2 > r4 > b2 must be colored yellow (overrides specified at p3
// beats more specific policy p4)"), so deleting p4 changes nothing; deleting
// p3 changes both paths beneath g2 (r3 loses its only policy, r4 falls back
// to p4's green).
func TestExplainPolicyIfDeleted(t *testing.T) {
	m := loadYAML(t, joinDocs(example2...), inherited)
	for _, sem := range []engine.Semantics{engine.StickyOverrides, engine.GEP713} {
		x, err := m.ExplainPolicy(sem, ref.Ref{Kind: "ColorPolicy", Namespace: "default", Name: "p4"})
		if err != nil {
			t.Fatal(err)
		}
		if len(x.IfDeleted) != 0 {
			t.Errorf("[%s] deleting p4 changes %v, want no change", sem, x.IfDeleted)
		}
		if x.StackedOn != 1 || len(x.InEffectOn) != 0 {
			t.Errorf("[%s] p4 stacked on %d paths, in effect on %d; want 1 and 0", sem, x.StackedOn, len(x.InEffectOn))
		}

		x, err = m.ExplainPolicy(sem, ref.Ref{Kind: "ColorPolicy", Namespace: "default", Name: "p3"})
		if err != nil {
			t.Fatal(err)
		}
		if len(x.IfDeleted) != 2 {
			t.Fatalf("[%s] deleting p3: %v, want 2 changes", sem, x.IfDeleted)
		}
		r3, r4 := x.IfDeleted[0], x.IfDeleted[1] // sorted by path
		if pathOf(r3.Path...) != pathOf("Gateway/default/g2", "HTTPRoute/default/r3", "Service/default/b1") || r3.After != nil {
			t.Errorf("[%s] r3 change %v, want no effective policy after", sem, r3)
		}
		if pathOf(r4.Path...) != pathOf("Gateway/default/g2", "HTTPRoute/default/r4", "Service/default/b2") ||
			asJSON(t, r4.After) != `{"color":"green"}` || !slices.Equal(r4.Fields, []string{"color"}) {
			t.Errorf("[%s] r4 change %v, want color yellow -> green", sem, r4)
		}
	}
}

// ---- missing creationTimestamp ------------------------------------------

// TestNoTimestampTie: docs/semantics.md, Policies without a
// creationTimestamp: they count as not yet created and "tied with the
// others that have none, so that Conflict resolution rule 3
// ({namespace}/{name}) orders them". a and b sit on the same route (same
// level, rule 1 does not decide), tie on time (rule 2 does not decide), so
// rule 3 makes default/a the established and default/b the challenger;
// Atomic defaults: f(established, challenger) → challenger: b wins. The
// documents list b first so that document order cannot explain the result.
func TestNoTimestampTie(t *testing.T) {
	route := slices.Clone(example2[:4])
	route = append(route, example2[7])
	pb := `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: b}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r1}]
  color: from-b`
	pa := `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: a}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r1}]
  color: from-a`
	path := []string{"Gateway/default/g1", "HTTPRoute/default/r1", "Service/default/b1"}
	m := loadYAML(t, joinDocs(append(route, pb, pa)...), inherited)
	for _, sem := range []engine.Semantics{engine.StickyOverrides, engine.GEP713} {
		out := m.Run(sem, nil)
		checkEffective(t, out, `{"color":"from-b"}`, map[string]string{"color": "ColorPolicy/default/b"}, path...)
		if e := effectiveOn(t, out, path...); !slices.Equal(e.Policies, []string{"ColorPolicy/default/a", "ColorPolicy/default/b"}) {
			t.Errorf("[%s] stack %v, want established a then challenger b", sem, e.Policies)
		}
		checkCondition(t, out, "ColorPolicy/default/a", "", engine.TypeProgrammed, "False", engine.ReasonOverridden, "ColorPolicy/default/b")
	}

	// With a timestamp, b is older than a, which has none and so counts as
	// newer (docs/semantics.md): rule 2 makes b established and a the
	// challenger, which wins under Atomic defaults.
	pbOld := strings.Replace(pb, "metadata: {name: b}", `metadata: {name: b, creationTimestamp: "2025-01-01T00:00:00Z"}`, 1)
	out := simulate(t, joinDocs(append(route, pbOld, pa)...), inherited)
	checkEffective(t, out, `{"color":"from-a"}`, map[string]string{"color": "ColorPolicy/default/a"}, path...)
}

// Gateway API v1, BackendTLSPolicyValidation.CACertificateRefs: "If ALL
// CACertificateRefs are invalid, the implementation MUST also ensure the
// Accepted Condition on the BackendTLSPolicy is set to status: False, with a
// Reason NoValidCACertificate." One resolving reference keeps a policy
// accepted; a missing ConfigMap or a kind the profile does not allow does
// not resolve.
func TestBackendTLSPolicyCACertificateRefs(t *testing.T) {
	policy := func(name, refs string) string {
		return `apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: ` + name + `}
spec:
  targetRefs: [{group: "", kind: Service, name: s-` + name + `}]
  validation: {hostname: h.example.com, caCertificateRefs: ` + refs + `}`
	}
	service := func(name string) string {
		return "apiVersion: v1\nkind: Service\nmetadata: {name: s-" + name + "}\nspec: {ports: [{name: https, port: 443}]}"
	}
	docs := joinDocs(
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ca}\ndata: {ca.crt: x}",
		"apiVersion: v1\nkind: Secret\nmetadata: {name: secret-ca}",
		service("one-good"), policy("one-good", `[{group: "", kind: ConfigMap, name: missing}, {group: "", kind: ConfigMap, name: ca}]`),
		service("missing"), policy("missing", `[{group: "", kind: ConfigMap, name: missing}]`),
		service("secret"), policy("secret", `[{group: "", kind: Secret, name: secret-ca}]`),
	)
	for _, prof := range []string{"backendtlspolicy", "backendtlspolicy-gateway-api"} {
		m, err := LoadFiles([]string{"-"}, strings.NewReader(docs), Options{Profiles: []string{prof}})
		if err != nil {
			t.Fatal(err)
		}
		out := m.Run(engine.StickyOverrides, nil)
		want := map[string]string{
			"BackendTLSPolicy/default/one-good": "True/Accepted",
			"BackendTLSPolicy/default/missing":  "False/NoValidCACertificate",
			"BackendTLSPolicy/default/secret":   "False/NoValidCACertificate",
		}
		for _, p := range out.Policies {
			got := p.Conditions[0].Status + "/" + p.Conditions[0].Reason
			if w := want[p.Ref]; got != w {
				t.Errorf("%s %s: Accepted %s, want %s", prof, p.Ref, got, w)
			}
		}
		if len(out.EffectivePolicies) != 1 || out.EffectivePolicies[0].Path[0] != "Service/default/s-one-good" {
			t.Errorf("%s: effective %+v, want one-good's only", prof, out.EffectivePolicies)
		}
	}
}

// Gateway API v1, BackendTLSPolicyValidation.CACertificateRefs: a reference
// that "cannot be resolved ... or is misconfigured (e.g., a ConfigMap does
// not contain a key named `ca.crt`)" gives ResolvedRefs=False with Reason
// InvalidCACertificateRef, one to "an unknown or unsupported kind" Reason
// InvalidKind; "If ALL CACertificateRefs are invalid", Accepted=False
// NoValidCACertificate too. Both on the policy and on each ancestor
// Gateway reaching its Service (PolicyStatus.Ancestors); a Gateway that
// reaches no target of a policy has no entry.
func TestBackendTLSPolicyResolvedRefsPerAncestor(t *testing.T) {
	policy := func(name, refs string) string {
		return `apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: ` + name + `}
spec:
  targetRefs: [{group: "", kind: Service, name: s-` + name + `}]
  validation: {hostname: h.example.com, caCertificateRefs: ` + refs + `}`
	}
	service := func(name string) string {
		return "apiVersion: v1\nkind: Service\nmetadata: {name: s-" + name + "}\nspec: {ports: [{name: https, port: 443}]}"
	}
	gateway := func(name string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: " + name + "}\nspec: {gatewayClassName: c, listeners: [{name: http, protocol: HTTP, port: 80}]}"
	}
	route := func(gw string, svcs ...string) string {
		var rules []string
		for _, s := range svcs {
			rules = append(rules, "{backendRefs: [{name: s-"+s+", port: 443}]}")
		}
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r-" + gw + "}\nspec: {parentRefs: [{name: " + gw + "}], rules: [" + strings.Join(rules, ", ") + "]}"
	}
	docs := joinDocs(
		"apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: c}\nspec: {controllerName: example.com/c}",
		gateway("gw1"), gateway("gw2"),
		route("gw1", "good", "empty", "nokey", "kind", "missing", "half"),
		route("gw2", "good"),
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ca}\ndata: {ca.crt: x}",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: empty-ca}\ndata: {ca.crt: \"\"}",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: no-key}\ndata: {}",
		service("good"), policy("good", `[{group: "", kind: ConfigMap, name: ca}]`),
		service("empty"), policy("empty", `[{group: "", kind: ConfigMap, name: empty-ca}]`),
		service("nokey"), policy("nokey", `[{group: "", kind: ConfigMap, name: no-key}]`),
		service("kind"), policy("kind", `[{group: invalid.io, kind: InvalidKind, name: x}]`),
		service("missing"), policy("missing", `[{group: "", kind: ConfigMap, name: nowhere}]`),
		service("half"), policy("half", `[{group: "", kind: ConfigMap, name: nowhere}, {group: "", kind: ConfigMap, name: ca}]`),
		service("alone"), policy("alone", `[{group: "", kind: ConfigMap, name: ca}]`),
	)
	for _, prof := range []string{"backendtlspolicy", "backendtlspolicy-gateway-api"} {
		m, err := LoadFiles([]string{"-"}, strings.NewReader(docs), Options{Profiles: []string{prof}})
		if err != nil {
			t.Fatal(err)
		}
		out := m.Run(engine.StickyOverrides, nil)
		want := map[string]string{ // ancestors: conditions
			"good":    "Gateway/default/gw1: Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs; Gateway/default/gw2: Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs",
			"empty":   "Gateway/default/gw1: Accepted=False/NoValidCACertificate ResolvedRefs=False/InvalidCACertificateRef",
			"nokey":   "Gateway/default/gw1: Accepted=False/NoValidCACertificate ResolvedRefs=False/InvalidCACertificateRef",
			"kind":    "Gateway/default/gw1: Accepted=False/NoValidCACertificate ResolvedRefs=False/InvalidKind",
			"missing": "Gateway/default/gw1: Accepted=False/NoValidCACertificate ResolvedRefs=False/InvalidCACertificateRef",
			"half":    "Gateway/default/gw1: Accepted=True/Accepted ResolvedRefs=False/InvalidCACertificateRef",
			"alone":   "",
		}
		for _, p := range out.Policies {
			name := strings.TrimPrefix(p.Ref, "BackendTLSPolicy/default/")
			if got := ancestorsText(p.Ancestors); got != want[name] || p.Ancestors == nil {
				t.Errorf("%s %s: ancestors %q, want %q", prof, name, got, want[name])
			}
			// The policy's own conditions carry ResolvedRefs too.
			c, ok := engine.FindCondition(p.Conditions, "ResolvedRefs")
			if wantTrue := name == "good" || name == "alone"; !ok || (c.Status == "True") != wantTrue {
				t.Errorf("%s %s: policy ResolvedRefs %+v (found %v), want True: %v", prof, name, c, ok, wantTrue)
			}
		}
	}
}

// A core Secret is a Gateway listener's certificate (Gateway API v1
// GatewayTLSConfig.CertificateRefs): input of the Gateway that needs no
// warning, which would name a document's position and so differ with the
// documents' order; a kind nobody defines is still warned about.
func TestListenerCertificateSecretNotWarned(t *testing.T) {
	docs := joinDocs(
		"apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: c}\nspec: {controllerName: example.com/c}",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw}\nspec:\n  gatewayClassName: c\n  listeners:\n  - {name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{kind: Secret, name: cert}]}}",
		"apiVersion: v1\nkind: Secret\nmetadata: {name: cert}\ntype: kubernetes.io/tls\ndata: {tls.crt: eA==, tls.key: eA==}",
		"apiVersion: example.com/v1\nkind: Secret\nmetadata: {name: not-core}",
	)
	m, err := LoadFiles([]string{"-"}, strings.NewReader(docs), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "document 4") || !strings.Contains(m.Warnings[0], "kind Secret ignored") {
		t.Errorf("warnings %q, want one, for document 4 (example.com's Secret) only", m.Warnings)
	}
}

// Status per ancestor under both readings of PolicyAncestorStatus
// (AncestorEntries; Gateway API v1, PolicyAncestorStatus: "implementations
// SHOULD use Gateway as the PolicyAncestorStatus object", its AncestorRef a
// ParentReference that may name a listener). Policy p targets s-x, reached
// through listener l1 only, and s-y, reached through l2 only, where the
// older q wins. Per Gateway: one entry, Accepted (one of its targets
// accepts it). Per listener: l1's entry Accepted, l2's Conflicted; the
// output names the reading.
func TestAncestorEntriesPerListener(t *testing.T) {
	docs := joinDocs(
		"apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: c}\nspec: {controllerName: example.com/c}",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw}\nspec: {gatewayClassName: c, listeners: [{name: l1, protocol: HTTP, port: 80}, {name: l2, protocol: HTTP, port: 8080}]}",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r1}\nspec: {parentRefs: [{name: gw, sectionName: l1}], rules: [{backendRefs: [{name: s-x, port: 443}]}]}",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r2}\nspec: {parentRefs: [{name: gw, sectionName: l2}], rules: [{backendRefs: [{name: s-y, port: 443}]}]}",
		"apiVersion: v1\nkind: Service\nmetadata: {name: s-x}\nspec: {ports: [{name: https, port: 443}]}",
		"apiVersion: v1\nkind: Service\nmetadata: {name: s-y}\nspec: {ports: [{name: https, port: 443}]}",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ca}\ndata: {ca.crt: x}",
		`apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: q, creationTimestamp: "2025-01-01T00:00:00Z"}
spec:
  targetRefs: [{group: "", kind: Service, name: s-y}]
  validation: {hostname: q.example.com, caCertificateRefs: [{group: "", kind: ConfigMap, name: ca}]}`,
		`apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: p, creationTimestamp: "2025-01-02T00:00:00Z"}
spec:
  targetRefs: [{group: "", kind: Service, name: s-x}, {group: "", kind: Service, name: s-y}]
  validation: {hostname: p.example.com, caCertificateRefs: [{group: "", kind: ConfigMap, name: ca}]}`,
	)
	for _, tc := range []struct {
		entries AncestorEntries
		want    string
	}{
		{AncestorsPerGateway, "Gateway/default/gw: Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"},
		{AncestorsPerListener, "Gateway/default/gw#l1: Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs; Gateway/default/gw#l2: Accepted=False/Conflicted"},
	} {
		m, err := LoadFiles([]string{"-"}, strings.NewReader(docs), Options{AncestorEntries: tc.entries})
		if err != nil {
			t.Fatal(err)
		}
		out := m.Run(engine.StickyOverrides, nil)
		if out.AncestorEntries != tc.entries || out.Reading().AncestorEntries != tc.entries {
			t.Errorf("%q: output names ancestor entries %q, reading %q", tc.entries, out.AncestorEntries, out.Reading().AncestorEntries)
		}
		for _, p := range out.Policies {
			if p.Ref != "BackendTLSPolicy/default/p" {
				continue
			}
			if got := ancestorsText(p.Ancestors); got != tc.want {
				t.Errorf("%q: ancestors of p %q, want %q", tc.entries, got, tc.want)
			}
		}
	}
	if _, err := ParseAncestorEntries("section"); err == nil {
		t.Error(`ParseAncestorEntries("section") = nil error`)
	}
}

// ancestorsText writes a policy's status per ancestor as
// "Gateway/ns/name: Type=Status/Reason ...; ...".
func ancestorsText(ancestors []engine.PolicyTarget) string {
	var as []string
	for _, a := range ancestors {
		var cs []string
		for _, c := range a.Conditions {
			cs = append(cs, c.Type+"="+c.Status+"/"+c.Reason)
		}
		as = append(as, a.Ref+": "+strings.Join(cs, " "))
	}
	return strings.Join(as, "; ")
}
