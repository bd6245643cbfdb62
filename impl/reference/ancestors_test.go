package reference

// Tests of the status gepcheck-reference writes for a policy of a kind
// that reports status per ancestor Gateway (Gateway API's PolicyStatus,
// BackendTLSPolicy), against controller-runtime's fake client. The
// expectations are the scenario files' own (expect.policies[].ancestors),
// written from upstream's conformance tests and the API reference they
// cite, never computed by the engine.

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/simulator"
)

// ancestorScenarios are the scenario files whose expectations name the
// ancestor entries of a BackendTLSPolicy (upstream's conformance tests
// among them), but those with a Gateway of another implementation (the
// fake world makes every GatewayClass this controller's).
func ancestorScenarios(t *testing.T) map[string]simulator.Scenario {
	t.Helper()
	files, _ := filepath.Glob("../../scenarios/gateway-api/backendtlspolicy-*.yaml")
	out := map[string]simulator.Scenario{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), simulator.AnnotationOtherImplementation) {
			continue
		}
		var sc simulator.Scenario
		if err := yaml.Unmarshal([]byte(strings.SplitN(string(data), "\n---\n", 2)[0]), &sc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if slices.ContainsFunc(sc.Spec.Expect.Policies, func(p simulator.ExpectedPolicy) bool { return p.Ancestors != nil }) {
			out[f] = sc
		}
	}
	if len(out) < 8 {
		t.Fatalf("%d scenario files with ancestor expectations, want the 8 or more of scenarios/gateway-api/", len(out))
	}
	return out
}

// scenarioIn reads a scenario's objects as the runner applies them, in
// the namespace the file's objects name (default when none), its policies
// too.
func scenarioIn(t *testing.T, file string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ns := "default"
	if i := strings.Index(string(data), "\n  namespace: "); i >= 0 {
		ns = strings.Fields(string(data)[i+len("\n  namespace: "):])[0]
	}
	var out []*unstructured.Unstructured
	for _, o := range scenario(t, file, ns) {
		if o.GetKind() == "Namespace" && slices.ContainsFunc(out, func(x *unstructured.Unstructured) bool { return refOf(x) == refOf(o) }) {
			continue
		}
		if slices.ContainsFunc(Kinds(), func(k schema.GroupVersionKind) bool { return k.Kind == o.GetKind() }) {
			o.SetNamespace(ns)
		}
		out = append(out, o)
	}
	return out
}

// checkAncestors checks the status of every policy sc names ancestors for:
// this controller's entries are exactly one per ancestor Gateway the
// scenario names (Gateway API v1, PolicyStatus.Ancestors: "the status of
// the policy with respect to each ancestor"; PolicyAncestorStatus: "for
// a BackendTLSPolicy ... implementations SHOULD use Gateway as the
// PolicyAncestorStatus object"), each with the conditions it names, for
// a policy rejected whole too (upstream's
// BackendTLSPolicyInvalidCACertificateRef checks Accepted=False and
// ResolvedRefs=False on ancestor Gateway same-namespace); and nothing in
// status.conditions, which Gateway API's PolicyStatus does not have.
func checkAncestors(p *problems, w *world, sc simulator.Scenario) {
	for _, ep := range sc.Spec.Expect.Policies {
		if ep.Ancestors == nil {
			continue
		}
		parts := strings.Split(ep.Ref, "/")
		o := w.get(parts[0] + "/" + parts[1] + "/" + parts[2])
		if c, ok, _ := unstructured.NestedSlice(o.Object, "status", "conditions"); ok {
			p.add("%s: status.conditions %v, which PolicyStatus does not have", ep.Ref, c)
		}
		anc, _, _ := unstructured.NestedSlice(o.Object, "status", "ancestors")
		got := map[string][]any{}
		for _, a := range anc {
			am := a.(map[string]any)
			if am["controllerName"] != ControllerName {
				continue
			}
			ar := am["ancestorRef"].(map[string]any)
			conds, _, _ := unstructured.NestedSlice(am, "conditions")
			got[refString(ar)] = conds
			if ar["group"] != "gateway.networking.k8s.io" || ar["kind"] != "Gateway" {
				p.add("%s: an entry for %v, which is not a Gateway", ep.Ref, ar)
			}
		}
		var want []string
		for _, ea := range ep.Ancestors {
			want = append(want, ea.Ref)
			conds, ok := got[ea.Ref]
			var cs []cond
			for _, c := range ea.Conditions {
				reason := c.Reason
				if reason == "" { // any reason, as the scenario says
					for _, x := range conds {
						if m := x.(map[string]any); m["type"] == c.Type {
							reason = fmt.Sprint(m["reason"])
						}
					}
				}
				cs = append(cs, cond{typ: c.Type, status: c.Status, reason: reason})
			}
			if ok {
				checkConditions(p, ep.Ref+" ancestor "+ea.Ref, conds, o.GetGeneration(), cs...)
			}
		}
		slices.Sort(want)
		if have := slices.Sorted(maps.Keys(got)); !reflect.DeepEqual(have, want) {
			p.add("%s: entries for %v, want %v", ep.Ref, have, want)
		}
	}
}

// TestAncestorsPerGateway: gepcheck-reference writes a BackendTLSPolicy's
// status per ancestor Gateway, as each scenario file states it, on
// HTTPRoutes, GRPCRoutes, TLSRoutes and TCPRoutes (Gateway API v1.6's
// route kinds, which the controller reads), conflicted and rejected
// whole alike.
func TestAncestorsPerGateway(t *testing.T) {
	for f, sc := range ancestorScenarios(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			w := newWorld(t, scenarioIn(t, f), &Controller{})
			w.reconcile()
			var p problems
			checkAncestors(&p, w, sc)
			p.report(t)
		})
	}
}

// TestAncestorsPerTargetCaught: a broken controller that writes an entry
// per target, or per targetRef for a policy rejected whole, as this one
// once did, fails the checks of TestAncestorsPerGateway on every file.
func TestAncestorsPerTargetCaught(t *testing.T) {
	for f, sc := range ancestorScenarios(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			w := newWorld(t, scenarioIn(t, f), &Controller{perTargetAncestors: true})
			w.reconcile()
			var p problems
			checkAncestors(&p, w, sc)
			if len(p) == 0 {
				t.Fatal("the per-target writer passed the checks")
			}
			t.Logf("caught: %s", p[0])
		})
	}
}

// TestAncestorsFull: a BackendTLSPolicy on a Service that 17 Gateways
// reach gets 16 entries (Gateway API v1, PolicyStatus.Ancestors: "A
// maximum of 16 ancestors will be represented in this list"; "If this
// slice is full, implementations MUST NOT add further entries. Instead
// they MUST consider the policy unimplementable and signal that on any
// related resources such as the ancestor that would be referenced
// here"): the 17th Gateway, in name order, has a condition naming it.
func TestAncestorsFull(t *testing.T) {
	objs := scenarioIn(t, "../../suite/incluster/musts/ancestors-limit.yaml")
	w := newWorld(t, objs, &Controller{})
	w.reconcile()
	pol := w.get("BackendTLSPolicy/default/tls-limit-policy")
	anc, _, _ := unstructured.NestedSlice(pol.Object, "status", "ancestors")
	if len(anc) != MaxAncestors {
		t.Fatalf("%d entries, want %d", len(anc), MaxAncestors)
	}
	for i, a := range anc {
		if name := a.(map[string]any)["ancestorRef"].(map[string]any)["name"]; name != fmt.Sprintf("gw-%02d", i+1) {
			t.Errorf("entry %d names %v, want gw-%02d", i, name, i+1)
		}
	}
	var p problems
	conds, _, _ := unstructured.NestedSlice(w.get("Gateway/default/gw-17").Object, "status", "conditions")
	checkConditions(&p, "Gateway/default/gw-17", conds, 1, cond{"gateway.networking.k8s.io/BackendTLSPolicyAffected", "False", "AncestorsFull", "BackendTLSPolicy/default/tls-limit-policy"})
	p.report(t)
}

// TestWatchesHierarchy: the controller watches every kind of the
// hierarchy the simulator builds (Gateway API v1.6: ListenerSet, GEP-1713;
// HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute), so that a change of
// any of them re-reconciles; a cluster that does not serve ListenerSet or
// the TLS, TCP and UDP routes (a Gateway API before v1.5) is served
// without them, and the log says so.
func TestWatchesHierarchy(t *testing.T) {
	c := &Controller{}
	watch, err := c.setup(nil, mapper())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"Gateway", "ListenerSet", "HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute", "Service", "ConfigMap", "ReferenceGrant", "BackendTLSPolicy"} {
		if !contains(kindsOf(watch), k) {
			t.Errorf("not watching %s: %v", k, kindsOf(watch))
		}
		if k != "BackendTLSPolicy" && !contains(kindsOf(c.hierarchy), k) {
			t.Errorf("not reading %s on a reconcile: %v", k, kindsOf(c.hierarchy))
		}
	}
	var logs []string
	m := meta.NewDefaultRESTMapper(nil)
	for gvk, ns := range namespaced {
		if !slices.Contains(optionalKinds, gvk) {
			m.Add(gvk, scope(ns))
		}
	}
	c = &Controller{Log: func(s string) { logs = append(logs, s) }}
	watch, err = c.setup(nil, m)
	if err != nil {
		t.Fatalf("a cluster without ListenerSet, TLSRoute, TCPRoute, UDPRoute: %v", err)
	}
	for _, k := range []string{"ListenerSet", "TLSRoute", "TCPRoute", "UDPRoute"} {
		if contains(kindsOf(watch), k) || contains(kindsOf(c.hierarchy), k) {
			t.Errorf("watching or reading %s, which the cluster does not serve", k)
		}
		if !contains(logs, "not reading "+k+": the cluster does not serve it") {
			t.Errorf("logs %q do not say %s is not read", logs, k)
		}
	}
}

// TestRefusedPolicyAncestors: a BackendTLSPolicy the loader refuses (a
// spec nested more than 100 levels deep, docs/limits.md) is rejected whole
// and reported, like one the engine rejects whole, under the Gateways from
// which a route reaches its targetRefs (Gateway API v1,
// PolicyStatus.Ancestors: "When this policy attaches to a parent, the
// controller that manages the parent and the ancestors MUST add an entry
// to this list"; upstream's BackendTLSPolicyInvalidCACertificateRef checks
// a policy rejected whole on its Gateway): Accepted=False/Invalid on
// Gateway gw, which GRPCRoute g attaches to, and on no Service; the other
// policy is computed as if it were not there.
func TestRefusedPolicyAncestors(t *testing.T) {
	objs := scenarioIn(t, "../../scenarios/gateway-api/backendtlspolicy-grpcroute.yaml")
	deep := map[string]any{}
	for x, i := deep, 0; i < 110; i++ {
		n := map[string]any{}
		x["x"] = n
		x = n
	}
	refused := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "BackendTLSPolicy",
		"metadata": map[string]any{"name": "refused", "namespace": "default", "generation": int64(1)},
		"spec": map[string]any{
			"targetRefs": []any{map[string]any{"group": "", "kind": "Service", "name": "grpc-svc"}},
			"validation": map[string]any{"hostname": "grpc.example.com", "caCertificateRefs": []any{map[string]any{"group": "", "kind": "ConfigMap", "name": "ca"}}},
			"options":    deep,
		},
	}}
	w := newWorld(t, append(objs, refused), &Controller{})
	w.reconcile()
	var p problems
	o := w.get("BackendTLSPolicy/default/refused")
	anc, _, _ := unstructured.NestedSlice(o.Object, "status", "ancestors")
	if len(anc) != 1 {
		t.Fatalf("%d entries %v, want 1 (Gateway gw)", len(anc), anc)
	}
	a := anc[0].(map[string]any)
	if got := refString(a["ancestorRef"].(map[string]any)); got != "Gateway/default/gw" {
		p.add("entry for %s, want Gateway/default/gw", got)
	}
	conds, _, _ := unstructured.NestedSlice(a, "conditions")
	checkConditions(&p, "refused ancestor", conds, 1, cond{"Accepted", "False", "Invalid", "levels deep"})
	if c, ok, _ := unstructured.NestedSlice(o.Object, "status", "conditions"); ok {
		p.add("refused: status.conditions %v, which PolicyStatus does not have", c)
	}
	sc := ancestorScenarios(t)["../../scenarios/gateway-api/backendtlspolicy-grpcroute.yaml"]
	checkAncestors(&p, w, sc)
	p.report(t)
}

// TestAncestorsFullOneConditionPerType: two policies of a kind whose lists
// are full on the same Gateway give it one <Kind>Affected condition naming
// both (Gateway API v1 GatewayStatus.Conditions is a listType=map keyed by
// type: two of a type are refused, and every status write with them).
func TestAncestorsFullOneConditionPerType(t *testing.T) {
	typ := "gateway.networking.k8s.io/BackendTLSPolicyAffected"
	got := ancestorsFull(map[string]map[string][]string{
		"Gateway/default/gw-17": {typ: {"BackendTLSPolicy/default/b", "BackendTLSPolicy/default/a", "BackendTLSPolicy/default/b"}},
	})
	cs := got["Gateway/default/gw-17"]
	if len(got) != 1 || len(cs) != 1 {
		t.Fatalf("conditions %v, want one on gw-17", got)
	}
	if c := cs[0]; c.Type != typ || c.Status != "False" || c.Reason != "AncestorsFull" ||
		!strings.HasPrefix(c.Message, "BackendTLSPolicy/default/a, BackendTLSPolicy/default/b not implemented") {
		t.Errorf("condition %+v, want %s False AncestorsFull naming a and b once each", c, typ)
	}
}
