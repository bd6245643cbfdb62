package simulator

import (
	"fmt"
	"slices"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/topology"
)

// labeled records the labels of an object of the hierarchy, for
// label-selector targets (profile.TargetSelectors). Objects without labels
// are not recorded: they have none to match.
func (b *builder) labeled(d *load.Doc, l map[string]string) {
	if len(l) == 0 {
		return
	}
	if b.labels == nil {
		b.labels = map[ref.Ref]labels.Set{}
	}
	b.labels[ref.Ref{Group: d.Group, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}] = labels.Set(l)
}

// objectsOf returns the object nodes of a kind (not their sections), in
// order of their refs; built once per kind.
func (b *builder) objectsOf(group, kind string) []topology.NodeID {
	if b.byKind == nil {
		b.byKind = map[profile.GroupKind][]topology.NodeID{}
		g := b.m.Graph
		for i := range g.Nodes {
			n := &g.Nodes[i]
			if n.Ref.Section != "" || n.Virtual {
				continue
			}
			k := profile.GroupKind{Group: n.Ref.Group, Kind: n.Ref.Kind}
			b.byKind[k] = append(b.byKind[k], topology.NodeID(i))
		}
		for _, ids := range b.byKind {
			sort.Slice(ids, func(i, j int) bool { return topology.Less(g.Nodes[ids[i]].Ref, g.Nodes[ids[j]].Ref) })
		}
	}
	return b.byKind[profile.GroupKind{Group: group, Kind: kind}]
}

// selectTargets reads the label-selector targets of a policy (the profile's
// targetSelectors field) and returns a targetRef for every object each
// selects, in order of the selectors and then of the objects' refs. ok is
// false when a selector is malformed (the error names its field).
func (b *builder) selectTargets(d *load.Doc, p *profile.Profile, pol *engine.Policy, spec map[string]any) (out []engine.TargetRef, present, ok bool) {
	ts := p.Spec.TargetSelectors
	if ts == nil {
		return nil, false, true
	}
	v, has := spec[ts.Field]
	if !has || v == nil {
		return nil, false, true
	}
	list, isList := v.([]any)
	if !isList {
		b.fail(d, "spec."+ts.Field, "must be a list of selectors ({group, kind, matchLabels, matchExpressions, namespaces})")
		return nil, true, false
	}
	for i, e := range list {
		field := fmt.Sprintf("spec.%s[%d]", ts.Field, i)
		sel, ok := b.readSelector(d, field, e)
		if !ok {
			return nil, true, false
		}
		for _, id := range b.objectsOf(sel.group, sel.kind) {
			r := b.m.Graph.Node(id).Ref
			if !sel.namespaces(r.Namespace, pol.Ref.Namespace, b.nsLabelsOf) {
				continue
			}
			if r.Namespace != pol.Ref.Namespace && !b.m.Grants.Allows(pol.Ref.Group, pol.Ref.Kind, pol.Ref.Namespace, r.Group, r.Kind, r.Namespace, r.Name) {
				// docs/profiles.md, Label-selector targets: "Cross-namespace
				// targets without a matching ReferenceGrant are ignored."
				continue
			}
			if !sel.labels.Matches(b.labels[r]) {
				continue
			}
			tr := engine.TargetRef{Group: r.Group, Kind: r.Kind, Name: r.Name, Selector: field}
			if r.Namespace != pol.Ref.Namespace {
				tr.Namespace = r.Namespace
			}
			out = append(out, tr)
		}
	}
	if len(out) == 0 {
		b.selectWarnings = append(b.selectWarnings, fmt.Sprintf("%s: spec.%s select no object", pol.Ref, ts.Field))
	}
	return out, true, true
}

// targetSelector is one label-selector target, read.
type targetSelector struct {
	group, kind string
	labels      labels.Selector
	from        string          // Same, All or Selector
	nsSelector  labels.Selector // from Selector
}

// namespaces reports whether the selector considers namespace ns for a
// policy in namespace policyNS.
func (s *targetSelector) namespaces(ns, policyNS string, nsLabels func(string) labels.Set) bool {
	switch s.from {
	case "All":
		return true
	case "Selector":
		return s.nsSelector.Matches(nsLabels(ns))
	}
	return ns == policyNS
}

// nsLabelsOf returns the labels of a namespace, with the one Kubernetes sets
// on every namespace.
func (b *builder) nsLabelsOf(ns string) labels.Set {
	out := labels.Set{topology.NamespaceNameLabel: ns}
	for k, v := range b.nsLabels[ns] {
		out[k] = v
	}
	return out
}

// readSelector reads one label-selector target (docs/profiles.md,
// Label-selector targets): group (default gateway.networking.k8s.io), kind,
// matchLabels, matchExpressions and namespaces {from: Same|All|Selector,
// selector}.
func (b *builder) readSelector(d *load.Doc, field string, e any) (*targetSelector, bool) {
	m, isMap := e.(map[string]any)
	if !isMap {
		b.fail(d, field, "must be an object with kind and matchLabels or matchExpressions")
		return nil, false
	}
	for _, k := range slices.Sorted(mapKeys(m)) {
		switch k {
		case "group", "kind", "matchLabels", "matchExpressions", "namespaces":
		default:
			b.fail(d, field+"."+k, "unknown field (a target selector takes group, kind, matchLabels, matchExpressions and namespaces)")
			return nil, false
		}
	}
	s := &targetSelector{group: GatewayGroup, from: "Same"}
	if g, has := m["group"]; has && g != nil {
		gs, isString := g.(string)
		if !isString {
			b.fail(d, field+".group", "must be a string, not %v", g)
			return nil, false
		}
		s.group = gs
	}
	kind, isString := m["kind"].(string)
	if !isString || kind == "" {
		b.fail(d, field+".kind", "is required")
		return nil, false
	}
	s.kind = kind
	ls, ok := b.labelSelector(d, field, m)
	if !ok {
		return nil, false
	}
	s.labels = ls
	if n, has := m["namespaces"]; has && n != nil {
		nm, isMap := n.(map[string]any)
		if !isMap {
			b.fail(d, field+".namespaces", "must be an object with from and selector")
			return nil, false
		}
		if f, has := nm["from"]; has {
			fs, _ := f.(string)
			switch fs {
			case "Same", "All", "Selector":
				s.from = fs
			default:
				b.fail(d, field+".namespaces.from", "must be Same, All or Selector, not %v", f)
				return nil, false
			}
		}
		if s.from == "Selector" {
			sm, isMap := nm["selector"].(map[string]any)
			if !isMap {
				b.fail(d, field+".namespaces.selector", "is required when from is Selector")
				return nil, false
			}
			nsSel, ok := b.labelSelector(d, field+".namespaces.selector", sm)
			if !ok {
				return nil, false
			}
			s.nsSelector = nsSel
		}
	}
	return s, true
}

// labelSelector reads matchLabels and matchExpressions of m, a Kubernetes
// label selector (ANDed; an empty one selects everything).
func (b *builder) labelSelector(d *load.Doc, field string, m map[string]any) (labels.Selector, bool) {
	var sel metav1.LabelSelector
	if ml, has := m["matchLabels"]; has && ml != nil {
		mm, isMap := ml.(map[string]any)
		if !isMap {
			b.fail(d, field+".matchLabels", "must map label keys to values")
			return nil, false
		}
		sel.MatchLabels = map[string]string{}
		for k, v := range mm {
			vs, isString := v.(string)
			if !isString {
				b.fail(d, field+".matchLabels."+k, "must be a string, not %v", v)
				return nil, false
			}
			sel.MatchLabels[k] = vs
		}
	}
	if me, has := m["matchExpressions"]; has && me != nil {
		list, isList := me.([]any)
		if !isList {
			b.fail(d, field+".matchExpressions", "must be a list of {key, operator, values}")
			return nil, false
		}
		for i, x := range list {
			xf := fmt.Sprintf("%s.matchExpressions[%d]", field, i)
			xm, _ := x.(map[string]any)
			key, _ := xm["key"].(string)
			op, _ := xm["operator"].(string)
			req := metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOperator(op)}
			vals, _ := xm["values"].([]any)
			for _, v := range vals {
				vs, isString := v.(string)
				if !isString {
					b.fail(d, xf+".values", "must be strings, not %v", v)
					return nil, false
				}
				req.Values = append(req.Values, vs)
			}
			switch req.Operator {
			case metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist:
			default:
				b.fail(d, xf+".operator", "must be In, NotIn, Exists or DoesNotExist, not %q", op)
				return nil, false
			}
			sel.MatchExpressions = append(sel.MatchExpressions, req)
		}
	}
	out, err := metav1.LabelSelectorAsSelector(&sel)
	if err != nil {
		b.fail(d, field, "%v", err)
		return nil, false
	}
	return out, true
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
