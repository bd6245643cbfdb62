package topology

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

// abstract is GEP-713's abstract example: kinds A > B > C and the tree
// a1 > (b1 > c1, b2 > (c1, c2)).
var abstract = GenericSpec{
	Group: "example.gepcheck.dev",
	Kinds: []string{"A", "B", "C"},
	Nodes: []string{"A/a1", "B/b1", "B/b2", "C/c1", "C/c2"},
	Edges: []GenericEdge{
		{From: "A/a1", To: "B/b1"},
		{From: "A/a1", To: "B/b2"},
		{From: "B/b1", To: "C/c1"},
		{From: "B/b2", To: "C/c1"},
		{From: "B/b2", To: "C/c2"},
	},
}

func TestAddGenericAbstractExample(t *testing.T) {
	var g Graph
	if err := g.AddGeneric(abstract); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"A/a1 > B/b1",
		"A/a1 > B/b2",
		"B/b1 > C/c1",
		"B/b2 > C/c1",
		"B/b2 > C/c2",
	}
	if got := edges(&g); !reflect.DeepEqual(got, want) {
		t.Errorf("edges = %q, want %q", got, want)
	}
	roots := g.Roots()
	if len(roots) != 1 || g.Node(roots[0]).Ref != (ref.Ref{Group: "example.gepcheck.dev", Kind: "A", Name: "a1"}) {
		t.Errorf("roots = %v", roots)
	}
	c1, ok := g.Lookup(ref.Ref{Group: "example.gepcheck.dev", Kind: "C", Name: "c1"})
	if !ok || len(g.Node(c1).Parents) != 2 {
		t.Errorf("c1 should have parents b1 and b2")
	}
	if len(g.Warnings) != 0 {
		t.Errorf("warnings: %q", g.Warnings)
	}
}

func TestAddGenericSectionsAndNamespaces(t *testing.T) {
	var g Graph
	err := g.AddGeneric(GenericSpec{
		Kinds: []string{"A", "B"},
		Nodes: []string{"A/ns/a", "B/ns/b", "B/ns/b#s"},
		Edges: []GenericEdge{{From: "A/ns/a", To: "B/ns/b"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"A/ns/a > B/ns/b", "B/ns/b > B/ns/b#s"}
	if got := edges(&g); !reflect.DeepEqual(got, want) {
		t.Errorf("edges = %q, want %q", got, want)
	}
}

func TestAddGenericErrors(t *testing.T) {
	cases := []struct {
		name string
		spec GenericSpec
		want []string
	}{
		{"undeclared node", GenericSpec{
			Kinds: []string{"A", "B"}, Nodes: []string{"A/a1", "B/b1"},
			Edges: []GenericEdge{{From: "A/a1", To: "B/b1"}, {From: "A/a1", To: "B/b1"}, {From: "A/a1", To: "B/b9"}, {From: "bad", To: "B/b1"}},
		}, []string{`spec.edges[2].to: "B/b9" is not a declared node`, `spec.edges[3].from: "bad" is not a declared node`}},
		{"kind not listed", GenericSpec{Kinds: []string{"A"}, Nodes: []string{"A/a", "D/d"}},
			[]string{`spec.nodes[1]: kind "D" is not in spec.kinds`}},
		{"malformed node", GenericSpec{Kinds: []string{"A"}, Nodes: []string{"A", "A//x"}},
			[]string{`spec.nodes[0]: "A" is not Kind/namespace/name or Kind/name`, `spec.nodes[1]: "A//x" has an empty element`}},
		{"duplicate node", GenericSpec{Kinds: []string{"A"}, Nodes: []string{"A/a", "A/b", "A/a"}},
			[]string{`spec.nodes[2]: "A/a" is also spec.nodes[0]`}},
		{"duplicate and empty kinds", GenericSpec{Kinds: []string{"A", "", "A"}},
			[]string{`spec.kinds[1]: empty kind`, `spec.kinds[2]: kind "A" is also spec.kinds[0]`}},
		{"upward edge", GenericSpec{Kinds: []string{"A", "B"}, Nodes: []string{"A/a", "B/b"}, Edges: []GenericEdge{{From: "B/b", To: "A/a"}}},
			[]string{`spec.edges[0]: B is more specific than A in spec.kinds, so "B/b" cannot be a parent of "A/a"`}},
		{"cycle", GenericSpec{Kinds: []string{"A"}, Nodes: []string{"A/x", "A/y"}, Edges: []GenericEdge{{From: "A/x", To: "A/y"}, {From: "A/y", To: "A/x"}, {From: "A/x", To: "A/x"}}},
			[]string{`spec.edges[1]: edge A/y > A/x would close a cycle`, `spec.edges[2]: edge A/x > A/x would close a cycle`}},
		{"section without object", GenericSpec{Kinds: []string{"A"}, Nodes: []string{"A/a#s"}},
			[]string{`spec.nodes[0]: section "A/a#s" needs its object "A/a" declared`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var g Graph
			err := g.AddGeneric(c.spec)
			if err == nil {
				t.Fatal("no error")
			}
			lines := strings.Split(err.Error(), "\n")
			if !reflect.DeepEqual(lines, c.want) {
				t.Errorf("error lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(c.want, "\n"))
			}
			if len(g.Nodes) != 0 {
				t.Errorf("graph changed on error: %d nodes", len(g.Nodes))
			}
		})
	}
}

func TestAddGenericIntoExistingGraph(t *testing.T) {
	var g Graph
	g.AddGatewayAPI(GatewayAPI{Services: nil})
	if err := g.AddGeneric(abstract); err != nil {
		t.Fatal(err)
	}
	if err := g.AddGeneric(abstract); err != nil { // adding twice is idempotent
		t.Fatal(err)
	}
	if n := len(edges(&g)); n != 5 {
		t.Errorf("%d edges, want 5", n)
	}
}

// TestGenericTopologyDocument reads the abstract example as a user writes it.
func TestGenericTopologyDocument(t *testing.T) {
	const doc = `apiVersion: gepcheck.dev/v1alpha1
kind: Topology
metadata: {name: abstract}
spec:
  group: example.gepcheck.dev
  kinds: [A, B, C]
  nodes: [A/a1, B/b1, B/b2, C/c1, C/c2]
  edges:
  - {from: A/a1, to: B/b1}
  - {from: A/a1, to: B/b2}
  - {from: B/b1, to: C/c1}
  - {from: B/b2, to: C/c1}
  - {from: B/b2, to: C/c2}
`
	docs, err := load.Read([]string{"-"}, strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	var top GenericTopology
	if err := load.DecodeStrict(docs[0], &top); err != nil {
		t.Fatal(err)
	}
	if top.APIVersion != GenericAPIVersion || top.Kind != GenericKind || top.Metadata.Name != "abstract" {
		t.Errorf("decoded %+v", top)
	}
	if !reflect.DeepEqual(top.Spec, abstract) {
		t.Errorf("spec = %+v, want %+v", top.Spec, abstract)
	}

	docs, err = load.Read([]string{"-"}, strings.NewReader(strings.Replace(doc, "to: B/b2}", "to: B/b2, weight: 1}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	err = load.DecodeStrict(docs[0], &top)
	if err == nil || !strings.Contains(err.Error(), "Topology abstract: field spec.edges[1].weight: unknown field") {
		t.Errorf("err = %v", err)
	}
}

// Prefixes counts, without walking them, the root-to-node paths of every
// node: a chain of three has 3, a diamond 5 (its sink is reached twice), and
// the count stops past the limit.
func TestPrefixes(t *testing.T) {
	build := func(edges [][2]string) *Graph {
		g := &Graph{}
		ids := map[string]NodeID{}
		node := func(n string) NodeID {
			if id, ok := ids[n]; ok {
				return id
			}
			ids[n] = g.Add(ref.Ref{Group: "g", Kind: "K", Name: n})
			return ids[n]
		}
		for _, e := range edges {
			p, c := node(e[0]), node(e[1])
			g.Nodes[p].Children = append(g.Nodes[p].Children, c)
			g.Nodes[c].Parents = append(g.Nodes[c].Parents, p)
		}
		return g
	}
	chain := build([][2]string{{"a", "b"}, {"b", "c"}})
	diamond := build([][2]string{{"a", "b"}, {"a", "c"}, {"b", "d"}, {"c", "d"}})
	var layers [][2]string // 2^40 paths through 41 layers of two
	for i := 0; i < 40; i++ {
		for _, x := range []string{"a", "b"} {
			for _, y := range []string{"a", "b"} {
				layers = append(layers, [2]string{fmt.Sprint(i, x), fmt.Sprint(i+1, y)})
			}
		}
	}
	for _, tc := range []struct {
		name  string
		g     *Graph
		limit int64
		want  int64
	}{
		{"chain", chain, 100, 3},
		{"diamond", diamond, 100, 5},
		{"diamond over a limit of 4", diamond, 4, 5},
		{"2^40 paths", build(layers), 1_000_000, 1_000_001},
	} {
		if got := tc.g.Prefixes(tc.limit); got != tc.want {
			t.Errorf("%s: %d prefixes, want %d", tc.name, got, tc.want)
		}
	}
}
