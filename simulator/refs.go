package simulator

import (
	"sort"

	"github.com/gepcheck/gepcheck/simulator/ref"
)

// Refs are the objects (or, with policies, the policies) of m a reference may name,
// sorted: every node of the hierarchy and every policy.
func (m *Model) Refs(policies bool) []ref.Ref {
	var out []ref.Ref
	if policies {
		for _, k := range m.Kinds {
			for _, p := range k.Policies {
				out = append(out, p.Ref)
			}
		}
	} else {
		for _, n := range m.Graph.Nodes {
			out = append(out, n.Ref)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
