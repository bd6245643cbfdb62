package reference

// Tests of gepcheck-reference's reconcile against controller-runtime's
// fake client: no cluster needed, so they run under plain go test.
// Expectations are the outcomes the specs state (cited per assertion),
// mostly those of GEP-713's End-to-end examples as the scenario files
// under scenarios/gep-713/ quote them; nothing here is computed by the
// engine under test.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// namespaced lists the kinds the tests use with their scope.
var namespaced = map[schema.GroupVersionKind]bool{
	gvkNamespace: false, gvkGatewayClass: false, gvkObjectFields: false,
	gvkService: true, gvkConfigMap: true, gvkGateway: true, gvkHTTPRoute: true, gvkGRPCRoute: true,
	gvkTLSRoute: true, gvkTCPRoute: true, gvkUDPRoute: true, gvkListenerSet: true,
	gvkReferenceGrant: true, gvkEffectivePolicy: true,
}

// mapper knows the hierarchy's kinds, EffectivePolicy and the policy
// kinds (all of Kinds() unless only is given), as a cluster with
// gepcheck's CRDs installed does.
func mapper(only ...string) meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	for gvk, ns := range namespaced {
		m.Add(gvk, scope(ns))
	}
	for _, gvk := range Kinds() {
		if len(only) == 0 || contains(only, gvk.Kind) {
			m.Add(gvk, meta.RESTScopeNamespace)
		}
	}
	return m
}

func scope(ns bool) meta.RESTScope {
	if ns {
		return meta.RESTScopeNamespace
	}
	return meta.RESTScopeRoot
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// world is a fake cluster with a controller set up against it.
type world struct {
	t      *testing.T
	cl     client.Client
	ctl    *Controller
	writes atomic.Int64 // writes the fake client saw (any create, update, delete, patch)
	logs   []string
}

// newWorld stores objs in a fake client whose kinds have a status
// subresource (as the Gateway API CRDs and gepcheck's open schema
// declare) and sets up a controller on it.
//
// The checks of these tests are written in merged GEP-713's status
// vocabulary ("Status reporting": Programmed, PartiallyProgrammed,
// Overridden), which a controller given none writes; a test of another
// vocabulary sets Controller.Vocabulary.
func newWorld(t *testing.T, objs []*unstructured.Unstructured, ctl *Controller) *world {
	t.Helper()
	w := &world{t: t, ctl: ctl}
	var status []client.Object
	for _, gvk := range append([]schema.GroupVersionKind{gvkNamespace, gvkService, gvkGatewayClass, gvkGateway, gvkHTTPRoute, gvkGRPCRoute, gvkTLSRoute, gvkTCPRoute, gvkUDPRoute, gvkListenerSet}, Kinds()...) {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		status = append(status, u)
	}
	var init []client.Object
	for _, o := range objs {
		init = append(init, o)
	}
	count := func() { w.writes.Add(1) }
	w.cl = fake.NewClientBuilder().
		WithScheme(runtime.NewScheme()).
		WithRESTMapper(mapper()).
		WithStatusSubresource(status...).
		WithObjects(init...).
		WithInterceptorFuncs(interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				count()
				return c.Create(ctx, obj, opts...)
			},
			Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
				count()
				return c.Update(ctx, obj, opts...)
			},
			Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
				count()
				return c.Delete(ctx, obj, opts...)
			},
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
				count()
				return c.Patch(ctx, obj, p, opts...)
			},
			SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
				count()
				return c.SubResource(sub).Update(ctx, obj, opts...)
			},
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
				count()
				return c.SubResource(sub).Patch(ctx, obj, p, opts...)
			},
		}).
		Build()
	ctl.Log = func(s string) { w.logs = append(w.logs, s) }
	if _, err := ctl.setup(w.cl, mapper()); err != nil {
		t.Fatal(err)
	}
	return w
}

// reconcile runs one reconcile, as an event of any watched kind does.
func (w *world) reconcile() {
	w.t.Helper()
	if res := w.reconcileResult(); res.RequeueAfter != 0 {
		w.t.Fatalf("reconcile asked to be requeued: %v", w.logs)
	}
}

func (w *world) reconcileResult() reconcile.Result {
	w.t.Helper()
	res, err := w.ctl.reconcile(context.Background(), reconcile.Request{})
	if err != nil {
		w.t.Fatalf("reconcile: %v", err)
	}
	return res
}

// get reads a stored object: ref is Kind/namespace/name or Kind/name.
func (w *world) get(ref string) *unstructured.Unstructured {
	w.t.Helper()
	parts := strings.Split(ref, "/")
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvkOf(parts[0]))
	key := client.ObjectKey{Name: parts[len(parts)-1]}
	if len(parts) == 3 {
		key.Namespace = parts[1]
	}
	if err := w.cl.Get(context.Background(), key, u); err != nil {
		w.t.Fatalf("get %s: %v", ref, err)
	}
	return u
}

// effective lists the stored EffectivePolicy objects of namespace ns.
func (w *world) effective(ns string) []unstructured.Unstructured {
	w.t.Helper()
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(gvkEffectivePolicy.GroupVersion().WithKind("EffectivePolicyList"))
	if err := w.cl.List(context.Background(), l, client.InNamespace(ns)); err != nil {
		w.t.Fatal(err)
	}
	return l.Items
}

func gvkOf(kind string) schema.GroupVersionKind {
	for gvk := range namespaced {
		if gvk.Kind == kind {
			return gvk
		}
	}
	for _, gvk := range Kinds() {
		if gvk.Kind == kind {
			return gvk
		}
	}
	panic("unknown kind " + kind)
}

// scenario reads the objects of a scenario file as the runner applies
// them (docs/cluster.md, "What a run does"): without the Scenario
// document, in namespace ns (the file's objects name none, which means
// default), with every GatewayClass given this controller's
// controllerName, and with a Namespace object for ns.
func scenario(t *testing.T, file, ns string) []*unstructured.Unstructured {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := []*unstructured.Unstructured{namespace(ns, nil)}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		u := &unstructured.Unstructured{Object: m}
		if len(m) == 0 || u.GetKind() == "Scenario" {
			continue
		}
		if namespaced[u.GroupVersionKind()] || u.GroupVersionKind().Group == "policies.controller.io" {
			u.SetNamespace(ns)
		}
		// What the API server sets: a uid, and generation 1 on creation.
		u.SetUID(types.UID("uid-" + u.GetNamespace() + "-" + u.GetName()))
		u.SetGeneration(1)
		if u.GetKind() == "GatewayClass" {
			_ = unstructured.SetNestedField(u.Object, ControllerName, "spec", "controllerName")
		}
		out = append(out, u)
	}
	return out
}

func namespace(name string, annotations map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvkNamespace)
	u.SetName(name)
	u.SetAnnotations(annotations)
	return u
}

// find returns the object of kind/namespace/name among objs.
func find(objs []*unstructured.Unstructured, ref string) *unstructured.Unstructured {
	for _, o := range objs {
		if refOf(o) == ref {
			return o
		}
	}
	panic("no " + ref)
}

const (
	example1 = "../../scenarios/gep-713/example-1-direct.yaml"
	example2 = "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml"
	// affected is the <Kind>Affected condition of ColorPolicy: GEP-713,
	// Target object status: "MUST be named according to the pattern
	// <metaresource-kind>Affected (e.g. colors.controller.k8s.io/ColorPolicyAffected)",
	// with a domain prefix; ColorPolicy's is its API group
	// (policies.controller.io/v1 in the scenario files; docs/cluster.md:
	// "<group>/<Kind>Affected").
	affected = "policies.controller.io/ColorPolicyAffected"
	// other is a Gateway API controller that is not gepcheck-reference.
	other = "example.com/gateway-controller"
)

// problems collects disagreements with the specs, so that the tests of
// mutants can show the same checks fail.
type problems []string

func (p *problems) add(format string, a ...any) { *p = append(*p, fmt.Sprintf(format, a...)) }

func (p problems) report(t *testing.T) {
	t.Helper()
	for _, s := range p {
		t.Error(s)
	}
}

// cond is an expected condition; message, when set, must be contained.
type cond struct{ typ, status, reason, message string }

// checkConditions checks that got (status conditions as stored) holds
// each of want with observedGeneration gen (none for 0, an object without
// generation: conditions).
func checkConditions(p *problems, where string, got []any, gen int64, want ...cond) {
	for _, w := range want {
		var c map[string]any
		for _, x := range got {
			if m, ok := x.(map[string]any); ok && m["type"] == w.typ {
				c = m
			}
		}
		switch {
		case c == nil:
			p.add("%s: no %s condition in %v", where, w.typ, got)
		case c["status"] != w.status || c["reason"] != w.reason:
			p.add("%s: %s is %v (%v), want %s (%s)", where, w.typ, c["status"], c["reason"], w.status, w.reason)
		case !strings.Contains(fmt.Sprint(c["message"]), w.message):
			p.add("%s: %s message %q does not name %s", where, w.typ, c["message"], w.message)
		case gen == 0 && c["observedGeneration"] != nil:
			p.add("%s: %s observedGeneration %v, want none (the object has no generation)", where, w.typ, c["observedGeneration"])
		case gen != 0 && fmt.Sprint(c["observedGeneration"]) != fmt.Sprint(gen):
			p.add("%s: %s observedGeneration %v, want the object's generation %d", where, w.typ, c["observedGeneration"], gen)
		}
	}
}

// checkPolicy checks a policy's aggregated conditions (status.conditions)
// and its one ancestor (status.ancestors: GEP-713's
// PolicyAncestorStatus, ancestorRef plus this controller's name; GEP-713,
// Status needs to be namespaced by implementation).
func checkPolicy(p *problems, w *world, ref, ancestor string, want ...cond) {
	o := w.get(ref)
	gen := o.GetGeneration()
	got, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	checkConditions(p, ref+" status.conditions", got, gen, want...)
	anc, _, _ := unstructured.NestedSlice(o.Object, "status", "ancestors")
	if len(anc) != 1 {
		p.add("%s: %d ancestors, want 1 (%s)", ref, len(anc), ancestor)
		return
	}
	a := anc[0].(map[string]any)
	parts := strings.Split(ancestor, "/")
	group := "gateway.networking.k8s.io"
	if parts[0] == "Service" {
		group = ""
	}
	wantRef := map[string]any{"group": group, "kind": parts[0], "namespace": parts[1], "name": parts[2]}
	if !reflect.DeepEqual(a["ancestorRef"], wantRef) {
		p.add("%s: ancestorRef %v, want %v", ref, a["ancestorRef"], wantRef)
	}
	if a["controllerName"] != ControllerName {
		p.add("%s: ancestor controllerName %v, want %s", ref, a["controllerName"], ControllerName)
	}
	got, _, _ = unstructured.NestedSlice(a, "conditions")
	checkConditions(p, ref+" ancestor "+ancestor, got, gen, want...)
}

// checkAffected checks the <Kind>Affected condition in status.conditions
// of a Gateway or Service: True, observedGeneration the object's
// generation ("SHOULD include an observedGeneration field kept up to date
// when the spec of the target object changes"), naming the policies.
func checkAffected(p *problems, w *world, ref string, by []string, notBy ...string) {
	o := w.get(ref)
	got, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, b := range by {
		checkConditions(p, ref, got, o.GetGeneration(), cond{affected, "True", "Affected", b})
	}
	for _, x := range got {
		if m := x.(map[string]any); m["type"] == affected {
			for _, n := range notBy {
				if strings.Contains(fmt.Sprint(m["message"]), n) {
					p.add("%s: %s names %s, which does not affect it: %v", ref, affected, n, m["message"])
				}
			}
		}
	}
}

// checkNotAffected: no <Kind>Affected condition on ref.
func checkNotAffected(p *problems, w *world, ref string) {
	got, _, _ := unstructured.NestedSlice(w.get(ref).Object, "status", "conditions")
	for _, x := range got {
		if m := x.(map[string]any); m["type"] == affected {
			p.add("%s: has %s %v, want none", ref, affected, m)
		}
	}
}

// path is an expected path of an EffectivePolicy.
type path struct {
	path       []string
	color      string
	provenance string
}

// checkEffective checks the EffectivePolicy of ColorPolicy for Service
// svc in ns: labelled and owned as docs/cluster.md says, holding exactly
// the paths want (path, effective spec, provenance of color).
func checkEffective(p *problems, w *world, ns, svc string, want ...path) {
	var e *unstructured.Unstructured
	for _, x := range w.effective(ns) {
		kind, _, _ := unstructured.NestedString(x.Object, "spec", "targetRef", "kind")
		name, _, _ := unstructured.NestedString(x.Object, "spec", "targetRef", "name")
		pk, _, _ := unstructured.NestedString(x.Object, "spec", "policyKind")
		if kind == "Service" && name == svc && pk == "ColorPolicy" {
			e = x.DeepCopy()
		}
	}
	if e == nil {
		if len(want) > 0 {
			p.add("no EffectivePolicy of ColorPolicy for Service %s/%s", ns, svc)
		}
		return
	}
	if len(want) == 0 {
		p.add("EffectivePolicy %s/%s for Service %s, want none", ns, e.GetName(), svc)
		return
	}
	if e.GetLabels()[LabelManagedBy] != "gepcheck-reference" {
		p.add("EffectivePolicy %s: labels %v", e.GetName(), e.GetLabels())
	}
	owners := e.GetOwnerReferences()
	if len(owners) != 1 || owners[0].Kind != "Service" || owners[0].Name != svc || owners[0].UID != w.get("Service/"+ns+"/"+svc).GetUID() {
		p.add("EffectivePolicy %s: owners %v, want Service %s", e.GetName(), owners, svc)
	}
	paths, _, _ := unstructured.NestedSlice(e.Object, "spec", "paths")
	if len(paths) != len(want) {
		p.add("EffectivePolicy for %s: %d paths, want %d: %v", svc, len(paths), len(want), paths)
	}
	for _, wp := range want {
		var got map[string]any
		for _, x := range paths {
			if m := x.(map[string]any); fmt.Sprint(m["path"]) == fmt.Sprint(toAny(wp.path)) {
				got = m
			}
		}
		if got == nil {
			p.add("EffectivePolicy for %s: no path %v", svc, wp.path)
			continue
		}
		if c, _, _ := unstructured.NestedString(got, "spec", "color"); c != wp.color {
			p.add("path %v: color %q, want %q", wp.path, c, wp.color)
		}
		if c, _, _ := unstructured.NestedString(got, "provenance", "color"); c != wp.provenance {
			p.add("path %v: color from %q, want %q", wp.path, c, wp.provenance)
		}
	}
}

// example2 is GEP-713 Example 2 in namespace ns, with generations that
// differ from 1 (so observedGeneration is checked for real) and status
// another controller wrote on g1 and r1.
func example2Objects(t *testing.T, ns string) []*unstructured.Unstructured {
	objs := scenario(t, example2, ns)
	for i, n := range []string{"p1", "p2", "p3", "p4"} {
		find(objs, "ColorPolicy/"+ns+"/"+n).SetGeneration(int64(2 + i))
	}
	find(objs, "Gateway/"+ns+"/g1").SetGeneration(7)
	find(objs, "Service/"+ns+"/b2").SetGeneration(3)
	g1 := find(objs, "Gateway/"+ns+"/g1")
	g1.Object["status"] = map[string]any{"conditions": []any{programmed()}}
	r1 := find(objs, "HTTPRoute/"+ns+"/r1")
	r1.Object["status"] = map[string]any{"parents": []any{otherParent()}}
	return objs
}

func programmed() map[string]any {
	return map[string]any{"type": "Programmed", "status": "True", "reason": "Programmed", "message": "by the Gateway's own controller", "observedGeneration": int64(7), "lastTransitionTime": "2024-01-01T00:00:00Z"}
}

func otherParent() map[string]any {
	return map[string]any{
		"parentRef":      map[string]any{"name": "g1"},
		"controllerName": other,
		"conditions":     []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted", "message": "", "observedGeneration": int64(1), "lastTransitionTime": "2024-01-01T00:00:00Z"}},
	}
}

// checkExample2 checks the outcome GEP-713, End-to-end examples,
// Example 2. Defaults & Overrides states (quoted per check; the same
// text is in the scenario file's expect) for the objects of
// example2Objects in ns.
func checkExample2(w *world, ns string) problems {
	var p problems
	P := func(n string) string { return "ColorPolicy/" + ns + "/" + n }
	accepted := cond{"Accepted", "True", "Accepted", ""}
	// "Status of ColorPolicy p1 must be reported as partially enforced,
	// due to in some cases beaten by p2."
	checkPolicy(&p, w, P("p1"), "Gateway/"+ns+"/g1", accepted, cond{"Programmed", "True", "PartiallyProgrammed", P("p2")})
	// "Status of ColorPolicy p2 must be reported as enforced."
	checkPolicy(&p, w, P("p2"), "HTTPRoute/"+ns+"/r1", accepted, cond{"Programmed", "True", "Programmed", ""})
	// "Status of ColorPolicy p3 must be reported as enforced."
	checkPolicy(&p, w, P("p3"), "Gateway/"+ns+"/g2", accepted, cond{"Programmed", "True", "Programmed", ""})
	// "Status of ColorPolicy p4 must be reported as NOT enforced, due to
	// being overridden by ColorPolicy p3." (GEP-713, Policy status:
	// "Overridden: the policy's spec is known to have been fully
	// overridden by other specs. The status should include the references
	// to the other related policies.")
	checkPolicy(&p, w, P("p4"), "HTTPRoute/"+ns+"/r4", accepted, cond{"Programmed", "False", "Overridden", P("p3")})

	// "Status of Backend b1 should be reported as affected by the
	// ColorPolicy resources p1, p2 and p3."
	checkAffected(&p, w, "Service/"+ns+"/b1", []string{P("p1"), P("p2"), P("p3")}, P("p4"))
	// "Status of Backend b2 should be reported as affected by the
	// ColorPolicy resource p3."
	checkAffected(&p, w, "Service/"+ns+"/b2", []string{P("p3")}, P("p1"), P("p2"), P("p4"))
	// GEP-713, Target object status: a Gateway "targeted by a ...
	// ColorPolicy ... with status Programmed or PartiallyProgrammed. The
	// controller SHOULD add to the status of the Gateway object a
	// condition colors.controller.k8s.io/ColorPolicyAffected: true, and
	// reason ideally referring to the policy ... by name": g1 (p1,
	// partially programmed) and g2 (p3, programmed).
	checkAffected(&p, w, "Gateway/"+ns+"/g1", []string{P("p1")})
	checkAffected(&p, w, "Gateway/"+ns+"/g2", []string{P("p3")})
	// Status needs to be namespaced by implementation: the Gateway
	// controller's own condition on g1 is kept as it was.
	if got, _, _ := unstructured.NestedSlice(w.get("Gateway/"+ns+"/g1").Object, "status", "conditions"); len(got) == 0 || !reflect.DeepEqual(normalize(got[0].(map[string]any)), normalize(programmed())) {
		p.add("Gateway %s/g1: the other controller's Programmed condition was changed: %v", ns, got)
	}
	// Routes: "In Gateway API's Route Parent status, parentRef plus the
	// controller name have been used for this" (Status needs to be
	// namespaced by implementation). r1 is targeted by p2 (enforced): one
	// entry of this controller for its parentRef, with the condition; the
	// other controller's entry for the same parentRef unchanged.
	r1 := w.get("HTTPRoute/" + ns + "/r1")
	parents, _, _ := unstructured.NestedSlice(r1.Object, "status", "parents")
	var mine []map[string]any
	for _, x := range parents {
		m := x.(map[string]any)
		switch m["controllerName"] {
		case ControllerName:
			mine = append(mine, m)
		case other:
			if !reflect.DeepEqual(normalize(m), normalize(otherParent())) {
				p.add("HTTPRoute r1: the other controller's parent status was changed: %v", m)
			}
		}
	}
	if len(parents) != 2 || len(mine) != 1 {
		p.add("HTTPRoute r1: parents %v, want the other controller's and one of %s", parents, ControllerName)
	} else {
		if !reflect.DeepEqual(mine[0]["parentRef"], map[string]any{"name": "g1"}) {
			p.add("HTTPRoute r1: parentRef %v, want r1's own parentRef {name: g1}", mine[0]["parentRef"])
		}
		got, _, _ := unstructured.NestedSlice(mine[0], "conditions")
		checkConditions(&p, "HTTPRoute r1 parent g1", got, r1.GetGeneration(), cond{affected, "True", "Affected", P("p2")})
	}

	// Effective policies (the Kuadrant RFC's read-only EffectivePolicy
	// per affected object), the paths of GEP-713 Example 2:
	checkEffective(&p, w, ns, "b1",
		// "g1 > r1 > b1 must be colored blue (more specific p2 spec beats
		// less specific defaults at p1)."
		path{[]string{"Gateway/" + ns + "/g1", "HTTPRoute/" + ns + "/r1", "Service/" + ns + "/b1"}, "blue", P("p2")},
		// "g1 > r2 > b1 must be colored red (implicit defaults specified
		// at p1 not replaced by any other policy)."
		path{[]string{"Gateway/" + ns + "/g1", "HTTPRoute/" + ns + "/r2", "Service/" + ns + "/b1"}, "red", P("p1")},
		// "g2 > r3 > b1 must be colored yellow (overrides specified at p3
		// not replaced by any other policy)."
		path{[]string{"Gateway/" + ns + "/g2", "HTTPRoute/" + ns + "/r3", "Service/" + ns + "/b1"}, "yellow", P("p3")})
	checkEffective(&p, w, ns, "b2",
		// "g2 > r4 > b2 must be colored yellow (overrides specified at p3
		// beats more specific policy p4)."
		path{[]string{"Gateway/" + ns + "/g2", "HTTPRoute/" + ns + "/r4", "Service/" + ns + "/b2"}, "yellow", P("p3")})
	return p
}

func TestExample2(t *testing.T) {
	w := newWorld(t, example2Objects(t, "default"), &Controller{})
	w.reconcile()
	checkExample2(w, "default").report(t)
}

// TestExample2CatchesMutants: the checks of TestExample2 fail for a
// controller that runs a deliberately broken engine, injected through
// the Simulate hook (the production controller runs the reference
// engine; only tests and the hidden --mutant flag set the hook).
func TestExample2CatchesMutants(t *testing.T) {
	for _, tc := range []struct {
		mutant engine.Mutant
		// a problem that must be among those found
		want string
	}{
		// Overrides merged as defaults: p4 beats p3 on g2 > r4 > b2
		// ("overrides specified at p3 beats more specific policy p4").
		{engine.MutantOverridesAsDefaults, `path [Gateway/default/g2 HTTPRoute/default/r4 Service/default/b2]: color "green", want "yellow"`},
		// Every policy on a path Enforced: p4 is not reported Overridden.
		{engine.MutantAlwaysEnforced, "ColorPolicy/default/p4 status.conditions: Programmed is True"},
		// Configured with merged GEP-713's vocabulary, it writes the
		// draft's: no Programmed where merged GEP-713's is due.
		{"other-vocabulary", "ColorPolicy/default/p1 status.conditions: no Programmed condition"},
	} {
		t.Run(string(tc.mutant), func(t *testing.T) {
			ctl := &Controller{Simulate: func(m *simulator.Model, sem engine.Semantics) *simulator.Output { return m.RunMutant(sem, tc.mutant) }}
			if tc.mutant == "other-vocabulary" {
				ctl.Simulate = otherVocabulary(nil)
			}
			w := newWorld(t, example2Objects(t, "default"), ctl)
			w.reconcile()
			p := checkExample2(w, "default")
			found := false
			for _, s := range p {
				found = found || strings.HasPrefix(s, tc.want)
			}
			if !found {
				t.Errorf("mutant %s: the checks found %d problem(s) %q, want one starting %q", tc.mutant, len(p), p, tc.want)
			}
			t.Logf("mutant %s caught: %s", tc.mutant, strings.Join(p, "; "))
		})
	}
}

// otherVocabulary is a broken engine that computes with simulate (the
// reference engine when nil) and writes every policy condition in the
// other status vocabulary than the model's: GEP-713 as merged upstream
// ("Status reporting": Programmed, PartiallyProgrammed) for its draft's
// (Policy status: Enforced, PartiallyEnforced), and back; Overridden is a
// reason of both. Swapping both ways keeps it broken whatever the engine
// writes for a vocabulary.
func otherVocabulary(simulate func(*simulator.Model, engine.Semantics) *simulator.Output) func(*simulator.Model, engine.Semantics) *simulator.Output {
	swap := map[string]string{"Enforced": "Programmed", "Programmed": "Enforced", "PartiallyEnforced": "PartiallyProgrammed", "PartiallyProgrammed": "PartiallyEnforced"}
	swapAll := func(cs []engine.Condition) {
		for i, c := range cs {
			if to, ok := swap[c.Type]; ok {
				cs[i].Type = to
				if r, ok := swap[c.Reason]; ok {
					cs[i].Reason = r
				}
			}
		}
	}
	return func(m *simulator.Model, sem engine.Semantics) *simulator.Output {
		var out *simulator.Output
		if simulate != nil {
			out = simulate(m, sem)
		} else {
			out = m.Run(sem, nil)
		}
		for _, p := range out.Policies {
			swapAll(p.Conditions)
			for _, tg := range p.Targets {
				swapAll(tg.Conditions)
			}
		}
		return out
	}
}

// gepcheck-reference computes every model in the status vocabulary it is
// configured with (--status-vocabulary; GEP-713 as merged upstream,
// "Status reporting", or its draft), whatever the engine then writes.
func TestControllerVocabulary(t *testing.T) {
	for _, v := range []engine.Vocabulary{engine.VocabularyMerged, engine.VocabularyDraft} {
		var seen []engine.Vocabulary
		ctl := &Controller{Vocabulary: v, Simulate: func(m *simulator.Model, sem engine.Semantics) *simulator.Output {
			seen = append(seen, m.Vocabulary)
			return m.Run(sem, nil)
		}}
		w := newWorld(t, example2Objects(t, "default"), ctl)
		w.reconcile()
		if len(seen) == 0 {
			t.Fatalf("%s: the controller computed nothing", v)
		}
		for _, got := range seen {
			if got != v {
				t.Errorf("configured with %s, a model was computed in %q", v, got)
			}
		}
	}
	if c := (&Controller{}); func() error { _, err := c.setup(nil, mapper("ColorPolicy")); return err }() != nil || c.Vocabulary != engine.VocabularyMerged {
		t.Errorf("default vocabulary %q, want merged", c.Vocabulary)
	}
}

// TestSettledStateWritesNothing: docs/cluster.md, Fanout ("a status or
// EffectivePolicy is written only when its computed value differs from
// the stored one"). A second reconcile of the same objects writes
// nothing, by the controller's count (Writes) and by the client's; a
// change of a policy is written, with the new observedGeneration, and
// lastTransitionTime kept where a condition's status stayed (metav1.Condition:
// "the last time the condition transitioned from one status to another").
func TestSettledStateWritesNothing(t *testing.T) {
	w := newWorld(t, example2Objects(t, "default"), &Controller{})
	w.reconcile()
	if w.ctl.Writes() == 0 || w.writes.Load() == 0 {
		t.Fatalf("first reconcile wrote nothing (controller %d, client %d)", w.ctl.Writes(), w.writes.Load())
	}
	ltt := func() string {
		cs, _, _ := unstructured.NestedSlice(w.get("ColorPolicy/default/p2").Object, "status", "conditions")
		for _, c := range cs {
			if m := c.(map[string]any); m["type"] == "Programmed" {
				return fmt.Sprint(m["lastTransitionTime"])
			}
		}
		return ""
	}
	ctlWrites, clientWrites := w.ctl.Writes(), w.writes.Load()
	w.reconcile()
	if d := w.ctl.Writes() - ctlWrites; d != 0 {
		t.Errorf("settled state: the controller counted %d write(s), want 0", d)
	}
	if d := w.writes.Load() - clientWrites; d != 0 {
		t.Errorf("settled state: the client saw %d write(s), want 0", d)
	}
	checkExample2(w, "default").report(t)

	// p2's Enforced became True long ago (so that a rewrite within the
	// same second cannot pass for a kept lastTransitionTime).
	const long = "2024-01-01T00:00:00Z"
	p2 := w.get("ColorPolicy/default/p2")
	cs, _, _ := unstructured.NestedSlice(p2.Object, "status", "conditions")
	for _, c := range cs {
		c.(map[string]any)["lastTransitionTime"] = long
	}
	_ = unstructured.SetNestedSlice(p2.Object, cs, "status", "conditions")
	if err := w.cl.Status().Update(context.Background(), p2); err != nil {
		t.Fatal(err)
	}
	// p2 turns green (generation 9): g1 > r1 > b1 is green now, the
	// more specific p2 still beating p1's defaults (GEP-713 Example 2).
	p2 = w.get("ColorPolicy/default/p2")
	_ = unstructured.SetNestedField(p2.Object, "green", "spec", "color")
	p2.SetGeneration(9)
	if err := w.cl.Update(context.Background(), p2); err != nil {
		t.Fatal(err)
	}
	ctlWrites = w.ctl.Writes()
	w.reconcile()
	if w.ctl.Writes() == ctlWrites {
		t.Errorf("a changed policy caused no write")
	}
	var p problems
	checkPolicy(&p, w, "ColorPolicy/default/p2", "HTTPRoute/default/r1", cond{"Accepted", "True", "Accepted", ""}, cond{"Programmed", "True", "Programmed", ""})
	checkEffective(&p, w, "default", "b1",
		path{[]string{"Gateway/default/g1", "HTTPRoute/default/r1", "Service/default/b1"}, "green", "ColorPolicy/default/p2"},
		path{[]string{"Gateway/default/g1", "HTTPRoute/default/r2", "Service/default/b1"}, "red", "ColorPolicy/default/p1"},
		path{[]string{"Gateway/default/g2", "HTTPRoute/default/r3", "Service/default/b1"}, "yellow", "ColorPolicy/default/p3"})
	p.report(t)
	if after := ltt(); after != long {
		t.Errorf("p2 Programmed stayed True, yet lastTransitionTime went from %q to %q", long, after)
	}
}

// example1Objects is GEP-713 Example 1 (Direct policy) in ns: "p2 is
// newer" (the scenario's description), one second after p1, as the API
// server's creationTimestamps would have it.
func example1Objects(t *testing.T, ns string) []*unstructured.Unstructured {
	objs := scenario(t, example1, ns)
	find(objs, "ColorPolicy/"+ns+"/p1").Object["metadata"].(map[string]any)["creationTimestamp"] = "2024-01-01T00:00:00Z"
	find(objs, "ColorPolicy/"+ns+"/p2").Object["metadata"].(map[string]any)["creationTimestamp"] = "2024-01-01T00:00:01Z"
	return objs
}

// checkExample1 checks GEP-713, End-to-end examples, Example 1. Direct
// Policy, computed with the color-direct profile, in ns.
func checkExample1(w *world, ns string) problems {
	var p problems
	P := func(n string) string { return "ColorPolicy/" + ns + "/" + n }
	// "Status of ColorPolicy p1 must be reported as enforced."
	checkPolicy(&p, w, P("p1"), "Service/"+ns+"/b1", cond{"Accepted", "True", "Accepted", ""}, cond{"Programmed", "True", "Programmed", ""})
	// "Status of ColorPolicy p2 must be reported as NOT enforced, due to
	// conflict with ColorPolicy p1." With merge strategy None "the
	// Accepted status condition of the policy SHOULD be set to false"
	// (GEP-713, Conflict resolution).
	checkPolicy(&p, w, P("p2"), "Service/"+ns+"/b1", cond{"Accepted", "False", "Conflicted", P("p1")})
	// "Status of Backend b1 should be reported as affected by the
	// ColorPolicy p1."
	checkAffected(&p, w, "Service/"+ns+"/b1", []string{P("p1")}, P("p2"))
	// "Status of Backend b2 should NOT be reported as affected by any
	// policy."
	checkNotAffected(&p, w, "Service/"+ns+"/b2")
	// "All traffic directed to Backend b1 must be colored red."
	checkEffective(&p, w, ns, "b1", path{[]string{"Service/" + ns + "/b1"}, "red", P("p1")})
	checkEffective(&p, w, ns, "b2")
	return p
}

// without drops the cluster-scoped objects (a second scenario in the same
// cluster shares the first one's GatewayClass).
func without(objs []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() != kind {
			out = append(out, o)
		}
	}
	return out
}

// TestNamespaceProfiles: a namespace annotated gepcheck.dev/profiles is
// computed with the profiles it names, the others with the default ones
// (docs/cluster.md, Profiles per namespace). Example 1 needs ColorPolicy
// as a Direct policy on Services (color-direct), Example 2 as an
// Inherited one on Gateways and Routes (color-inherited, a default
// profile): each namespace has its spec outcome only if it is computed
// with its own profile.
func TestNamespaceProfiles(t *testing.T) {
	objs := example2Objects(t, "default")
	direct := without(example1Objects(t, "direct"), "GatewayClass")
	direct[0].SetAnnotations(map[string]string{AnnotationProfiles: "color-direct"})
	w := newWorld(t, append(objs, direct...), &Controller{})
	w.reconcile()
	checkExample2(w, "default").report(t)
	checkExample1(w, "direct").report(t)
}

// TestLeftOut: an object the loader refuses is left out, a policy among
// them gets Accepted=False with the loader's message, and the rest of its
// group is computed (docs/limits.md, "What going over a limit does").
func TestLeftOut(t *testing.T) {
	// An HTTPRoute that does not decode (a field HTTPRoute has not).
	broken := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
		"metadata": map[string]any{"name": "broken", "namespace": "a"},
		"spec":     map[string]any{"parentRefs": []any{map[string]any{"name": "g1"}}, "bogus": true},
	}}
	a := example1Objects(t, "a")
	b := without(example1Objects(t, "b"), "GatewayClass")
	a[0].SetAnnotations(map[string]string{AnnotationProfiles: "color-direct"})
	b[0].SetAnnotations(map[string]string{AnnotationProfiles: "color-direct"})
	w := newWorld(t, append(append(a, broken), b...), &Controller{})
	w.reconcile()
	if len(w.logs) != 1 || !strings.Contains(w.logs[0], "HTTPRoute/a/broken left out: field spec.bogus: unknown field") {
		t.Errorf("logs %q, want one line naming the route left out and why", w.logs)
	}
	checkExample1(w, "a").report(t)
	checkExample1(w, "b").report(t)
}

// TestLimits: policies over a limit get Accepted=False naming the limit,
// and every other policy is computed as if they were not there: Kuadrant
// RFC Example E2 with gw-policy's condition over --max-cel-cost and
// deep-policy over --max-depth leaves route-policy alone on the route.
func TestLimits(t *testing.T) {
	w := newWorld(t, scenario(t, "testdata/limits.yaml", "default"), &Controller{})
	w.reconcile()
	var p problems
	for _, c := range []struct{ ref, msg string }{
		{"RateLimitPolicy/default/gw-policy", "spec.overrides.when: estimated worst-case CEL cost"},
		{"RateLimitPolicy/default/deep-policy", "nested more than 100 levels deep"},
	} {
		got, _, _ := unstructured.NestedSlice(w.get(c.ref).Object, "status", "conditions")
		checkConditions(&p, c.ref, got, 1, cond{"Accepted", "False", "Invalid", c.msg})
	}
	got, _, _ := unstructured.NestedSlice(w.get("RateLimitPolicy/default/route-policy").Object, "status", "conditions")
	checkConditions(&p, "route-policy", got, 1, cond{"Accepted", "True", "Accepted", ""}, cond{"Programmed", "True", "Programmed", ""})
	p.report(t)
	if len(w.logs) != 0 {
		t.Errorf("logs %q: policies over a limit are status, not errors", w.logs)
	}

	// A limit that names no object (the hierarchy's paths) rejects every
	// policy of the group that goes over it, and only those: Example 1
	// (under 20 path prefixes) in its own partition is computed.
	ex2 := example2Objects(t, "big")
	ex2[0].SetAnnotations(map[string]string{AnnotationPartition: "1"})
	ex1 := without(example1Objects(t, "small"), "GatewayClass")
	ex1[0].SetAnnotations(map[string]string{AnnotationProfiles: "color-direct", AnnotationPartition: "2"})
	w = newWorld(t, append(ex2, ex1...), &Controller{Limits: load.Limits{MaxPaths: 20}})
	w.reconcile()
	p = nil
	for _, n := range []string{"p1", "p2", "p3", "p4"} {
		o := w.get("ColorPolicy/big/" + n)
		got, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
		checkConditions(&p, refOf(o), got, o.GetGeneration(), cond{"Accepted", "False", "Invalid", "--max-paths"})
	}
	p.report(t)
	checkExample1(w, "small").report(t)
}

// TestOtherControllersGatewayClass: Gateways of a GatewayClass of another
// controller are not this controller's (GEP-713, Status needs to be
// namespaced by implementation; Gateway API's RouteStatus.Parents:
// implementations "can only populate Route status for the
// Gateways/parent resources they are responsible for"): in Example 2
// with g2 of such a class, nothing under g2 gets status or an
// EffectivePolicy from it, and the g1 half keeps the outcome GEP-713
// states for it.
func TestOtherControllersGatewayClass(t *testing.T) {
	objs := example2Objects(t, "default")
	theirs := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass",
		"metadata": map[string]any{"name": "theirs"},
		"spec":     map[string]any{"controllerName": other},
	}}
	_ = unstructured.SetNestedField(find(objs, "Gateway/default/g2").Object, "theirs", "spec", "gatewayClassName")
	// r1 is attached to g2 as well.
	_ = unstructured.SetNestedSlice(find(objs, "HTTPRoute/default/r1").Object, []any{map[string]any{"name": "g1"}, map[string]any{"name": "g2"}}, "spec", "parentRefs")
	w := newWorld(t, append(objs, theirs), &Controller{})
	w.reconcile()

	var p problems
	P := func(n string) string { return "ColorPolicy/default/" + n }
	accepted := cond{"Accepted", "True", "Accepted", ""}
	// g1 > r1 > b1 blue (p2), g1 > r2 > b1 red (p1): p1 partially
	// enforced, p2 enforced (GEP-713 Example 2).
	checkPolicy(&p, w, P("p1"), "Gateway/default/g1", accepted, cond{"Programmed", "True", "PartiallyProgrammed", P("p2")})
	checkPolicy(&p, w, P("p2"), "HTTPRoute/default/r1", accepted, cond{"Programmed", "True", "Programmed", ""})
	checkAffected(&p, w, "Gateway/default/g1", []string{P("p1")})
	checkAffected(&p, w, "Service/default/b1", []string{P("p1"), P("p2")}, P("p3"), P("p4"))
	checkEffective(&p, w, "default", "b1",
		path{[]string{"Gateway/default/g1", "HTTPRoute/default/r1", "Service/default/b1"}, "blue", P("p2")},
		path{[]string{"Gateway/default/g1", "HTTPRoute/default/r2", "Service/default/b1"}, "red", P("p1")})
	// r1 (targeted by p2) has a parent entry of this controller for g1,
	// none for g2.
	parents, _, _ := unstructured.NestedSlice(w.get("HTTPRoute/default/r1").Object, "status", "parents")
	var mine []any
	for _, x := range parents {
		if m := x.(map[string]any); m["controllerName"] == ControllerName {
			mine = append(mine, m["parentRef"])
		}
	}
	if !reflect.DeepEqual(mine, []any{map[string]any{"name": "g1"}}) {
		p.add("HTTPRoute r1: this controller's parent entries are for %v, want g1 only", mine)
	}
	// Nothing of this controller's under g2.
	checkNotAffected(&p, w, "Gateway/default/g2")
	checkNotAffected(&p, w, "Service/default/b2")
	checkEffective(&p, w, "default", "b2")
	for _, r := range []string{"HTTPRoute/default/r3", "HTTPRoute/default/r4"} {
		parents, _, _ := unstructured.NestedSlice(w.get(r).Object, "status", "parents")
		if len(parents) > 0 {
			p.add("%s: parent status %v, for a Gateway of another controller", r, parents)
		}
	}
	for _, gc := range []string{"GatewayClass/example", "GatewayClass/theirs"} {
		if st, ok := w.get(gc).Object["status"]; ok {
			p.add("%s: status %v written", gc, st)
		}
	}
	// p3 targets g2 and p4 r4, attached to g2 only: their ancestors are
	// the other controller's, and Gateway API's PolicyStatus says
	// "implementations MUST ONLY populate ancestor status for the Ancestor
	// resources they are responsible for" (sigs.k8s.io/gateway-api
	// v1.6.3, apis/v1/policy_types.go); nor is g2 "not found".
	for _, n := range []string{"p3", "p4"} {
		if st, ok := w.get(P(n)).Object["status"]; ok {
			p.add("%s: status %v, though its only target is under another controller's Gateway", P(n), st)
		}
	}
	p.report(t)
}

// TestDeletesOnlyItsOwn: the controller deletes only EffectivePolicy
// objects labelled app.kubernetes.io/managed-by=gepcheck-reference that
// it no longer computes (docs/cluster.md, Effective policies); others',
// and every object of the hierarchy, stay.
func TestDeletesOnlyItsOwn(t *testing.T) {
	ep := func(name string, labels map[string]string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"policyKind": "ColorPolicy"}}}
		u.SetGroupVersionKind(gvkEffectivePolicy)
		u.SetNamespace("default")
		u.SetName(name)
		u.SetLabels(labels)
		return u
	}
	objs := append(example2Objects(t, "default"),
		ep("hand-made", nil),
		ep("someone-elses", map[string]string{LabelManagedBy: "someone-else"}),
		ep("stale", map[string]string{LabelManagedBy: "gepcheck-reference"}))
	w := newWorld(t, objs, &Controller{})
	w.reconcile()
	names := map[string]bool{}
	for _, e := range w.effective("default") {
		names[e.GetName()] = true
	}
	for _, n := range []string{"hand-made", "someone-elses"} {
		if !names[n] {
			t.Errorf("EffectivePolicy %s, not the controller's, was deleted", n)
		}
	}
	if names["stale"] {
		t.Errorf("EffectivePolicy stale, labelled as the controller's and not computed, was kept")
	}
	for _, o := range objs {
		if o.GetKind() != "EffectivePolicy" {
			w.get(refOf(o)) // fails the test when gone
		}
	}
}

// TestSetup: policy kinds whose CRD is missing are not served (and
// logged); a missing kind of the hierarchy is an error.
func TestSetup(t *testing.T) {
	var logs []string
	c := &Controller{Log: func(s string) { logs = append(logs, s) }}
	watch, err := c.setup(nil, mapper("ColorPolicy"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.policy) != 1 || c.policy[0].Kind != "ColorPolicy" || !contains(kindsOf(watch), "ColorPolicy") || contains(kindsOf(watch), "AuthPolicy") {
		t.Errorf("served %v, watching %v; want ColorPolicy only", c.policy, watch)
	}
	if !contains(logs, "not serving AuthPolicy: its CRD is not installed") {
		t.Errorf("logs %q do not say AuthPolicy is not served", logs)
	}
	if c.Semantics != engine.StickyOverrides || !reflect.DeepEqual(c.Profiles, DefaultProfiles) {
		t.Errorf("defaults: semantics %q, profiles %v", c.Semantics, c.Profiles)
	}
	m := meta.NewDefaultRESTMapper(nil)
	for gvk, ns := range namespaced {
		if gvk != gvkGateway {
			m.Add(gvk, scope(ns))
		}
	}
	if _, err := (&Controller{}).setup(nil, m); err == nil || !strings.Contains(err.Error(), "Gateway is not served by the cluster") {
		t.Errorf("without Gateway: %v, want an error naming it", err)
	}
}

func kindsOf(gvks []schema.GroupVersionKind) []string {
	var out []string
	for _, g := range gvks {
		out = append(out, g.Kind)
	}
	return out
}

// An object no longer affected loses its Affected condition (GEP-713,
// Target object status): a Gateway whose Patch default is beaten by an
// Atomic override added below it, and every object once the policies are
// deleted. The controller once left the condition of an earlier state.
func TestStaleAffectedRemoved(t *testing.T) {
	objs := scenario(t, "../../scenarios/gep-713/patch-default-above-atomic-override-sticky-overrides.yaml", "default")
	route := find(objs, "ColorPolicy/default/route-policy")
	var first []*unstructured.Unstructured
	for _, o := range objs {
		if o != route {
			first = append(first, o)
		}
	}
	w := newWorld(t, first, &Controller{})
	w.reconcile()
	var p problems
	checkAffected(&p, w, "Gateway/default/g1", []string{"ColorPolicy/default/gateway-policy"})
	p.report(t)

	if err := w.cl.Create(context.Background(), route); err != nil {
		t.Fatal(err)
	}
	w.reconcile()
	p = nil
	checkNotAffected(&p, w, "Gateway/default/g1")
	checkAffected(&p, w, "Service/default/b1", []string{"ColorPolicy/default/route-policy"}, "ColorPolicy/default/gateway-policy")
	p.report(t)

	for _, ref := range []string{"ColorPolicy/default/route-policy", "ColorPolicy/default/gateway-policy"} {
		if err := w.cl.Delete(context.Background(), w.get(ref)); err != nil {
			t.Fatal(err)
		}
	}
	w.reconcile()
	p = nil
	checkNotAffected(&p, w, "Service/default/b1")
	checkNotAffected(&p, w, "Gateway/default/g1")
	parents, _, _ := unstructured.NestedSlice(w.get("HTTPRoute/default/r1").Object, "status", "parents")
	for _, x := range parents {
		if x.(map[string]any)["controllerName"] == ControllerName {
			p.add("HTTPRoute/default/r1: a parent status of ours is left: %v", x)
		}
	}
	p.report(t)
}

// A condition of an object without generation (a Service in a real API
// server) has no observedGeneration, as the API server stores it: one of
// 0 differed from the stored status on every reconcile, and the local
// fanout test caught the rewrites.
func TestConditionsObservedGeneration(t *testing.T) {
	cs := []engine.Condition{{Type: affected, Status: "True", Reason: "Affected"}}
	now := metav1.Now()
	if c := conditions(cs, nil, 0, now)[0].(map[string]any); c["observedGeneration"] != nil {
		t.Errorf("generation 0: observedGeneration %v, want none", c["observedGeneration"])
	}
	if c := conditions(cs, nil, 3, now)[0].(map[string]any); c["observedGeneration"] != int64(3) {
		t.Errorf("generation 3: observedGeneration %v, want 3", c["observedGeneration"])
	}
}

// Gateway API PolicyAncestorStatus.Conditions: another writer's
// conditions stay, unchanged and in their order; the controller's own are
// replaced in place, dropped when gone, and the new ones follow. The
// broken writer (replaceConditions) keeps nothing of another writer's.
func TestMergePolicyConditions(t *testing.T) {
	c := func(typ, status string) map[string]any { return map[string]any{"type": typ, "status": status} }
	old := []any{c("special.io/SomeField", "True"), c("Accepted", "True"), c("Enforced", "True"), c("Other", "False"), c("special.io/OtherField", "True")}
	mine := []any{c("Accepted", "False"), c("ResolvedRefs", "False")}
	want := []any{c("special.io/SomeField", "True"), c("Accepted", "False"), c("Other", "False"), c("special.io/OtherField", "True"), c("ResolvedRefs", "False")}
	if got := (&Controller{}).mergePolicyConditions(mine, old); !reflect.DeepEqual(got, want) {
		t.Errorf("merged:\n got %v\nwant %v", got, want)
	}
	if got := (&Controller{replaceConditions: true}).mergePolicyConditions(mine, old); !reflect.DeepEqual(got, mine) {
		t.Errorf("the broken writer: %v", got)
	}
	if got := (&Controller{}).mergePolicyConditions(mine, nil); !reflect.DeepEqual(got, mine) {
		t.Errorf("nothing stored: %v", got)
	}
}

// downMapper is discovery while kube-apiserver is down: every mapping
// fails, and not because a kind is not served.
type downMapper struct{ meta.RESTMapper }

func (downMapper) RESTMapping(schema.GroupKind, ...string) (*meta.RESTMapping, error) {
	return nil, errors.New(`failed to get server groups: an error on the server ("") has prevented the request from succeeding`)
}

// Discovery that does not answer is not a kind that is not served: setup
// says so (a discoveryError, which Run tries again, docs/faults.md,
// apiserver) instead of starting without the policy kinds.
func TestSetupDiscoveryDown(t *testing.T) {
	c := &Controller{}
	var d discoveryError
	if _, err := c.setup(nil, downMapper{mapper()}); !errors.As(err, &d) {
		t.Errorf("setup with discovery down: %v, want a discoveryError", err)
	}
	watch, err := c.setup(nil, mapper("ColorPolicy"))
	if err != nil || !slices.ContainsFunc(watch, func(g schema.GroupVersionKind) bool { return g.Kind == "ColorPolicy" }) {
		t.Errorf("setup with discovery up: %v, %v; want ColorPolicy watched", watch, err)
	}
}
