package gatewayapi

import (
	"encoding/json"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/internal/jsonmap"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/suite/observe"
)

const me = "example.com/me"

// The ports compared are those the input routes send traffic to through
// a Gateway of the input that the implementation serves, whatever it
// configured: not through a Gateway of another implementation's class, nor
// through one the input lacks (Gateway API: a GatewayClass's Gateways are
// its controller's).
func TestIndex(t *testing.T) {
	route := func(name, gw string, ports ...float64) map[string]any {
		var rules []any
		for _, p := range ports {
			rules = append(rules, map[string]any{"backendRefs": []any{map[string]any{"name": "svc", "port": p}}})
		}
		return map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute", "metadata": map[string]any{"name": name, "namespace": "ns"},
			"spec": map[string]any{"parentRefs": []any{map[string]any{"name": gw}}, "rules": rules}}
	}
	class := func(name, controller string) map[string]any {
		return map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass", "metadata": map[string]any{"name": name}, "spec": map[string]any{"controllerName": controller}}
	}
	gateway := func(name, class string) map[string]any {
		return map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway", "metadata": map[string]any{"name": name, "namespace": "ns"}, "spec": map[string]any{"gatewayClassName": class}}
	}
	svc := map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "svc", "namespace": "ns"}, "spec": map[string]any{"ports": []any{
		map[string]any{"name": "https", "port": float64(443)}, map[string]any{"name": "http", "port": float64(80)},
		map[string]any{"name": "https-alt", "port": float64(8443)}, map[string]any{"name": "theirs", "port": float64(9443)}}}}
	ca := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "ca", "namespace": "ns"}, "data": map[string]any{"ca.crt": "PEM\n"}}
	objects := []map[string]any{
		class("mine", me), class("theirs", "example.net/them"), gateway("gw", "mine"), gateway("gw-undeclared-class", "nowhere"), gateway("gw-other", "theirs"),
		svc, ca, route("r", "gw", 443, 80), route("orphan", "no-such-gateway", 8443), route("other", "gw-other", 9443),
	}
	// A GRPCRoute's backend is reached too (BackendTLSPolicySpec.TargetRefs,
	// Support Levels: "HTTPRoute, GRPCRoute, TLSRoute with termination").
	grpc := route("g", "gw", 8443)
	grpc["kind"] = "GRPCRoute"
	objects = append(objects, grpc)
	c := Index(objects, me)
	if r, _ := json.Marshal(c.Reached); string(r) != `["Service/ns/svc#https","Service/ns/svc#http","Service/ns/svc#https-alt"]` {
		t.Errorf("reached %s", r)
	}
	if !slices.Equal(c.Gateways, []string{"ns/gw", "ns/gw-undeclared-class"}) {
		t.Errorf("gateways %q", c.Gateways)
	}
	if len(c.Others) != 1 || c.Others["ns/gw-other"] != "example.net/them" {
		t.Errorf("others %q", c.Others)
	}
	if c.CAs["ns\x00PEM"] != "ca" || c.Ports["ns/svc"]["8443"] != "https-alt" {
		t.Errorf("CAs %q, ports %q", c.CAs, c.Ports)
	}
	var o observe.Observation
	if c.At(&o)("ns") != &o || c.At(&o)("elsewhere") != nil {
		t.Errorf("At files ns elsewhere or elsewhere in ns")
	}
}

// A policy without status of the implementation's own whose Service no
// route of its Gateways reaches has no place to report; one on a reached
// port, or with an entry of its own, has.
func TestMarkUnreported(t *testing.T) {
	o := observe.Observation{Reached: []string{"Service/ns/svc#http", "Service/ns/svc#https"}}
	policy := func(name, svc, section, controller string) *unstructured.Unstructured {
		tr := map[string]any{"kind": "Service", "name": svc}
		if section != "" {
			tr["sectionName"] = section
		}
		u := &unstructured.Unstructured{Object: map[string]any{"kind": "BackendTLSPolicy", "metadata": map[string]any{"name": name, "namespace": "ns"},
			"spec": map[string]any{"targetRefs": []any{tr}}}}
		if controller != "" {
			u.Object["status"] = map[string]any{"ancestors": []any{map[string]any{"controllerName": controller}}}
		}
		return u
	}
	MarkUnreported(&o, []*unstructured.Unstructured{
		policy("other-svc", "other", "", ""), policy("unrouted-port", "svc", "grpc", ""),
		policy("whole", "svc", "", ""), policy("port", "svc", "https", ""), policy("with-status", "other", "", me),
		policy("theirs-only", "other", "", "example.net/them"),
	}, me)
	if r, _ := json.Marshal(o.Unreported); string(r) != `["BackendTLSPolicy/ns/other-svc","BackendTLSPolicy/ns/unrouted-port","BackendTLSPolicy/ns/theirs-only"]` {
		t.Errorf("unreported %s", r)
	}
}

// TestPolicyStatusAncestors: a policy's status per ancestor Gateway, from
// controller's entries only (Gateway API v1, PolicyStatus.Ancestors: "a
// composite key, made up of the AncestorRef and the ControllerName"); two
// entries for listeners of one Gateway are one (True wins); a Gateway in
// the policy's namespace when the ancestorRef names none; an ancestor of
// another kind is left out.
func TestPolicyStatusAncestors(t *testing.T) {
	cond := func(typ, status, reason string) any {
		return map[string]any{"type": typ, "status": status, "reason": reason}
	}
	entry := func(ref map[string]any, controller string, conds ...any) any {
		return map[string]any{"ancestorRef": ref, "controllerName": controller, "conditions": conds}
	}
	gw := func(name, ns, section string) map[string]any {
		r := map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": name}
		if ns != "" {
			r["namespace"] = ns
		}
		if section != "" {
			r["sectionName"] = section
		}
		return r
	}
	p := map[string]any{
		"metadata": map[string]any{"name": "p", "namespace": "ns"},
		"status": map[string]any{"ancestors": []any{
			entry(gw("a", "", "l1"), me, cond("Accepted", "False", "Conflicted")),
			entry(gw("a", "ns", "l2"), me, cond("Accepted", "True", "Accepted"), cond("ResolvedRefs", "True", "ResolvedRefs")),
			entry(gw("b", "other", ""), me, cond("Accepted", "False", "NoValidCACertificate"), cond("ResolvedRefs", "False", "InvalidKind")),
			entry(gw("c", "ns", ""), "example.net/them", cond("Accepted", "True", "Accepted")),
			entry(map[string]any{"group": "", "kind": "Service", "name": "svc"}, me, cond("Accepted", "True", "Accepted")),
		}},
	}
	st := PolicyStatus("BackendTLSPolicy", p, me)
	var got []string
	for _, a := range st.Ancestors {
		for _, c := range a.Conditions {
			got = append(got, a.Ref+" "+c.Type+"="+c.Status+"/"+c.Reason)
		}
	}
	want := []string{
		"Gateway/ns/a Accepted=True/Accepted",
		"Gateway/ns/a ResolvedRefs=True/ResolvedRefs",
		"Gateway/other/b Accepted=False/NoValidCACertificate",
		"Gateway/other/b ResolvedRefs=False/InvalidKind",
	}
	if !slices.Equal(got, want) {
		t.Errorf("ancestors\n%q\nwant\n%q", got, want)
	}
	// Read as one entry per Gateway listener (simulator.AncestorsPerListener,
	// Traefik's claim), the listeners of Gateway a are two ancestors, each
	// with its own conditions; an entry naming no section is the Gateway's.
	st = PolicyStatusAs("BackendTLSPolicy", p, me, simulator.AncestorsPerListener)
	got = nil
	for _, a := range st.Ancestors {
		for _, c := range a.Conditions {
			got = append(got, a.Ref+" "+c.Type+"="+c.Status+"/"+c.Reason)
		}
	}
	want = []string{
		"Gateway/ns/a#l1 Accepted=False/Conflicted",
		"Gateway/ns/a#l2 Accepted=True/Accepted",
		"Gateway/ns/a#l2 ResolvedRefs=True/ResolvedRefs",
		"Gateway/other/b Accepted=False/NoValidCACertificate",
		"Gateway/other/b ResolvedRefs=False/InvalidKind",
	}
	if !slices.Equal(got, want) {
		t.Errorf("ancestors per listener\n%q\nwant\n%q", got, want)
	}
}

// Two ConfigMaps holding one certificate (upstream's conformance test
// BackendTLSPolicy copies tls-checks-ca-certificate to
// tls-checks-ca-certificate-reconcile-test): a CA read back names the
// one the policies selecting the path's Service name, whichever the index
// gave; where they name both, or none, the path is left as read.
func TestSameCA(t *testing.T) {
	cm := func(name string) map[string]any {
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": "ns"},
			"data": map[string]any{"ca.crt": "PEM\n"}}
	}
	pol := func(name, svc, section, ca string) map[string]any {
		tr := map[string]any{"group": "", "kind": "Service", "name": svc}
		if section != "" {
			tr["sectionName"] = section
		}
		return map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "BackendTLSPolicy", "metadata": map[string]any{"name": name, "namespace": "ns"},
			"spec": map[string]any{"targetRefs": []any{tr}, "validation": map[string]any{"hostname": "h", "caCertificateRefs": []any{map[string]any{"group": "", "kind": "ConfigMap", "name": ca}}}}}
	}
	objs := []map[string]any{cm("ca-b"), cm("ca-a"), cm("ca-c"),
		pol("p1", "s1", "", "ca-b"), pol("p2", "s2", "https", "ca-c"), pol("p3", "s3", "", "ca-a"), pol("p4", "s3", "", "ca-b")}
	c := Index(objs, me)
	if got := c.CAs["ns\x00PEM"]; got != "ca-a" {
		t.Errorf("CAs names %q for the shared certificate, want the first by name, ca-a", got)
	}
	path := func(svc string) observe.Path {
		return observe.Path{Path: []string{"Service/ns/" + svc, "Service/ns/" + svc + "#https"},
			Spec: map[string]any{"validation": map[string]any{"hostname": "h", "caCertificateRefs": []any{map[string]any{"group": "", "kind": "ConfigMap", "name": "ca-a"}}}}}
	}
	o := &observe.Observation{Effective: []observe.Path{path("s1"), path("s2"), path("s3"), path("s4")}}
	c.SameCA(o, objs)
	var got []string
	for _, p := range o.Effective {
		got = append(got, jsonmap.String(jsonmap.Map(jsonmap.List(jsonmap.Map(p.Spec["validation"])["caCertificateRefs"])[0])["name"]))
	}
	if want := []string{"ca-b", "ca-c", "ca-a", "ca-a"}; !slices.Equal(got, want) {
		t.Errorf("CAs after SameCA %q, want %q", got, want)
	}
}
