package topology

import (
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Grants are the ReferenceGrants of a cluster. A reference from an object in
// one namespace to an object in another is allowed only when a grant in the
// target's namespace trusts it (Gateway API ReferenceGrant; GEP-713 requires
// the same of cross-namespace policy targetRefs).
type Grants []*gwv1.ReferenceGrant

// Allows reports whether an object of fromGroup/fromKind in fromNamespace may
// refer to the object toGroup/toKind toNamespace/toName. References within a
// namespace are always allowed. Otherwise a grant in toNamespace must list
// the referrer's group, kind and namespace in spec.from, and the target's
// group and kind, and its name unless the grant leaves it out, in spec.to.
// The core group is "".
func (gs Grants) Allows(fromGroup, fromKind, fromNamespace, toGroup, toKind, toNamespace, toName string) bool {
	if fromNamespace == toNamespace {
		return true
	}
	for _, g := range gs {
		if g == nil || namespaceOf(g.Namespace) != toNamespace {
			continue
		}
		if grantsFrom(g.Spec.From, fromGroup, fromKind, fromNamespace) && grantsTo(g.Spec.To, toGroup, toKind, toName) {
			return true
		}
	}
	return false
}

func grantsFrom(from []gwv1.ReferenceGrantFrom, group, kind, namespace string) bool {
	for _, f := range from {
		if string(f.Group) == group && string(f.Kind) == kind && string(f.Namespace) == namespace {
			return true
		}
	}
	return false
}

func grantsTo(to []gwv1.ReferenceGrantTo, group, kind, name string) bool {
	for _, t := range to {
		if string(t.Group) != group || string(t.Kind) != kind {
			continue
		}
		if t.Name == nil || *t.Name == "" || string(*t.Name) == name {
			return true
		}
	}
	return false
}

// namespaceOf returns ns, or "default" for an object read without one.
func namespaceOf(ns string) string {
	if ns == "" {
		return DefaultNamespace
	}
	return ns
}
