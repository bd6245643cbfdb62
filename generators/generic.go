package generators

import (
	"fmt"
	"strings"

	"pgregory.net/rapid"
)

// GenericKinds are the abstract kinds of generic scenarios, least specific
// first.
var GenericKinds = []string{"A", "B", "C", "D"}

// GenericScenarios draws generic scenarios: a DAG of 2–4 abstract kinds
// (A > B > C > D, group GenericGroup) with 1–3 cluster-scoped nodes each
// (a1, b1, b2, ...), edges only from a node of one kind to nodes of the next
// kind, shared children (GEP-713's a1 > (b1 > c1, b2 > (c1, c2))), a few
// nodes without parents; and policies of kind P (GenericPolicyKind), whose
// profile (ProfileYAML) targets every kind, augments the last one and
// implements the four merging strategies as all-levels does. cfg.Profile
// and cfg.CrossNamespace are ignored; MaxObjects bounds the nodes (at least
// 2). GenericScenarios panics if cfg is not valid.
func GenericScenarios(cfg Config) *rapid.Generator[*Scenario] {
	cfg.Profile = ""
	if err := cfg.ValidateGeneric(); err != nil {
		panic("generators.GenericScenarios: " + err.Error())
	}
	cfg = cfg.withDefaults()
	return rapid.Custom(func(t *rapid.T) *Scenario {
		b := &budget{left: cfg.MaxObjects}
		nk := rapid.IntRange(2, min(len(GenericKinds), cfg.MaxObjects)).Draw(t, "kinds")
		g := &Generic{Group: GenericGroup, Kinds: GenericKinds[:nk]}
		var prev []int // nodes of the previous kind
		for k, kind := range g.Kinds {
			n := b.draw(t, "nodes of "+kind, 1, 3, nk-1-k)
			var cur []int
			for i := 0; i < n; i++ {
				id := len(g.Nodes)
				g.Nodes = append(g.Nodes, GenericNode{Kind: kind, Name: fmt.Sprintf("%s%d", strings.ToLower(kind), i+1)})
				cur = append(cur, id)
				if k == 0 || rapid.IntRange(0, 9).Draw(t, "has parents") == 9 {
					continue
				}
				for _, p := range rapid.SliceOfNDistinct(rapid.SampledFrom(prev), 1, min(2, len(prev)), rapid.ID[int]).Draw(t, "parents") {
					g.Edges = append(g.Edges, [2]int{p, id})
				}
			}
			prev = cur
		}
		s := &Scenario{Generic: g, ProfileYAML: genericProfile(g.Kinds)}
		s.Namespaces = AllNamespaces[:rapid.IntRange(1, 2).Draw(t, "policy namespaces")]
		w := newWorld(s, cfg)
		n := rapid.IntRange(min(1, cfg.MaxPolicies), cfg.MaxPolicies).Draw(t, "policies")
		for i := 0; i < n; i++ {
			s.Policies = append(s.Policies, w.drawPolicy(t, false))
		}
		s.Namespaces = namespacesOf(s)
		return s
	})
}
