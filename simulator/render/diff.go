package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/internal/markdown"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

// DiffFormats are the output formats of gepcheck diff: the tables (fit
// Width columns; wide, every cell in full), name (the objects the change
// touches, as kubectl's kind/name), data, and markdown (docs/diff.md).
var DiffFormats = []string{"table", "wide", "name", "json", "yaml", "markdown"}

// Diff writes d in format (DiffFormats; docs/diff.md); opts say how the
// tables are printed (-o wide, --no-headers).
func Diff(w io.Writer, format string, d *simulator.StateDiff, opts TableOptions) error {
	switch format {
	case "table", "wide":
		return diffTable(w, d, opts)
	case "name":
		refs, err := DiffObjects(d)
		if err != nil {
			return err
		}
		return Names(w, refs)
	case "markdown":
		return diffMarkdown(w, d)
	case "json", "yaml":
		return Data(w, format, d)
	}
	return fmt.Errorf("unknown output format %q (one of %s)", format, strings.Join(DiffFormats, ", "))
}

// DiffObjects are the objects a change touches, each once, sorted: the
// policies that set a changed effective field before or after (its
// provenance), and every object with a flipped condition (a policy, or a
// target whose Affected condition flips); sections left out.
func DiffObjects(d *simulator.StateDiff) ([]string, error) {
	var all []string
	for _, f := range d.Fields {
		all = append(all, f.BeforeFrom, f.AfterFrom)
	}
	for _, c := range d.Conditions {
		all = append(all, c.Object)
	}
	var refs []string
	for _, s := range all {
		if s == "" {
			continue
		}
		r, err := ref.Parse(s)
		if err != nil {
			return nil, err
		}
		r.Section = ""
		refs = append(refs, r.String())
	}
	slices.Sort(refs)
	return slices.Compact(refs), nil
}

// readings names the reading of both states, once when they are the same.
func readings(d *simulator.StateDiff) string {
	b, a := Reading(d.Before), Reading(d.After)
	if b == a {
		return b
	}
	return "before: " + b + "; after: " + a
}

// fieldValue is a field's value and the policy that set it, or "(unset)".
func fieldValue(set bool, v any, from string) string {
	if !set {
		return "(unset)"
	}
	s := compact(v)
	if from != "" {
		s += " ←" + from
	}
	return s
}

// conditionValue is "Status/Reason", or "(none)".
func conditionValue(c *engine.Condition) string {
	if c == nil {
		return "(none)"
	}
	return c.Status + "/" + c.Reason
}

func fieldName(f string) string {
	if f == "" {
		return "(spec)"
	}
	return f
}

// diffTable prints d as two tables (Table: fit Width columns unless
// opts.Wide): the changed effective fields and the flipped conditions;
// an empty one says so, but for opts.NoHeaders (rows only, for scripts).
func diffTable(w io.Writer, d *simulator.StateDiff, opts TableOptions) error {
	fields := &Table{Title: fmt.Sprintf("CHANGED EFFECTIVE FIELDS (%s)", readings(d)), Header: []string{"KIND", "PATH", "FIELD", "BEFORE", "AFTER"}, Long: []int{1, 3, 4}}
	if len(d.Fields) == 0 && !opts.NoHeaders {
		fields.Rows = append(fields.Rows, []string{"-", "(no effective field changes)"})
	}
	for _, f := range d.Fields {
		fields.Rows = append(fields.Rows, []string{clean(f.PolicyKind), path(f.Path), clean(fieldName(f.Field)),
			clean(fieldValue(f.BeforeSet, f.Before, f.BeforeFrom)), clean(fieldValue(f.AfterSet, f.After, f.AfterFrom))})
	}
	conditions := &Table{Title: "FLIPPED CONDITIONS", Header: []string{"OBJECT", "ENTRY", "TYPE", "BEFORE", "AFTER"}, Names: []int{0, 1, 2}}
	if len(d.Conditions) == 0 && !opts.NoHeaders {
		conditions.Rows = append(conditions.Rows, []string{"-", "(no condition flips)"})
	}
	for _, c := range d.Conditions {
		conditions.Rows = append(conditions.Rows, []string{clean(c.Object), clean(c.Entry), clean(c.Type), clean(conditionValue(c.Before)), clean(conditionValue(c.After))})
	}
	if err := fields.Write(w, opts); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	return conditions.Write(w, opts)
}

// diffMarkdown writes d as GitHub-flavoured Markdown fit for a pull
// request comment: every string from the input is a code span with its
// pipes escaped in table cells (markdown.Cell), so that no name can add a
// cell, a line or a link.
func diffMarkdown(w io.Writer, d *simulator.StateDiff) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### gepcheck diff: %d effective field(s) changed, %d condition(s) flipped\n\n", len(d.Fields), len(d.Conditions))
	fmt.Fprintf(&b, "Reading: %s\n\n", markdown.Code(readings(d)))
	if len(d.Fields) > 0 {
		b.WriteString("| Kind | Path | Field | Before | After |\n| --- | --- | --- | --- | --- |\n")
		for _, f := range d.Fields {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", markdown.Cell(f.PolicyKind), markdown.Cell(strings.Join(f.Path, " > ")), markdown.Cell(fieldName(f.Field)),
				markdown.Cell(fieldValue(f.BeforeSet, f.Before, f.BeforeFrom)), markdown.Cell(fieldValue(f.AfterSet, f.After, f.AfterFrom)))
		}
		b.WriteString("\n")
	}
	if len(d.Conditions) > 0 {
		b.WriteString("| Object | Entry | Type | Before | After |\n| --- | --- | --- | --- | --- |\n")
		for _, c := range d.Conditions {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", markdown.Cell(c.Object), markdown.Cell(c.Entry), markdown.Cell(c.Type), markdown.Cell(conditionValue(c.Before)), markdown.Cell(conditionValue(c.After)))
		}
		b.WriteString("\n")
	}
	if !d.Changed() {
		b.WriteString("No effective field and no condition changes.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
