package render

import (
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/topology"
)

// MaxDiagramNodes bounds the boxes a diagram draws (docs/limits.md): a
// larger hierarchy is not drawn.
const MaxDiagramNodes = 400

// Diagram is the picture GEP-713 draws of a hierarchy: targets as boxes,
// each parent above its children with a solid edge, and policies beside
// them, a dotted edge from each to what it targets. A targetRef to an
// object that does not exist is a dashed box of its own.
type Diagram struct {
	Nodes         []DiagramNode
	Edges         []DiagramEdge
	Width, Height int
	// TooLarge, when set, says why the hierarchy is not drawn.
	TooLarge string
}

// DiagramNode is a box: a target (an object or a section), a policy, or a
// missing target.
type DiagramNode struct {
	ID    string
	Ref   string // Kind/namespace/name[#section]
	Label string
	Class string // target, section, policy, missing
	X, Y  int
	W, H  int
}

// DiagramEdge joins two boxes; Dotted for a policy's targetRef.
type DiagramEdge struct {
	From, To string
	Dotted   bool
}

const (
	boxH, rowGap, colGap, charW, pad = 28, 44, 16, 7, 10
)

// labeller labels a node kind/name#section, with its namespace when the
// graph has more than one.
func labeller(g *topology.Graph) func(ref.Ref) string {
	namespaces := map[string]bool{}
	for _, n := range g.Nodes {
		if n.Ref.Namespace != "" {
			namespaces[n.Ref.Namespace] = true
		}
	}
	return func(r ref.Ref) string {
		s := r.Kind + "/"
		if len(namespaces) > 1 && r.Namespace != "" {
			s += r.Namespace + "/"
		}
		s += r.Name
		if r.Section != "" {
			s += "#" + r.Section
		}
		return ref.Printable(s)
	}
}

// depths gives each node's depth, the longest way down from a root, and
// the nodes of each depth in order of their ids; maxDepth is the deepest.
func depths(g *topology.Graph) (depth []int, rows map[int][]topology.NodeID, maxDepth int) {
	depth = make([]int, len(g.Nodes))
	var depthOf func(id topology.NodeID) int
	seen := make([]bool, len(g.Nodes))
	depthOf = func(id topology.NodeID) int {
		if seen[id] {
			return depth[id]
		}
		seen[id] = true
		for _, p := range g.Nodes[id].Parents {
			depth[id] = max(depth[id], depthOf(p)+1)
		}
		return depth[id]
	}
	rows = map[int][]topology.NodeID{}
	for i := range g.Nodes {
		dep := depthOf(topology.NodeID(i))
		rows[dep] = append(rows[dep], topology.NodeID(i))
		maxDepth = max(maxDepth, dep)
	}
	return depth, rows, maxDepth
}

// NewDiagram lays out m's hierarchy and policies: rows by depth (the
// longest path from a root), each row in reference order, policies in a
// column to the right, beside the row of their first target.
func NewDiagram(m *simulator.Model) *Diagram {
	d := &Diagram{}
	g := m.Graph
	nPolicies := 0
	for _, k := range m.Kinds {
		nPolicies += len(k.Policies)
	}
	if len(g.Nodes)+nPolicies > MaxDiagramNodes {
		d.TooLarge = fmt.Sprintf("%d objects and policies, more than the %d a diagram draws", len(g.Nodes)+nPolicies, MaxDiagramNodes)
		return d
	}
	label := labeller(g)
	depth, rows, maxDepth := depths(g)
	id := func(i topology.NodeID) string { return fmt.Sprintf("t%d", i) }
	width := 0
	for dep := 0; dep <= maxDepth; dep++ {
		row := rows[dep]
		slices.SortFunc(row, func(a, b topology.NodeID) int {
			return strings.Compare(g.Nodes[a].Ref.String(), g.Nodes[b].Ref.String())
		})
		x := pad
		for _, n := range row {
			node := g.Nodes[n]
			l := label(node.Ref)
			class := "target"
			if node.Ref.Section != "" {
				class = "section"
			}
			w := max(90, len(l)*charW+2*pad)
			d.Nodes = append(d.Nodes, DiagramNode{ID: id(n), Ref: node.Ref.String(), Label: l, Class: class, X: x, Y: pad + dep*(boxH+rowGap), W: w, H: boxH})
			x += w + colGap
		}
		width = max(width, x)
	}
	for i, n := range g.Nodes {
		for _, c := range n.Children {
			d.Edges = append(d.Edges, DiagramEdge{From: id(topology.NodeID(i)), To: id(c)})
		}
	}
	// Policies, in a column right of the hierarchy.
	px, py := width+3*colGap, pad
	colW := 0
	missing := 0
	for _, k := range m.Kinds {
		pols := slices.Clone(k.Policies)
		slices.SortFunc(pols, func(a, b engine.Policy) int { return strings.Compare(a.Ref.String(), b.Ref.String()) })
		for _, p := range pols {
			pid := "p" + fmt.Sprint(len(d.Nodes))
			var targets []string
			row := 0
			for i, t := range p.TargetRefs {
				ns := t.Namespace
				if ns == "" {
					ns = p.Ref.Namespace
				}
				r := ref.Ref{Group: engine.NormalizeGroup(t.Group), Kind: t.Kind, Namespace: ns, Name: t.Name, Section: t.SectionName}
				n, r, ok := engine.LookupTarget(g, r)
				if ok {
					targets = append(targets, id(n))
					if i == 0 {
						row = depth[n]
					}
					continue
				}
				// A target that does not exist: a dashed box below the
				// hierarchy.
				mid := fmt.Sprintf("m%d", missing)
				missing++
				l := "missing: " + label(r)
				w := max(90, len(l)*charW+2*pad)
				d.Nodes = append(d.Nodes, DiagramNode{ID: mid, Ref: r.String(), Label: l, Class: "missing", X: pad + (missing-1)*(w+colGap), Y: pad + (maxDepth+1)*(boxH+rowGap), W: w, H: boxH})
				targets = append(targets, mid)
			}
			l := label(p.Ref)
			w := max(90, len(l)*charW+2*pad)
			y := max(py, pad+row*(boxH+rowGap))
			d.Nodes = append(d.Nodes, DiagramNode{ID: pid, Ref: p.Ref.String(), Label: l, Class: "policy", X: px, Y: y, W: w, H: boxH})
			py = y + boxH + colGap
			colW = max(colW, w)
			for _, t := range targets {
				d.Edges = append(d.Edges, DiagramEdge{From: pid, To: t, Dotted: true})
			}
		}
	}
	d.Width = px + colW + pad
	d.Height = max(py, pad+(maxDepth+1)*(boxH+rowGap))
	if missing > 0 {
		d.Height = pad + (maxDepth+2)*(boxH+rowGap)
		for _, n := range d.Nodes {
			d.Width = max(d.Width, n.X+n.W+pad)
		}
	}
	return d
}

// SVG draws d as a standalone SVG element: each box a <g> with
// class "node CLASS" and data-ref its reference, each edge a <path>.
func (d *Diagram) SVG() string {
	if d.TooLarge != "" {
		return `<p class="too-large">Not drawn: ` + html.EscapeString(d.TooLarge) + `</p>`
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="hierarchy" width="%d" height="%d" viewBox="0 0 %d %d" role="img">`, d.Width, d.Height, d.Width, d.Height)
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z"/></marker></defs>`)
	at := map[string]DiagramNode{}
	for _, n := range d.Nodes {
		at[n.ID] = n
	}
	for _, e := range d.Edges {
		f, t := at[e.From], at[e.To]
		if e.Dotted {
			// From the policy's left side into the top of the target,
			// through the gap above the target's row, so that the edge
			// does not run under the boxes of that row.
			x1, y1 := f.X, f.Y+f.H/2
			x2, y2 := t.X+t.W/2, t.Y
			up := y2 - rowGap/2
			fmt.Fprintf(&b, `<path class="edge policy-edge" d="M %d %d C %d %d, %d %d, %d %d" stroke-dasharray="4 3" marker-end="url(#arrow)"/>`,
				x1, y1, x1-3*colGap, up, x2+colGap, up, x2, y2)
			continue
		}
		fmt.Fprintf(&b, `<path class="edge" d="M %d %d L %d %d" marker-end="url(#arrow)"/>`, f.X+f.W/2, f.Y+f.H, t.X+t.W/2, t.Y)
	}
	for _, n := range d.Nodes {
		dash := ""
		if n.Class == "missing" {
			dash = ` stroke-dasharray="5 3"`
		}
		fmt.Fprintf(&b, `<g class="node %s" data-ref="%s"><rect x="%d" y="%d" width="%d" height="%d" rx="4"%s/><text x="%d" y="%d">%s</text></g>`,
			n.Class, html.EscapeString(n.Ref), n.X, n.Y, n.W, n.H, dash, n.X+pad, n.Y+boxH/2+4, html.EscapeString(n.Label))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// DOT draws d in Graphviz's language: targets as boxes, policies as
// rounded boxes, policy edges dotted.
func (d *Diagram) DOT() string {
	var b strings.Builder
	b.WriteString("digraph hierarchy {\n  rankdir=TB;\n  node [shape=box, fontname=\"sans-serif\"];\n")
	for _, n := range d.Nodes {
		style := ""
		switch n.Class {
		case "policy":
			style = `, style="rounded,filled", fillcolor="#fff3d6"`
		case "missing":
			style = `, style=dashed`
		}
		fmt.Fprintf(&b, "  %s [label=%q%s];\n", n.ID, n.Label, style)
	}
	for _, e := range d.Edges {
		if e.Dotted {
			fmt.Fprintf(&b, "  %s -> %s [style=dotted];\n", e.From, e.To)
		} else {
			fmt.Fprintf(&b, "  %s -> %s;\n", e.From, e.To)
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// Mermaid draws d as a Mermaid flowchart: policy edges dotted.
func (d *Diagram) Mermaid() string {
	var b strings.Builder
	b.WriteString("flowchart TB\n")
	for _, n := range d.Nodes {
		l := strings.ReplaceAll(n.Label, `"`, "#quot;")
		switch n.Class {
		case "policy":
			fmt.Fprintf(&b, "  %s([\"%s\"])\n", n.ID, l)
		default:
			fmt.Fprintf(&b, "  %s[\"%s\"]\n", n.ID, l)
		}
	}
	for _, e := range d.Edges {
		if e.Dotted {
			fmt.Fprintf(&b, "  %s -.-> %s\n", e.From, e.To)
		} else {
			fmt.Fprintf(&b, "  %s --> %s\n", e.From, e.To)
		}
	}
	return b.String()
}
