package topology

import (
	"errors"
	"fmt"

	"github.com/gepcheck/gepcheck/simulator/ref"
)

// APIVersion and kind of the document that declares a generic topology.
const (
	GenericAPIVersion = "gepcheck.dev/v1alpha1"
	GenericKind       = "Topology"
)

// GenericTopology declares a hierarchy of arbitrary kinds, so that GEP-713's
// abstract example (kinds A > B > C; a1 > (b1 > c1, b2 > (c1, c2))) can be
// written as it is:
//
//	apiVersion: gepcheck.dev/v1alpha1
//	kind: Topology
//	metadata: {name: abstract}
//	spec:
//	  group: example.gepcheck.dev
//	  kinds: [A, B, C]
//	  nodes: [A/a1, B/b1, B/b2, C/c1, C/c2]
//	  edges:
//	  - {from: A/a1, to: B/b1}
type GenericTopology struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec GenericSpec `json:"spec"`
}

// GenericSpec is the hierarchy of a GenericTopology.
type GenericSpec struct {
	// Group is the group of every node kind.
	Group string `json:"group,omitempty"`
	// Kinds lists the hierarchy of kinds, least specific first. Every node's
	// kind must be listed, and edges must not go from a more specific kind
	// to a less specific one.
	Kinds []string `json:"kinds"`
	// Nodes are Kind/name (cluster-scoped) or Kind/namespace/name, each
	// optionally followed by #section. A section node is made a child of its
	// object's node, which must be declared too.
	Nodes []string `json:"nodes"`
	// Edges are the relationships parent > child.
	Edges []GenericEdge `json:"edges,omitempty"`
}

// GenericEdge is the relationship From > To between two declared nodes.
type GenericEdge struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// AddGeneric adds the nodes and edges of s. It checks s first and, if
// anything is wrong, returns an error naming every offending field (e.g.
// `spec.edges[2].to: "B/b9" is not a declared node`) and leaves g unchanged.
// Adding to a graph that already holds some of the nodes can still fail on a
// cycle through the existing edges; then g keeps the edges added so far.
func (g *Graph) AddGeneric(s GenericSpec) error {
	var scratch Graph
	if err := scratch.addGeneric(s); err != nil {
		return err
	}
	for _, n := range scratch.Nodes {
		g.Add(n.Ref)
	}
	for _, n := range scratch.Nodes {
		parent, _ := g.Lookup(n.Ref)
		for _, c := range n.Children {
			child, _ := g.Lookup(scratch.Nodes[c].Ref)
			if err := g.Edge(parent, child); err != nil {
				return fmt.Errorf("spec.edges: %w", err)
			}
		}
	}
	g.Sort()
	return nil
}

// addGeneric builds s into an empty graph, reporting every problem.
func (g *Graph) addGeneric(s GenericSpec) error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	rank := map[string]int{}
	for i, k := range s.Kinds {
		if k == "" {
			fail("spec.kinds[%d]: empty kind", i)
			continue
		}
		if j, dup := rank[k]; dup {
			fail("spec.kinds[%d]: kind %q is also spec.kinds[%d]", i, k, j)
			continue
		}
		rank[k] = i
	}

	declared := map[ref.Ref]int{}
	for i, n := range s.Nodes {
		r, err := parseNode(n, s.Group)
		switch {
		case err != nil:
			fail("spec.nodes[%d]: %v", i, err)
		case !hasKind(rank, r.Kind):
			fail("spec.nodes[%d]: kind %q is not in spec.kinds", i, r.Kind)
		case declared[r] > 0:
			fail("spec.nodes[%d]: %q is also spec.nodes[%d]", i, n, declared[r]-1)
		default:
			declared[r] = i + 1
			g.Add(r)
		}
	}
	// A section is a child of its object (GEP-713 sectionName targeting).
	for _, n := range g.Nodes {
		if n.Ref.Section == "" {
			continue
		}
		obj, ok := g.Lookup(n.Ref.Object())
		if !ok {
			fail("spec.nodes[%d]: section %q needs its object %q declared", declared[n.Ref]-1, n.Ref, n.Ref.Object())
			continue
		}
		id, _ := g.Lookup(n.Ref)
		if err := g.Edge(obj, id); err != nil {
			fail("spec.nodes[%d]: %v", declared[n.Ref]-1, err)
		}
	}

	for i, e := range s.Edges {
		from, okFrom := lookupNode(g, s.Group, e.From)
		to, okTo := lookupNode(g, s.Group, e.To)
		if !okFrom {
			fail("spec.edges[%d].from: %q is not a declared node", i, e.From)
		}
		if !okTo {
			fail("spec.edges[%d].to: %q is not a declared node", i, e.To)
		}
		if !okFrom || !okTo {
			continue
		}
		fk, tk := g.Nodes[from].Ref.Kind, g.Nodes[to].Ref.Kind
		if rank[fk] > rank[tk] {
			fail("spec.edges[%d]: %s is more specific than %s in spec.kinds, so %q cannot be a parent of %q", i, fk, tk, e.From, e.To)
			continue
		}
		if err := g.Edge(from, to); err != nil {
			fail("spec.edges[%d]: %v", i, err)
		}
	}
	return errors.Join(errs...)
}

func hasKind(rank map[string]int, kind string) bool {
	_, ok := rank[kind]
	return ok
}

func parseNode(s, group string) (ref.Ref, error) {
	r, err := ref.Parse(s)
	if err != nil {
		return ref.Ref{}, err
	}
	r.Group = group
	// Names as the API server validates them (ref.NameErrors); a
	// generic node's kind is a custom resource's.
	for _, c := range []struct {
		v        string
		problems func(string) []string
	}{
		{r.Name, func(n string) []string { return ref.NameErrors(group, r.Kind, n) }},
		{r.Namespace, ref.NamespaceErrors},
		{r.Section, ref.SectionNameErrors},
	} {
		if c.v != "" {
			if p := c.problems(c.v); p != nil {
				return ref.Ref{}, errors.New(ref.Invalid(c.v, p))
			}
		}
	}
	return r, nil
}

func lookupNode(g *Graph, group, s string) (NodeID, bool) {
	r, err := parseNode(s, group)
	if err != nil {
		return 0, false
	}
	return g.Lookup(r)
}
