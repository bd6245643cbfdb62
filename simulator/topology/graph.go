// Package topology builds the directed acyclic graph of targetable objects
// that GEP-713 calls the "Hierarchy of target kinds": roots are the least
// specific objects, leaves the most specific ones. Sections of objects
// (Gateway listeners, route rules, Service ports) are nodes of their own,
// children of the object they belong to.
package topology

import (
	"fmt"
	"sort"

	"github.com/gepcheck/gepcheck/simulator/ref"
)

// NodeID indexes Graph.Nodes.
type NodeID int32

// Node is one targetable object or section.
type Node struct {
	Ref      ref.Ref
	Parents  []NodeID
	Children []NodeID
	// Virtual marks a node of a kind the API server does not know, created
	// because a policy targets it (GEP-713, "Targeting virtual types").
	Virtual bool
	// Positional marks a section without a name of its own (an unnamed
	// route rule, named rules[i]): it is a node of the hierarchy but no
	// targetRef can name it.
	Positional bool
}

// Graph is a DAG of targetable objects. The zero value is empty and ready.
type Graph struct {
	Nodes []Node
	index map[key]NodeID
	// Warnings lists relationships that were declared but not made, e.g. a
	// route whose parent does not allow it.
	Warnings []string
}

type key struct{ group, kind, namespace, name, section string }

func keyOf(r ref.Ref) key { return key{r.Group, r.Kind, r.Namespace, r.Name, r.Section} }

// Add returns the node for r, creating it if needed.
func (g *Graph) Add(r ref.Ref) NodeID {
	if g.index == nil {
		g.index = map[key]NodeID{}
	}
	k := keyOf(r)
	if id, ok := g.index[k]; ok {
		return id
	}
	id := NodeID(len(g.Nodes))
	g.Nodes = append(g.Nodes, Node{Ref: r})
	g.index[k] = id
	return id
}

// Lookup finds the node for r.
func (g *Graph) Lookup(r ref.Ref) (NodeID, bool) {
	id, ok := g.index[keyOf(r)]
	return id, ok
}

// Node returns the node with the given id.
func (g *Graph) Node(id NodeID) *Node { return &g.Nodes[id] }

// Edge adds the relationship parent > child. Adding an edge twice is a no-op.
// Edges that would close a cycle are refused: the hierarchy is acyclic.
func (g *Graph) Edge(parent, child NodeID) error {
	for _, c := range g.Nodes[parent].Children {
		if c == child {
			return nil
		}
	}
	if parent == child || g.reaches(child, parent) {
		return fmt.Errorf("edge %s > %s would close a cycle", g.Nodes[parent].Ref, g.Nodes[child].Ref)
	}
	g.Nodes[parent].Children = append(g.Nodes[parent].Children, child)
	g.Nodes[child].Parents = append(g.Nodes[child].Parents, parent)
	return nil
}

func (g *Graph) reaches(from, to NodeID) bool {
	seen := map[NodeID]bool{}
	stack := []NodeID{from}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == to {
			return true
		}
		if seen[n] {
			continue
		}
		seen[n] = true
		stack = append(stack, g.Nodes[n].Children...)
	}
	return false
}

// Roots returns the nodes without parents, in order of their refs.
func (g *Graph) Roots() []NodeID {
	var out []NodeID
	for i := range g.Nodes {
		if len(g.Nodes[i].Parents) == 0 {
			out = append(out, NodeID(i))
		}
	}
	g.sortIDs(out)
	return out
}

// Sort orders every child list by ref, so that walks do not depend on the
// order in which objects were read.
func (g *Graph) Sort() {
	for i := range g.Nodes {
		g.sortIDs(g.Nodes[i].Children)
		g.sortIDs(g.Nodes[i].Parents)
	}
}

func (g *Graph) sortIDs(ids []NodeID) {
	sort.Slice(ids, func(a, b int) bool {
		return Less(g.Nodes[ids[a]].Ref, g.Nodes[ids[b]].Ref)
	})
}

// Less orders refs by kind, namespace, name, section and group.
func Less(a, b ref.Ref) bool {
	if a.Kind != b.Kind {
		return a.Kind < b.Kind
	}
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	if a.Section != b.Section {
		return a.Section < b.Section
	}
	return a.Group < b.Group
}

// Prefixes counts the paths from a root to each node, summed over the
// nodes: how many path prefixes a walk of every path visits, an upper bound
// of the paths (and of the engine's work) whatever a profile projects them
// onto. The count stops at limit+1.
func (g *Graph) Prefixes(limit int64) int64 {
	to := make([]int64, len(g.Nodes)) // paths from a root to each node
	done := make([]bool, len(g.Nodes))
	var visit func(id NodeID) int64
	visit = func(id NodeID) int64 {
		if done[id] {
			return to[id]
		}
		n := &g.Nodes[id]
		var c int64
		if len(n.Parents) == 0 {
			c = 1
		}
		for _, p := range n.Parents {
			c = min(c+visit(p), limit+1)
		}
		to[id], done[id] = c, true
		return c
	}
	var total int64
	for i := range g.Nodes {
		total = min(total+visit(NodeID(i)), limit+1)
	}
	return total
}
