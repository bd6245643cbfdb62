package simulator

import (
	"fmt"
	"slices"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/topology"
)

// AncestorEntries is a reading of Gateway API's PolicyAncestorStatus for
// a policy whose status is per ancestor Gateway (profile.Spec.StatusAncestors):
// "we recommend that implementations SHOULD use Gateway as the
// PolicyAncestorStatus object" (Gateway API v1, PolicyAncestorStatus), and
// "Each Gateway that has a Route that includes a backend with an attached
// BackendTLSPolicy SHOULD have a separate PolicyAncestorStatus section"
// (GEP-713 as merged, Status reporting, Using upstream
// PolicyAncestorStatus struct). The entry's AncestorRef is a
// ParentReference, which may name a section of the Gateway (sectionName,
// a listener); neither text says whether an entry per listener of the
// Gateway is the Gateway's, and upstream's conformance tests
// (BackendTLSPolicyMustHaveCondition) take any entry naming the Gateway,
// whatever its sectionName. So both are readings (docs/semantics.md,
// Status per ancestor and ResolvedRefs), and an implementation claims one
// (observe.Capabilities.AncestorEntries).
type AncestorEntries string

const (
	// AncestorsPerGateway: one entry per Gateway from which a route
	// reaches a target, its ancestorRef naming no section. The default
	// (empty means it too).
	AncestorsPerGateway AncestorEntries = ""
	// AncestorsPerListener: one entry per Gateway listener through which
	// a route reaches a target (ancestorRef.sectionName the listener; a
	// Gateway reached through a ListenerSet's listener keeps an entry of
	// its own), each with the policy's status on the targets reached
	// through that listener.
	AncestorsPerListener AncestorEntries = "listener"
)

// Name is the reading's name as ParseAncestorEntries reads it and
// --ancestor-entries spells it: gateway (the zero value) or listener.
func (a AncestorEntries) Name() string {
	if a == AncestorsPerGateway {
		return "gateway"
	}
	return string(a)
}

// ParseAncestorEntries reads a reading's name: "gateway" (or empty) or
// "listener".
func ParseAncestorEntries(s string) (AncestorEntries, error) {
	switch s {
	case "", "gateway":
		return AncestorsPerGateway, nil
	case string(AncestorsPerListener):
		return AncestorsPerListener, nil
	}
	return "", fmt.Errorf("unknown ancestor entries %q (want gateway or listener)", s)
}

// statusAncestors completes the engine's status of k's policies with what
// the simulator knows and the engine does not: the condition of their
// references (profile.Reference.Condition, e.g. BackendTLSPolicy's
// ResolvedRefs), on the policy, and, for a kind whose profile reports
// status per ancestor (profile.Spec.StatusAncestors), one entry per
// Gateway from which a route reaches a target of the policy (Gateway API
// v1, PolicyStatus.Ancestors: "Ancestors is a list of ancestor resources
// (usually Gateways) that are associated with the policy, and the status
// of the policy with respect to each ancestor").
//
// An ancestor's Accepted is the policy's when the policy is rejected
// whole for a reason of its own (Invalid, a reference's reason,
// TargetNotFound); otherwise it is the policy's Accepted for the targets
// that Gateway reaches: True where one of them accepts it, else the first
// of their reasons (Conflicted) — Gateway API v1,
// BackendTLSPolicySpec.TargetRefs: "For any BackendTLSPolicy that does not
// take precedence, the implementation MUST ensure the Accepted Condition
// is set to status: False, with Reason Conflicted", per ancestor as its
// conformance test BackendTLSPolicyConflictResolution checks it. The
// references' condition is the policy's on every ancestor where it is
// written (written).
func (m *Model) statusAncestors(k *Kind, ps []engine.PolicyStatus) {
	perAncestor := k.Profile.Spec.StatusAncestors == profile.StatusAncestorsGateway
	if len(k.Refs) == 0 && !perAncestor {
		return
	}
	byRef := make(map[string]*engine.Policy, len(k.Policies))
	for i := range k.Policies {
		byRef[k.Policies[i].Ref.String()] = &k.Policies[i]
	}
	gateways := map[topology.NodeID][]ref.Ref{} // memo: the Gateways above a node
	for i := range ps {
		p := &ps[i]
		refs, hasRefs := k.Refs[p.Ref]
		if hasRefs && written(refs, p.Conditions) {
			p.Conditions = append(slices.Clip(p.Conditions), refs)
		}
		pol := byRef[p.Ref]
		if !perAncestor || pol == nil {
			continue
		}
		accepted, _ := engine.FindCondition(p.Conditions, engine.TypeAccepted)
		perTarget := accepted.Status == "True" || accepted.Reason == engine.ReasonConflicted
		targets := make([]ref.Ref, 0, len(pol.TargetRefs))
		for _, tr := range pol.TargetRefs {
			ns := tr.Namespace
			if ns == "" {
				ns = pol.Ref.Namespace
			}
			targets = append(targets, ref.Ref{Group: tr.Group, Kind: tr.Kind, Namespace: ns, Name: tr.Name, Section: tr.SectionName})
		}
		order, reached := m.reaching(targets, gateways)
		p.Ancestors = make([]engine.PolicyTarget, 0, len(order))
		for _, g := range order {
			cond := accepted
			if perTarget {
				cond = ancestorAccepted(p.Targets, reached[g.String()], accepted)
			}
			a := engine.PolicyTarget{Ref: g.String(), Conditions: []engine.Condition{cond}}
			if hasRefs && written(refs, a.Conditions) {
				a.Conditions = append(a.Conditions, refs)
			}
			p.Ancestors = append(p.Ancestors, a)
		}
	}
}

// GatewaysReaching lists, in ref order, the Gateways from which the
// hierarchy reaches one of targets (the policy's targetRefs, namespaces
// filled in): the ancestors a policy of a kind that reports status per
// ancestor Gateway is reported under (statusAncestors), also when it is
// rejected whole — as upstream's conformance test
// BackendTLSPolicyInvalidCACertificateRef (Gateway API v1.6.3) expects
// Accepted=False/NoValidCACertificate on ancestor Gateway
// same-namespace, the Gateway a route to the policy's Service is
// attached to. gepcheck-reference names the Gateways of a policy its
// loader refused with it.
func (m *Model) GatewaysReaching(targets []ref.Ref) []ref.Ref {
	order, _ := m.reaching(targets, map[topology.NodeID][]ref.Ref{})
	return order
}

// reaching lists, in ref order, the Gateways from which the hierarchy
// reaches one of targets, and for each Gateway (by ref) the targets it
// reaches; gateways is gatewaysAbove's memo.
func (m *Model) reaching(targets []ref.Ref, gateways map[topology.NodeID][]ref.Ref) ([]ref.Ref, map[string][]string) {
	reached := map[string][]string{} // Gateway ref → the targets it reaches
	var order []ref.Ref
	for _, t := range targets {
		id, ok := m.Graph.Lookup(t)
		if !ok {
			continue
		}
		for _, g := range m.gatewaysAbove(id, gateways) {
			gs := g.String()
			if _, seen := reached[gs]; !seen {
				order = append(order, g)
			}
			reached[gs] = append(reached[gs], t.String())
		}
	}
	slices.SortFunc(order, func(a, b ref.Ref) int {
		if topology.Less(a, b) {
			return -1
		}
		if topology.Less(b, a) {
			return 1
		}
		return 0
	})
	return order, reached
}

// written says whether the references' condition refs is written beside
// conds: always when a reference does not resolve ("In all cases, the
// implementation MUST ensure the `ResolvedRefs` Condition on the
// BackendTLSPolicy is set to `status: False`", Gateway API v1,
// BackendTLSPolicyValidation.CACertificateRefs), and when they all
// resolve, unless the policy is Conflicted there: a policy that does not
// take precedence is not applied, its references need not be resolved,
// and neither the API reference nor the conformance tests ask for
// ResolvedRefs on it (BackendTLSPolicyConflictResolution checks Accepted
// alone); docs/semantics.md.
func written(refs engine.Condition, conds []engine.Condition) bool {
	if refs.Status != "True" {
		return true
	}
	acc, _ := engine.FindCondition(conds, engine.TypeAccepted)
	return acc.Status != "False" || acc.Reason != engine.ReasonConflicted
}

// ancestorAccepted is the Accepted condition of a policy on an ancestor
// that reaches targets: True where the policy is accepted on one of them,
// else the first False; the policy's own when none of them has one.
func ancestorAccepted(pts []engine.PolicyTarget, targets []string, policy engine.Condition) engine.Condition {
	var first *engine.Condition
	for _, pt := range pts {
		if !slices.Contains(targets, pt.Ref) {
			continue
		}
		c, ok := engine.FindCondition(pt.Conditions, engine.TypeAccepted)
		if !ok {
			continue
		}
		if c.Status == "True" {
			return c
		}
		if first == nil {
			first = &c
		}
	}
	if first != nil {
		return *first
	}
	return policy
}

// gatewaysAbove lists the Gateways from which the hierarchy reaches node
// id (through listeners, routes, rules and, for a section, its object),
// in the graph's order, each once; under AncestorsPerListener the
// Gateway listeners instead, each with its section. Each node is visited at most once per
// call, and answers are kept in memo.
func (m *Model) gatewaysAbove(id topology.NodeID, memo map[topology.NodeID][]ref.Ref) []ref.Ref {
	if gs, ok := memo[id]; ok {
		return gs
	}
	var out []ref.Ref
	seen := map[topology.NodeID]bool{id: true}
	found := map[ref.Ref]bool{}
	queue := []topology.NodeID{id}
	for len(queue) > 0 {
		n := m.Graph.Node(queue[0])
		queue = queue[1:]
		if n.Ref.Group == GatewayGroup && n.Ref.Kind == "Gateway" {
			g := n.Ref
			if m.AncestorEntries != AncestorsPerListener {
				g.Section = ""
			}
			if !found[g] {
				found[g] = true
				out = append(out, g)
			}
			continue
		}
		for _, p := range n.Parents {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	memo[id] = out
	return out
}
