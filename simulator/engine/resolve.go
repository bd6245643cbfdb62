package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/topology"
)

// Less orders two policies attached at the same level of the hierarchy: a is
// established over b. GEP-713, Conflict resolution rules 2 and 3: "the older
// policy based on creation timestamp MUST be assigned as the established
// one"; with identical timestamps, "the policy appearing first in
// alphabetical order by {namespace}/{name}". A policy without a timestamp
// counts as not yet created: newer than any policy that has one.
func Less(a, b *Policy) bool { return less(a, b, "") }

// LessFor returns the order of a (possibly mutant) engine.
func LessFor(m Mutant) func(a, b *Policy) bool {
	return func(a, b *Policy) bool { return less(a, b, m) }
}

func less(a, b *Policy, m Mutant) bool {
	at, bt := a.CreationTimestamp, b.CreationTimestamp
	if m == MutantNewerWins {
		at, bt = bt, at
	}
	switch {
	case at == nil && bt != nil:
		return false
	case at != nil && bt == nil:
		return true
	case at != nil && !at.Equal(*bt):
		return at.Before(*bt)
	}
	switch m {
	case MutantInputOrder:
		return false
	case MutantFlakyTies:
		if flaky.Add(1)%2 == 0 {
			a, b = b, a
		}
	case MutantNameDescending:
		a, b = b, a
	}
	if an, bn := a.Ref.NamespacedName(), b.Ref.NamespacedName(); an != bn {
		return an < bn
	}
	// Same namespace/name (only possible across groups): fall back to the
	// group so the order stays total.
	return a.Ref.Group < b.Ref.Group
}

// NormalizeGroup drops a version from a group written as group/version, as
// GEP-713's own examples do ("group: gateway.networking.k8s.io/v1").
func NormalizeGroup(g string) string {
	if i := strings.IndexByte(g, '/'); i >= 0 {
		return g[:i]
	}
	return g
}

// LookupTarget finds the node a targetRef names, named with the policy's
// namespace when the targetRef gives none: a cluster-scoped target
// (GatewayClass, an abstract kind) is found without it, since a namespace
// does not apply to it. It returns the node's ref when found.
func LookupTarget(g *topology.Graph, named ref.Ref) (topology.NodeID, ref.Ref, bool) {
	if id, ok := g.Lookup(named); ok {
		return id, named, true
	}
	cs := named
	cs.Namespace = ""
	if id, ok := g.Lookup(cs); ok {
		return id, cs, true
	}
	return 0, named, false
}

// targetOutcome is the result of resolving one targetRef.
type targetOutcome struct {
	ref    ref.Ref // what the targetRef names (the node's ref when found)
	node   topology.NodeID
	ok     bool
	reason string
	msg    string
}

// resolve resolves the targetRefs of p in g. Duplicate references to the same
// node are merged.
func resolve(in *Input, p *Policy) []targetOutcome {
	var out []targetOutcome
	seen := map[topology.NodeID]bool{}
	for _, tr := range p.TargetRefs {
		o := resolveOne(in, p, tr)
		if o.ok {
			if seen[o.node] {
				continue
			}
			seen[o.node] = true
		}
		out = append(out, o)
		if o.ok && tr.Selector != "" && in.Mutant == MutantSelectorAnyNamespace {
			for _, id := range otherNamespaces(in.Graph, o.ref) {
				if !seen[id] {
					seen[id] = true
					out = append(out, targetOutcome{ref: in.Graph.Node(id).Ref, node: id, ok: true})
				}
			}
		}
	}
	return out
}

func resolveOne(in *Input, p *Policy, tr TargetRef) targetOutcome {
	if in.Mutant == MutantLeakyTargets {
		tr.SectionName = "" // a listener or rule target leaks to its whole object
	}
	group := NormalizeGroup(tr.Group)
	ns := tr.Namespace
	if ns == "" {
		ns = p.Ref.Namespace
	}
	named := ref.Ref{Group: group, Kind: tr.Kind, Namespace: ns, Name: tr.Name, Section: tr.SectionName}
	o := targetOutcome{ref: named}
	t, ok := in.Profile.Target(group, tr.Kind)
	if !ok {
		o.reason = ReasonInvalid
		o.msg = fmt.Sprintf("%s cannot target %s (group %q); it targets %s", in.Profile.Spec.Policy.Kind, tr.Kind, group, targetKinds(in.Profile))
		return o
	}
	switch {
	case t.SectionName == profile.SectionForbidden && tr.SectionName != "":
		o.reason, o.msg = ReasonInvalid, fmt.Sprintf("targetRef to %s sets sectionName, which %s does not allow for %s", named, in.Profile.Spec.Policy.Kind, tr.Kind)
		return o
	case t.SectionName == profile.SectionRequired && tr.SectionName == "":
		o.reason, o.msg = ReasonInvalid, fmt.Sprintf("targetRef to %s needs a sectionName", named)
		return o
	}
	id, named, found := LookupTarget(in.Graph, named)
	if msg := crossNamespaceRefused(in, p, tr, named, group); msg != "" {
		o.reason, o.msg = ReasonInvalid, msg
		return o
	}
	if found && in.Graph.Node(id).Positional {
		// GEP-713, Targeting sections of an object: only sections
		// "uniquely identifiable by name" can be targeted.
		o.reason = ReasonTargetNotFound
		o.msg = fmt.Sprintf("%s has no section named %q: %s is the position of an unnamed rule; name the rule to target it", named.Object(), tr.SectionName, tr.SectionName)
		return o
	}
	if !found {
		o.reason = ReasonTargetNotFound
		if tr.SectionName != "" {
			if _, objFound := in.Graph.Lookup(named.Object()); objFound {
				o.msg = fmt.Sprintf("%s has no section named %q", named.Object(), tr.SectionName)
				return o
			}
		}
		o.msg = fmt.Sprintf("target %s not found", named)
		return o
	}
	if in.Mutant == MutantListenerSetOnGateway && named.Kind == "ListenerSet" && named.Section == "" {
		for _, parent := range in.Graph.Node(id).Parents {
			id = parent // the ListenerSet's Gateway
		}
	}
	o.ref, o.node, o.ok = in.Graph.Node(id).Ref, id, true
	return o
}

// crossNamespaceRefused says why a targetRef to another namespace is
// refused, or is empty. GEP-713, Cross namespace references: a
// ReferenceGrant or an equivalent handshake must show the target accepts
// the policy.
func crossNamespaceRefused(in *Input, p *Policy, tr TargetRef, named ref.Ref, group string) string {
	if named.Namespace == "" || tr.Namespace == "" || tr.Namespace == p.Ref.Namespace || tr.Selector != "" {
		return ""
	}
	if !in.Profile.Spec.CrossNamespace {
		return fmt.Sprintf("targetRef to %s is in another namespace, and %s does not allow cross-namespace targets", named, in.Profile.Spec.Policy.Kind)
	}
	if !in.Grants.Allows(p.Ref.Group, p.Ref.Kind, p.Ref.Namespace, group, tr.Kind, tr.Namespace, tr.Name) {
		// GEP-2649, On Policy objects: only the reasons of Gateway API's
		// Go spec (Accepted, Conflicted, Invalid, TargetNotFound).
		return fmt.Sprintf("targetRef to %s is not permitted: no ReferenceGrant in namespace %s allows %s from namespace %s", named, tr.Namespace, p.Ref.Kind, p.Ref.Namespace)
	}
	return ""
}

func targetKinds(p *profile.Profile) string {
	var ks []string
	for _, t := range p.Spec.Targets {
		ks = append(ks, t.Kind)
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}

// AddVirtualTargets adds to g a node for every target of a virtual kind that
// the policies name and g lacks (GEP-713, "Targeting virtual types"). Virtual
// targets are cluster-scoped unless the targetRef names a namespace.
func AddVirtualTargets(g *topology.Graph, p *profile.Profile, policies []Policy) {
	for _, pol := range policies {
		for _, tr := range pol.TargetRefs {
			group := NormalizeGroup(tr.Group)
			t, ok := p.Target(group, tr.Kind)
			if !ok || !t.Virtual {
				continue
			}
			r := ref.Ref{Group: group, Kind: tr.Kind, Namespace: tr.Namespace, Name: tr.Name}
			if _, ok := g.Lookup(r); ok {
				continue
			}
			id := g.Add(r)
			g.Node(id).Virtual = true
			if tr.SectionName != "" {
				s := r
				s.Section = tr.SectionName
				sid := g.Add(s)
				g.Node(sid).Virtual = true
				_ = g.Edge(id, sid)
			}
		}
	}
}
