package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// TestDiffMarkdownHostile: gepcheck diff -o markdown is meant to be posted
// as a pull request comment (docs/diff.md), and its names and values come
// from the pull request. Rendered as GitHub renders Markdown (GFM, "Tables"),
// no name or value adds a cell, a row, raw HTML or a link: every table row
// has the header's five cells and each hostile string reads back whole
// inside one code span, in a table or not.
func TestDiffMarkdownHostile(t *testing.T) {
	hostile := []string{
		"a | b",
		"x\n\n<img src=x onerror=alert(1)>",
		"`` ` <script>alert(2)</script>",
		"[click](javascript:alert(3))",
		"c\x1b[31m",
	}
	reading := simulator.Reading{Semantics: "sticky-overrides", Profiles: []string{"a|b"}}
	d := &simulator.StateDiff{Before: reading, After: reading}
	for _, h := range hostile {
		d.Fields = append(d.Fields, simulator.FieldChange{PolicyKind: h, Path: []string{h, h}, Field: h,
			Before: h, BeforeSet: true, BeforeFrom: h, AfterSet: false})
		d.Conditions = append(d.Conditions, simulator.ConditionFlip{Object: h, Entry: h, Type: h,
			Before: &engine.Condition{Status: h, Reason: h}})
	}
	var md bytes.Buffer
	if err := Diff(&md, "markdown", d, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	var html bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(md.Bytes(), &html); err != nil {
		t.Fatal(err)
	}
	out := html.String()
	for _, tag := range []string{"<img", "<script", "<a ", "<p><code>x"} {
		if strings.Contains(out, tag) {
			t.Errorf("the markdown renders %q:\n%s\n%s", tag, md.String(), out)
		}
	}
	tables := strings.Split(out, "<table>")[1:]
	if len(tables) != 2 {
		t.Fatalf("%d tables, want 2:\n%s", len(tables), out)
	}
	rows := 0
	for _, table := range tables {
		for _, row := range strings.Split(table, "<tr>")[2:] {
			rows++
			if got := strings.Count(row, "<td"); got != 5 {
				t.Errorf("a row with %d cells, want 5: %s", got, row)
			}
		}
	}
	if rows != 2*len(hostile) {
		t.Errorf("%d rows, want %d:\n%s", rows, 2*len(hostile), out)
	}
	// The reading line is no table: its pipe is no escape (CommonMark,
	// "Code spans": backslash escapes do not work in them).
	if !strings.Contains(out, "<p>Reading: <code>profiles: a|b; ") {
		t.Errorf("the reading does not read back:\n%s", out)
	}
	// The pipe reads back inside its code span (GFM takes the escape out).
	if !strings.Contains(out, "<td><code>a | b</code></td>") {
		t.Errorf("a | b does not read back in one cell:\n%s", out)
	}
}

// DiffObjects (diff -o name, docs/diff.md): the policies named by the
// changed fields' provenance, before and after, and the objects whose
// conditions flip, each once, sorted, without their sections; a field
// unset on one side names no policy there.
func TestDiffObjects(t *testing.T) {
	d := &simulator.StateDiff{
		Fields: []simulator.FieldChange{
			{BeforeFrom: "ColorPolicy/default/p2", AfterFrom: "ColorPolicy/default/p1"},
			{AfterFrom: "ColorPolicy/default/p2"},
		},
		Conditions: []simulator.ConditionFlip{
			{Object: "HTTPRoute/default/r1#rule-1"},
			{Object: "HTTPRoute/default/r1"},
			{Object: "ColorPolicy/other/p1"},
		},
	}
	got, err := DiffObjects(d)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ColorPolicy/default/p1", "ColorPolicy/default/p2", "ColorPolicy/other/p1", "HTTPRoute/default/r1"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("DiffObjects = %v, want %v", got, want)
	}
	var b bytes.Buffer
	if err := Diff(&b, "name", d, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	if b.String() != "colorpolicy/p1\ncolorpolicy/p2\ncolorpolicy/p1\nhttproute/r1\n" {
		t.Errorf("-o name:\n%s", b.String())
	}
	if _, err := DiffObjects(&simulator.StateDiff{Conditions: []simulator.ConditionFlip{{Object: "no-slash"}}}); err == nil {
		t.Error("an object that is no reference: no error")
	}
}
