package statusrules

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func ancestorsOf(u *unstructured.Unstructured) []any {
	as, _, _ := unstructured.NestedSlice(u.Object, "status", "ancestors")
	return as
}

// Gateway API PolicyAncestorStatus.Conditions: "Implementations MUST
// perform a read-modify-write cycle on this field before modifying it.
// Implementations MUST NOT remove or reorder Conditions that they are not
// directly responsible for. For example, if an implementation sees a
// Condition with type `special.io/SomeField`, it MUST NOT remove, change
// or update that Condition." Writers that merge keep what was planted;
// writers that replace the conditions, drop one, reorder them, update one
// or drop the other controller's entry are each caught.
func TestForeignKept(t *testing.T) {
	const me, other = "example.com/me", "example.net/other"
	stored := policyWithStatus(entry("gw", me, cond("Accepted", "True", "Accepted", 1)), entry("gw-other", other, cond("Accepted", "True", "Accepted", 1)))
	planted := PlantForeign(ancestorsOf(stored), me, true, 1, "2026-01-01T00:00:00Z")
	planted = PlantForeign(planted, me, false, 1, "2026-01-01T00:00:00Z")
	own := planted[0].(map[string]any)
	if cs := own["conditions"].([]any); len(cs) != 3 || cs[0].(map[string]any)["type"] != ForeignFirst || cs[2].(map[string]any)["type"] != ForeignLast {
		t.Fatalf("planted in the own entry: %v", cs)
	}
	theirs := planted[1]
	ownWith := func(cs ...any) []any {
		e := map[string]any{"ancestorRef": own["ancestorRef"], "controllerName": me, "conditions": cs}
		return []any{e, theirs}
	}
	ownCs := own["conditions"].([]any)
	first, accepted, last := ownCs[0], cond("Accepted", "True", "Accepted", 2), ownCs[2]
	changed := map[string]any{}
	for k, v := range first.(map[string]any) {
		changed[k] = v
	}
	changed["observedGeneration"] = int64(2)
	for _, tc := range []struct {
		name      string
		got       []any
		own, them string // what breaks, "" when kept
	}{
		{"merged in place", ownWith(first, accepted, last), "", ""},
		{"merged, own condition moved", ownWith(accepted, first, last), "", ""},
		{"numbers read back as float64", ownWith(roundTrip(first), accepted, last), "", ""},
		{"replaced", ownWith(accepted), "are now gone", ""},
		{"one dropped", ownWith(first, accepted), "are now [special.io/SomeField", ""},
		{"reordered", ownWith(last, accepted, first), "are now [special.io/OtherField", ""},
		{"updated", ownWith(changed, accepted, last), "are now", ""},
		{"the other controller's entry dropped", ownWith(first, accepted, last)[:1], "", "is gone"},
		{"the other controller's entry rewritten", []any{ownWith(first, accepted, last)[0], entry("gw-other", other, cond("Accepted", "True", "Accepted", 1))}, "", "was changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []struct {
				own  bool
				want string
			}{{true, tc.own}, {false, tc.them}} {
				got := ForeignKept(planted, tc.got, me, c.own)
				if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
					t.Errorf("own=%v: ForeignKept = %q, want %q", c.own, got, c.want)
				}
			}
		})
	}
	if got := ForeignKept(ancestorsOf(stored), ancestorsOf(stored), me, true); got != "nothing was planted" {
		t.Errorf("nothing planted: %q", got)
	}
}

// roundTrip is a condition as a JSON decoder into any gives it back:
// observedGeneration a float64.
func roundTrip(c any) map[string]any {
	out := map[string]any{}
	for k, v := range c.(map[string]any) {
		out[k] = v
	}
	out["observedGeneration"] = float64(Int(out["observedGeneration"]))
	return out
}

func gateway(name string, conds ...map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"kind": "Gateway", "metadata": map[string]any{"name": name, "namespace": "ns"}}}
	var cs []any
	for _, c := range conds {
		cs = append(cs, c)
	}
	if cs != nil {
		_ = unstructured.SetNestedSlice(u.Object, cs, "status", "conditions")
	}
	return u
}

func gwEntry(name, controller string) map[string]any {
	return map[string]any{"ancestorRef": map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": name}, "controllerName": controller,
		"conditions": []any{cond("Accepted", "True", "Accepted", 2)}}
}

// Gateway API PolicyStatus.Ancestors: "If this slice is full,
// implementations MUST NOT add further entries. Instead they MUST consider
// the policy unimplementable and signal that on any related resources
// such as the ancestor that would be referenced here."
func TestAncestorsFull(t *testing.T) {
	const me = "example.com/me"
	var gws []*unstructured.Unstructured
	var full []map[string]any
	for i := 1; i <= 17; i++ {
		gws = append(gws, gateway(fmt.Sprintf("gw-%02d", i)))
		if i <= 16 {
			full = append(full, gwEntry(fmt.Sprintf("gw-%02d", i), me))
		}
	}
	named := func(u *unstructured.Unstructured) *unstructured.Unstructured { u.SetName("tls-limit"); return u }
	signal := withMessage(cond("gepcheck.dev/PolicyUnimplementable", "True", "AncestorsFull", 2), "policy tls-limit: status.ancestors is full")
	signalledGWs := append(append([]*unstructured.Unstructured{}, gws[:16]...), gateway("gw-17", signal))
	route := &unstructured.Unstructured{Object: map[string]any{"kind": "HTTPRoute", "metadata": map[string]any{"name": "r17", "namespace": "ns"},
		"status": map[string]any{"parents": []any{map[string]any{"parentRef": map[string]any{"name": "gw-17"}, "controllerName": me, "conditions": []any{signal}}}}}}
	serviceEntry := map[string]any{"ancestorRef": map[string]any{"group": "", "kind": "Service", "name": "svc"}, "controllerName": me, "conditions": []any{cond("Accepted", "True", "Accepted", 2)}}
	for _, tc := range []struct {
		name                string
		policy              *unstructured.Unstructured
		gateways            []*unstructured.Unstructured
		routes              []*unstructured.Unstructured
		limit, signal, napp string // substrings; "" when it holds
	}{
		{"full, signalled on the Gateway", policyWithStatus(full...), signalledGWs, nil, "", "", ""},
		{"full, signalled in the route's parent status", policyWithStatus(full...), gws, []*unstructured.Unstructured{route}, "", "", ""},
		{"full, no signal", policyWithStatus(full...), gws, nil, "", "no condition naming policy tls-limit", ""},
		{"a signal of another policy", policyWithStatus(full...), append(append([]*unstructured.Unstructured{}, gws[:16]...), gateway("gw-17", withMessage(cond("X", "True", "Y", 2), "policy tls-other"))), nil, "", "ns/gw-17", ""},
		{"no entry: a 17th refused", policyWithStatus(), gws, nil, "no entry of the implementation's", "17 Gateways without an entry", ""},
		{"entries on the Service", policyWithStatus(serviceEntry), gws, nil, "", "", "name no Gateway"},
		{"every Gateway an entry", policyWithStatus(full[:2]...), gws[:2], nil, "", "", "not full"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			limit, signal, na := AncestorsFull(named(tc.policy), tc.gateways, tc.routes, me)
			for _, c := range []struct{ what, got, want string }{{"limit", limit, tc.limit}, {"signal", signal, tc.signal}, {"not applicable", na, tc.napp}} {
				if c.want == "" && c.got != "" || c.want != "" && !strings.Contains(c.got, c.want) {
					t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
				}
			}
		})
	}
}

// Gateway API BackendTLSPolicyValidation: ResolvedRefs False "with a
// Reason and Message that indicate the cause of the error"; Accepted
// False with Reason Invalid for an unsupported or unrecognized
// wellKnownCACertificates.
func TestOwnCondition(t *testing.T) {
	const me = "example.com/me"
	rr := withMessage(cond("ResolvedRefs", "False", "InvalidCACertificateRef", 2), "ConfigMap absent not found")
	for _, tc := range []struct {
		name         string
		policy       *unstructured.Unstructured
		broken, note string
	}{
		{"as the text asks", policyWithStatus(entry("gw", me, cond("Accepted", "False", "NoValidCACertificate", 2), rr)), "", ""},
		{"no ResolvedRefs", policyWithStatus(entry("gw", me, cond("Accepted", "False", "NoValidCACertificate", 2))), "no ResolvedRefs condition", ""},
		{"another reason", policyWithStatus(entry("gw", me, cond("ResolvedRefs", "False", "Invalid", 2))), "want False/InvalidCACertificateRef", ""},
		{"True", policyWithStatus(entry("gw", me, cond("ResolvedRefs", "True", "InvalidCACertificateRef", 2))), "want False/InvalidCACertificateRef", ""},
		{"no message", policyWithStatus(entry("gw", me, withMessage(cond("ResolvedRefs", "False", "InvalidCACertificateRef", 2), " "))), "without a message", ""},
		{"a message not naming the reference", policyWithStatus(entry("gw", me, withMessage(cond("ResolvedRefs", "False", "InvalidCACertificateRef", 2), "bad ref"))), "", "does not name absent"},
		{"only another controller's entry", policyWithStatus(entry("gw", "other.io/x", rr)), "no ancestor entry", ""},
		{"one entry of two wrong", policyWithStatus(entry("gw", me, rr), entry("gw2", me, cond("Accepted", "True", "Accepted", 2))), "no ResolvedRefs condition in the entry Gateway/gw2", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			broken, note := OwnCondition(tc.policy, me, "ResolvedRefs", "False", "InvalidCACertificateRef", "absent")
			if tc.broken == "" && broken != "" || tc.broken != "" && !strings.Contains(broken, tc.broken) {
				t.Errorf("broken = %q, want %q", broken, tc.broken)
			}
			if tc.note == "" && note != "" || tc.note != "" && !strings.Contains(note, tc.note) {
				t.Errorf("note = %q, want %q", note, tc.note)
			}
		})
	}
}

// Writes of a status the API server refused as invalid are counted for
// the resource's status subresource only.
func TestRefusedStatusWrites(t *testing.T) {
	m := []byte(`# HELP apiserver_request_total [STABLE] Counter of apiserver requests
apiserver_request_total{code="422",component="apiserver",dry_run="",group="gateway.networking.k8s.io",resource="backendtlspolicies",scope="resource",subresource="status",verb="UPDATE",version="v1"} 3
apiserver_request_total{code="422",component="apiserver",dry_run="",group="gateway.networking.k8s.io",resource="backendtlspolicies",scope="resource",subresource="status",verb="PATCH",version="v1"} 1
apiserver_request_total{code="200",component="apiserver",dry_run="",group="gateway.networking.k8s.io",resource="backendtlspolicies",scope="resource",subresource="status",verb="UPDATE",version="v1"} 40
apiserver_request_total{code="422",component="apiserver",dry_run="",group="gateway.networking.k8s.io",resource="backendtlspolicies",scope="resource",subresource="",verb="UPDATE",version="v1"} 5
apiserver_request_total{code="422",component="apiserver",dry_run="",group="gateway.networking.k8s.io",resource="httproutes",scope="resource",subresource="status",verb="UPDATE",version="v1"} 7
apiserver_request_total{code="422",resource="backendtlspolicies",subresource="status"} garbage
`)
	if got := RefusedStatusWrites(m, "backendtlspolicies"); got != 4 {
		t.Errorf("RefusedStatusWrites = %v, want 4", got)
	}
}
