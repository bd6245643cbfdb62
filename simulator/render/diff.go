package render

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/gepcheck/gepcheck/internal/markdown"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// DiffFormats are the output formats of gepcheck diff.
var DiffFormats = []string{"table", "json", "yaml", "markdown"}

// Diff writes d in format (DiffFormats; docs/diff.md).
func Diff(w io.Writer, format string, d *simulator.StateDiff) error {
	switch format {
	case "table":
		return diffTable(w, d)
	case "markdown":
		return diffMarkdown(w, d)
	case "json", "yaml":
		return Data(w, format, d)
	}
	return fmt.Errorf("unknown output format %q (one of %s)", format, strings.Join(DiffFormats, ", "))
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

func diffTable(w io.Writer, d *simulator.StateDiff) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "CHANGED EFFECTIVE FIELDS (%s)\n", readings(d))
	fmt.Fprintln(tw, "KIND\tPATH\tFIELD\tBEFORE\tAFTER")
	if len(d.Fields) == 0 {
		fmt.Fprintln(tw, "-\t(no effective field changes)\t\t\t")
	}
	for _, f := range d.Fields {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", clean(f.PolicyKind), path(f.Path), clean(fieldName(f.Field)),
			clean(fieldValue(f.BeforeSet, f.Before, f.BeforeFrom)), clean(fieldValue(f.AfterSet, f.After, f.AfterFrom)))
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "FLIPPED CONDITIONS")
	fmt.Fprintln(tw, "OBJECT\tENTRY\tTYPE\tBEFORE\tAFTER")
	if len(d.Conditions) == 0 {
		fmt.Fprintln(tw, "-\t(no condition flips)\t\t\t")
	}
	for _, c := range d.Conditions {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", clean(c.Object), clean(c.Entry), clean(c.Type), clean(conditionValue(c.Before)), clean(conditionValue(c.After)))
	}
	return tw.Flush()
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
