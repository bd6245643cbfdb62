package statusrules

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/internal/jsonmap"
)

// The MUST statements of Gateway API's API reference (apis/v1 of
// sigs.k8s.io/gateway-api v1.6.3) that a runner judges by staging a state
// in a cluster (suite/incluster, Runner.Musts): a foreign writer's
// conditions, a policy with more ancestors than its status holds, invalid
// CA references. Each function judges the objects as stored and returns
// what breaks the statement, or "" when it holds.

// Foreign condition types planted in ancestor entries, in this order: the
// first is the example of PolicyAncestorStatus.Conditions ("if an
// implementation sees a Condition with type `special.io/SomeField`, it
// MUST NOT remove, change or update that Condition"), the second lets a
// reordering show.
const (
	ForeignFirst = "special.io/SomeField"
	ForeignLast  = "special.io/OtherField"
)

// PlantForeign returns ancestors with foreign conditions added, as another
// writer would add them: ForeignFirst before and ForeignLast after the
// conditions of every entry of controller (own) or of every entry of
// another controller (!own). now is their lastTransitionTime.
func PlantForeign(ancestors []any, controller string, own bool, generation int64, now string) []any {
	out := make([]any, 0, len(ancestors))
	for _, a := range ancestors {
		am, ok := a.(map[string]any)
		if !ok || (jsonmap.String(am["controllerName"]) == controller) != own {
			out = append(out, a)
			continue
		}
		e := jsonmap.Clone(am)
		cs := jsonmap.List(e["conditions"])
		planted := []any{foreign(ForeignFirst, generation, now)}
		planted = append(planted, cs...)
		e["conditions"] = append(planted, foreign(ForeignLast, generation, now))
		out = append(out, e)
	}
	return out
}

func foreign(typ string, generation int64, now string) map[string]any {
	return map[string]any{"type": typ, "status": "True", "reason": "Planted", "observedGeneration": generation,
		"lastTransitionTime": now, "message": "written by gepcheck as another writer of this entry"}
}

// ForeignKept judges, on the ancestors as stored after the implementation
// wrote again, the foreign conditions planted (PlantForeign) in its own
// entries (own) or in other controllers' entries. Gateway API
// PolicyAncestorStatus.Conditions: "Implementations MUST perform a
// read-modify-write cycle on this field before modifying it",
// "Implementations MUST NOT remove or reorder Conditions that they are not
// directly responsible for", "if an implementation sees a Condition with
// type `special.io/SomeField`, it MUST NOT remove, change or update that
// Condition". Every planted condition must still be there, unchanged, in
// the entry it was planted in, in the order planted; another controller's
// entry must be unchanged as a whole.
func ForeignKept(planted, got []any, controller string, own bool) string {
	byKey := map[string]map[string]any{}
	for _, a := range got {
		if am, ok := a.(map[string]any); ok {
			byKey[entryKey(am)] = am
		}
	}
	n := 0
	for _, a := range planted {
		am, ok := a.(map[string]any)
		if !ok || (jsonmap.String(am["controllerName"]) == controller) != own {
			continue
		}
		if own {
			n += len(foreignOf(am))
		} else {
			n++
		}
		key := entryKey(am)
		now, ok := byKey[key]
		if !ok {
			return "the entry " + key + " is gone"
		}
		if !own {
			if !reflect.DeepEqual(normalizeNumbers(am), normalizeNumbers(now)) {
				return "the entry " + key + " was changed: " + describeConditions(now)
			}
			continue
		}
		want, gotF := foreignOf(am), foreignOf(now)
		if !reflect.DeepEqual(normalizeNumbers(want), normalizeNumbers(gotF)) {
			return fmt.Sprintf("in the entry %s the conditions planted (%s) are now %s", key, describeList(want), describeList(gotF))
		}
	}
	if n == 0 {
		return "nothing was planted"
	}
	return ""
}

// foreignOf lists the planted conditions of an entry in their order.
func foreignOf(e map[string]any) []any {
	var out []any
	for _, c := range conditionsOf(e) {
		if t := jsonmap.String(c["type"]); t == ForeignFirst || t == ForeignLast {
			out = append(out, c)
		}
	}
	return out
}

// entryKey is an ancestor entry's key: ancestorRef and controllerName
// (Gateway API PolicyStatus.Ancestors).
func entryKey(e map[string]any) string {
	r := jsonmap.Map(e["ancestorRef"])
	kind := jsonmap.String(r["kind"])
	if kind == "" {
		kind = "Gateway"
	}
	key := kind + "/"
	if ns := jsonmap.String(r["namespace"]); ns != "" {
		key += ns + "/"
	}
	key += jsonmap.String(r["name"])
	if s := jsonmap.String(r["sectionName"]); s != "" {
		key += "#" + s
	}
	return key + " (" + jsonmap.String(e["controllerName"]) + ")"
}

func describeList(cs []any) string {
	if len(cs) == 0 {
		return "gone"
	}
	var parts []string
	for _, c := range cs {
		cm := jsonmap.Map(c)
		parts = append(parts, fmt.Sprintf("%s=%s/%s", jsonmap.String(cm["type"]), jsonmap.String(cm["status"]), jsonmap.String(cm["reason"])))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func describeConditions(e map[string]any) string {
	var cs []any
	for _, c := range conditionsOf(e) {
		cs = append(cs, c)
	}
	return describeList(cs)
}

// normalizeNumbers turns every number into int64, so that a value read
// back (int64) and one built here compare equal.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = normalizeNumbers(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = normalizeNumbers(e)
		}
		return l
	case int, int32, int64, float64:
		return Int(x)
	}
	return v
}

// MaxAncestors is the size of PolicyStatus.Ancestors
// (+kubebuilder:validation:MaxItems=16).
const MaxAncestors = 16

// AncestorsFull judges a policy that more Gateways of the implementation
// reach than its status holds. Gateway API PolicyStatus.Ancestors: "A
// maximum of 16 ancestors will be represented in this list", "If this
// slice is full, implementations MUST NOT add further entries. Instead
// they MUST consider the policy unimplementable and signal that on any
// related resources such as the ancestor that would be referenced here."
//
// limit (GATEWAY-API-016): the implementation has entries, at most 16 in
// all. The API server refuses a status with a 17th entry (MaxItems), so
// an implementation that adds one has its write refused: no entry of its
// at all is what shows it.
//
// signal (GATEWAY-API-017): every Gateway of gateways that has no entry of
// the implementation carries a condition of the implementation's whose
// message names the policy, in the Gateway's status (its conditions or a
// listener's) or in the implementation's parent entry for it of a route
// of routes. notApplicable says why signal is not judged: the list is not
// full and every Gateway has an entry, or the implementation's entries do
// not name Gateways (it places the status on another ancestor).
func AncestorsFull(policy *unstructured.Unstructured, gateways, routes []*unstructured.Unstructured, controller string) (limit, signal, notApplicable string) {
	ancestors, _, _ := unstructured.NestedSlice(policy.Object, "status", "ancestors")
	own, gwEntries := 0, map[string]bool{}
	for _, a := range ancestors {
		am := jsonmap.Map(a)
		if jsonmap.String(am["controllerName"]) != controller {
			continue
		}
		own++
		if gw := ancestorGateway(am, policy.GetNamespace()); gw != "" {
			gwEntries[gw] = true
		}
	}
	switch {
	case len(ancestors) > MaxAncestors:
		limit = fmt.Sprintf("%d ancestor entries, more than %d", len(ancestors), MaxAncestors)
	case own == 0:
		limit = fmt.Sprintf("no entry of the implementation's, though %d of its Gateways reach the policy: a status with more than %d entries is refused by the API server (MaxItems), so one the implementation tried to write is lost", len(gateways), MaxAncestors)
	}
	if own > 0 && len(gwEntries) == 0 {
		return limit, "", fmt.Sprintf("the implementation's %d entries name no Gateway: the list is not full", own)
	}
	var missing, silent []string
	for _, g := range gateways {
		key := g.GetNamespace() + "/" + g.GetName()
		if gwEntries[key] {
			continue
		}
		missing = append(missing, key)
		if !signalled(g, routes, controller, policy.GetName()) {
			silent = append(silent, key)
		}
	}
	if len(missing) == 0 {
		return limit, "", fmt.Sprintf("every Gateway has an entry (%d entries): the list is not full", len(ancestors))
	}
	if len(silent) > 0 {
		slices.Sort(silent)
		signal = fmt.Sprintf("%d Gateways without an entry and no condition naming policy %s on them or on their routes' parent status: %s", len(silent), policy.GetName(), strings.Join(silent, ", "))
	}
	return limit, signal, ""
}

// AncestorGateway is "namespace/name" of the Gateway an ancestor entry
// names, or "" for another kind.
func AncestorGateway(e map[string]any, policyNamespace string) string {
	return ancestorGateway(e, policyNamespace)
}

// signalled: a condition on Gateway g (status.conditions,
// status.listeners[].conditions) or in controller's parent entry for g of
// a route names the policy in its message.
func signalled(g *unstructured.Unstructured, routes []*unstructured.Unstructured, controller, policy string) bool {
	names := func(cs []any) bool {
		for _, c := range cs {
			if cm, ok := c.(map[string]any); ok && strings.Contains(jsonmap.String(cm["message"]), policy) {
				return true
			}
		}
		return false
	}
	if cs, _, _ := unstructured.NestedSlice(g.Object, "status", "conditions"); names(cs) {
		return true
	}
	ls, _, _ := unstructured.NestedSlice(g.Object, "status", "listeners")
	for _, l := range ls {
		if lm, ok := l.(map[string]any); ok {
			if cs := jsonmap.List(lm["conditions"]); names(cs) {
				return true
			}
		}
	}
	for _, r := range routes {
		ps, _, _ := unstructured.NestedSlice(r.Object, "status", "parents")
		for _, p := range ps {
			pm := jsonmap.Map(p)
			if jsonmap.String(pm["controllerName"]) != controller {
				continue
			}
			ref := map[string]any{"ancestorRef": pm["parentRef"]}
			if ancestorGateway(ref, r.GetNamespace()) == g.GetNamespace()+"/"+g.GetName() {
				if cs := jsonmap.List(pm["conditions"]); names(cs) {
					return true
				}
			}
		}
	}
	return false
}

// OwnCondition judges that every ancestor entry of controller on the
// policy (there must be one) has a condition of type typ with status
// status and reason reason and a message containing each of mention:
// Gateway API BackendTLSPolicyValidation.CACertificateRefs ("the
// implementation MUST ensure the `ResolvedRefs` Condition on the
// BackendTLSPolicy is set to `status: False`, with a Reason and Message
// that indicate the cause of the error"; the Reason InvalidCACertificateRef
// or InvalidKind, "the Message of the Condition must indicate which
// reference is invalid and why" / "explain which kind of resource is
// unknown or unsupported") and WellKnownCACertificates ("the
// implementation MUST ensure the `Accepted` Condition on the
// BackendTLSPolicy is set to `status: False`, with a Reason `Invalid`").
//
// broken says what breaks the statement; note, when it holds, says which
// of mention a message does not name: the text asks that with a lower-case
// "must" ("the Message of the Condition must indicate which reference is
// invalid and why"), not a MUST, so it is reported, not judged.
func OwnCondition(policy *unstructured.Unstructured, controller, typ, status, reason string, mention ...string) (broken, note string) {
	ancestors, _, _ := unstructured.NestedSlice(policy.Object, "status", "ancestors")
	n := 0
	for _, a := range ancestors {
		am := jsonmap.Map(a)
		if jsonmap.String(am["controllerName"]) != controller {
			continue
		}
		n++
		var c map[string]any
		for _, x := range conditionsOf(am) {
			if jsonmap.String(x["type"]) == typ {
				c = x
			}
		}
		key := entryKey(am)
		switch {
		case c == nil:
			return fmt.Sprintf("no %s condition in the entry %s: %s", typ, key, describeConditions(am)), ""
		case jsonmap.String(c["status"]) != status || jsonmap.String(c["reason"]) != reason:
			return fmt.Sprintf("%s=%s/%s in the entry %s, want %s/%s", typ, jsonmap.String(c["status"]), jsonmap.String(c["reason"]), key, status, reason), ""
		case strings.TrimSpace(jsonmap.String(c["message"])) == "":
			return fmt.Sprintf("%s=%s/%s without a message in the entry %s", typ, status, reason, key), ""
		}
		for _, m := range mention {
			if !strings.Contains(jsonmap.String(c["message"]), m) && note == "" {
				note = fmt.Sprintf("the message %q does not name %s", jsonmap.String(c["message"]), m)
			}
		}
	}
	if n == 0 {
		return "no ancestor entry of the implementation's", ""
	}
	return "", note
}

// RefusedStatusWrites sums, in the text exposition of kube-apiserver's
// /metrics, apiserver_request_total of the status subresource of resource
// (plural, e.g. backendtlspolicies) answered 422 (Unprocessable Entity:
// the object is invalid, as a status with more than MaxAncestors entries
// is). A write the API server refuses leaves nothing in the stored object;
// this count is what shows it was tried. Lines that do not parse are
// skipped.
func RefusedStatusWrites(metrics []byte, resource string) float64 {
	var sum float64
	for line := range strings.SplitSeq(string(metrics), "\n") {
		if !strings.HasPrefix(line, "apiserver_request_total{") ||
			!strings.Contains(line, `resource="`+resource+`"`) || !strings.Contains(line, `subresource="status"`) || !strings.Contains(line, `code="422"`) {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		var v float64
		if _, err := fmt.Sscan(line[i+1:], &v); err == nil {
			sum += v
		}
	}
	return sum
}
