// Package render prints simulation results for people (tables) and for
// programs (JSON and YAML, whose shape is documented in docs/output.md).
package render

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

// Formats lists the output formats: text (a table that fits Width
// columns; wide, every cell in full; name, kubectl's kind/name), data,
// and the picture of the hierarchy (an HTML page, Graphviz DOT, Mermaid).
var Formats = []string{"table", "wide", "name", "yaml", "json", "html", "dot", "mermaid"}

// Pictures are the formats that draw the hierarchy.
var Pictures = []string{"html", "dot", "mermaid"}

// Data writes v as JSON or YAML.
func Data(w io.Writer, format string, v any) error {
	switch format {
	case "json":
		if out, ok := v.(*simulator.Output); ok {
			return outputJSON(w, out)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case "yaml":
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	return fmt.Errorf("unknown output format %q (one of %s)", format, strings.Join(Formats, ", "))
}

// Simulation prints an Output as tables that fit Width columns.
func Simulation(w io.Writer, out *simulator.Output) error {
	return SimulationTable(w, out, TableOptions{})
}

// SimulationTable prints an Output as tables: the effective policies, the
// policies' status (and per ancestor, for kinds reporting it so), the
// affected objects and the warnings.
func SimulationTable(w io.Writer, out *simulator.Output, opts TableOptions) error {
	effective := &Table{Title: fmt.Sprintf("EFFECTIVE POLICIES (%s)", Reading(out.Reading())), Header: []string{"KIND", "PATH", "SPEC", "PROVENANCE"}, Long: []int{2, 3}}
	if len(out.EffectivePolicies) == 0 {
		effective.Rows = append(effective.Rows, []string{"-", "(no path has an effective policy)", "", ""})
	}
	for _, e := range out.EffectivePolicies {
		effective.Rows = append(effective.Rows, []string{clean(e.PolicyKind), path(e.Path), compact(e.Spec), Provenance(e)})
	}
	programmed := engine.ProgrammedType(out.StatusVocabulary)
	policies := &Table{Title: "POLICIES", Header: []string{"POLICY", "STRATEGY", "ACCEPTED", strings.ToUpper(programmed), "MESSAGE"}, Long: []int{4}}
	for _, p := range out.Policies {
		acc, hasAcc := engine.FindCondition(p.Conditions, engine.TypeAccepted)
		if !hasAcc {
			acc.Status, acc.Reason = "-", "-"
		}
		enf, hasEnf := engine.FindCondition(p.Conditions, programmed)
		msg := acc.Message
		enfs := "-"
		if hasEnf {
			enfs = enf.Status + "/" + enf.Reason
			msg = enf.Message
		}
		strategy := p.Strategy
		if strategy == "" {
			strategy = "-"
		}
		policies.Rows = append(policies.Rows, []string{clean(p.Ref), clean(strategy), clean(acc.Status) + "/" + clean(acc.Reason), clean(enfs), clean(msg)})
	}
	affected := &Table{Title: "AFFECTED OBJECTS", Header: []string{"OBJECT", "CONDITION", "AFFECTED BY"}, Long: []int{2}}
	for _, t := range out.Targets {
		var types []string
		for _, c := range t.Conditions {
			types = append(types, c.Type+"="+c.Status)
		}
		affected.Rows = append(affected.Rows, []string{clean(t.Ref), clean(strings.Join(types, ",")), clean(strings.Join(t.AffectedBy, ", "))})
	}
	sections := []*Table{effective, policies}
	if a := ancestors(out.Policies); a != nil {
		sections = append(sections, a)
	}
	sections = append(sections, affected)
	if len(out.Warnings) > 0 {
		warnings := &Table{Title: "WARNINGS"}
		for _, m := range out.Warnings {
			warnings.Rows = append(warnings.Rows, []string{clean(m)})
		}
		sections = append(sections, warnings)
	}
	for i, t := range sections {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := t.Write(w, opts); err != nil {
			return err
		}
	}
	return nil
}

// Reading names what produced an answer: its profiles, its path semantics
// and its status vocabulary ("profiles: color-inherited; semantics: gep-713;
// status vocabulary: merged").
func Reading(r simulator.Reading) string {
	profiles := "-"
	if len(r.Profiles) > 0 {
		profiles = strings.Join(r.Profiles, ", ")
	}
	vocab := r.StatusVocabulary
	if vocab == "" {
		vocab = engine.VocabularyMerged
	}
	out := fmt.Sprintf("profiles: %s; semantics: %s; status vocabulary: %s", profiles, r.Semantics, vocab)
	if r.AncestorEntries != "" {
		// Named only when it is not the default, one per Gateway
		// (simulator.AncestorEntries).
		out += "; ancestor entries: " + string(r.AncestorEntries)
	}
	if r.FieldValidation != "" {
		// Named only when it is not the default, warn (unknown fields
		// of a policy's CRD pruned with a warning).
		out += "; field validation: " + string(r.FieldValidation)
	}
	return clean(out)
}

// ancestors is the status of each policy per ancestor, for kinds that
// report it so (Gateway API's PolicyStatus.Ancestors; the engine's
// PolicyStatus.Ancestors is nil for other kinds): every condition, and
// the message of the first that is False; nil when no kind does.
func ancestors(ps []engine.PolicyStatus) *Table {
	if !slices.ContainsFunc(ps, func(p engine.PolicyStatus) bool { return p.Ancestors != nil }) {
		return nil
	}
	t := &Table{Title: "POLICY ANCESTORS", Header: []string{"POLICY", "ANCESTOR", "CONDITIONS", "MESSAGE"}, Long: []int{3}}
	for _, p := range ps {
		if p.Ancestors == nil {
			continue
		}
		if len(p.Ancestors) == 0 {
			t.Rows = append(t.Rows, []string{clean(p.Ref), "-", "-", "no Gateway reaches a target of the policy: no ancestor status"})
		}
		for _, a := range p.Ancestors {
			var conds []string
			msg := ""
			for _, c := range a.Conditions {
				conds = append(conds, c.Type+"="+c.Status+"/"+c.Reason)
				if c.Status == "False" && msg == "" {
					msg = c.Message
				}
			}
			if msg == "" && len(a.Conditions) > 0 {
				msg = a.Conditions[0].Message
			}
			t.Rows = append(t.Rows, []string{clean(p.Ref), clean(a.Ref), clean(strings.Join(conds, " ")), clean(msg)})
		}
	}
	return t
}

// Provenance renders e's field←source pairs in field order; a field whose
// value a CRD default set reads "field←Kind CRD default, stored for
// policy" (engine.EffectivePolicy.StoredDefaults).
func Provenance(e engine.EffectivePolicy) string {
	p := e.Provenance
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, clean(k)+"←"+clean(source(e, k, p[k])))
	}
	return strings.Join(parts, " ")
}

// source names who set field of e: src, or, when a CRD default set it,
// the default and the policy it was stored for.
func source(e engine.EffectivePolicy, field, src string) string {
	if _, ok := slices.BinarySearch(e.StoredDefaults, field); ok {
		return engine.StoredDefaultSource(e.PolicyKind, src)
	}
	return src
}

// Target prints a target explanation, fitting Width columns.
func Target(w io.Writer, x *simulator.TargetExplanation) error {
	return TargetTable(w, x, TableOptions{})
}

// TargetTable prints a target explanation; wide, every line in full.
func TargetTable(w io.Writer, x *simulator.TargetExplanation, opts TableOptions) error {
	var text strings.Builder
	tw := tabwriter.NewWriter(&text, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\n", clean(x.Target))
	fmt.Fprintf(tw, "  reading:\t%s\n", Reading(x.Reading))
	fmt.Fprintf(tw, "  targeted directly by:\t%s\n", list(x.AttachedPolicies))
	fmt.Fprintf(tw, "  reported as affected by:\t%s\n", list(x.AffectedBy))
	fmt.Fprintf(tw, "  paths through it:\t%d\n", len(x.Paths))
	for i, e := range x.Paths {
		fmt.Fprintf(tw, "\n  %s  (%s)\n", path(e.Path), clean(e.PolicyKind))
		fmt.Fprintf(tw, "    stack, established first:\t%s\n", list(e.Policies))
		fmt.Fprintf(tw, "    effective spec:\t%s\n", compact(e.Spec))
		if i < len(x.Decisions) {
			d := x.Decisions[i]
			for _, f := range d.Fields {
				from := f.From
				if f.StoredDefault {
					from = engine.StoredDefaultSource(e.PolicyKind, f.From)
				}
				fmt.Fprintf(tw, "    %s\tfrom %s\t%s\n", clean(f.Field), clean(from), clean(f.Step))
			}
			for _, u := range d.NotInEffect {
				fmt.Fprintf(tw, "    not in effect: %s of %s\t%s\n", clean(u.Field), clean(u.Policy), clean(u.Reason))
			}
			continue
		}
		keys := make([]string, 0, len(e.Provenance))
		for k := range e.Provenance {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(tw, "    %s\tfrom %s\n", clean(k), clean(source(e, k, e.Provenance[k])))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return fit(w, text.String(), opts)
}

// Policy prints a policy explanation, fitting Width columns.
func Policy(w io.Writer, x *simulator.PolicyExplanation) error {
	return PolicyTable(w, x, TableOptions{})
}

// PolicyTable prints a policy explanation; wide, every line in full.
func PolicyTable(w io.Writer, x *simulator.PolicyExplanation, opts TableOptions) error {
	var text strings.Builder
	tw := tabwriter.NewWriter(&text, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%s  (%s)\n", clean(x.Policy), clean(x.Status.Strategy))
	fmt.Fprintf(tw, "  reading: %s\n", Reading(x.Reading))
	for _, c := range x.Status.Conditions {
		fmt.Fprintf(tw, "  %s=%s\t%s\t%s\n", clean(c.Type), clean(c.Status), clean(c.Reason), clean(c.Message))
	}
	for _, t := range x.Status.Targets {
		for _, c := range t.Conditions {
			fmt.Fprintf(tw, "  target %s: %s=%s\t%s\t%s\n", clean(t.Ref), clean(c.Type), clean(c.Status), clean(c.Reason), clean(c.Message))
		}
	}
	fmt.Fprintf(tw, "  stacked on %d path(s), in effect on %d\n", x.StackedOn, len(x.InEffectOn))
	for _, e := range x.InEffectOn {
		var mine []string
		for f, src := range e.Provenance {
			if src == x.Policy {
				mine = append(mine, f)
			}
		}
		sort.Strings(mine)
		fmt.Fprintf(tw, "    %s\tsets %s\n", path(e.Path), clean(strings.Join(mine, ", ")))
	}
	for _, b := range x.Status.Beaten {
		fmt.Fprintf(tw, "  %s beaten by %s on %d path(s):\n", clean(b.Field), clean(b.By), b.Paths)
		for _, p := range b.Examples {
			fmt.Fprintf(tw, "    %s\n", path(p))
		}
	}
	if len(x.IfDeleted) == 0 {
		fmt.Fprintf(tw, "  if deleted: no effective policy changes\n")
	} else {
		fmt.Fprintf(tw, "  if deleted, %d path(s) change:\n", len(x.IfDeleted))
		for _, c := range x.IfDeleted {
			fmt.Fprintf(tw, "    %s\t%s -> %s\t(%s)\n", path(c.Path), compact(c.Before), compact(c.After), clean(strings.Join(c.Fields, ", ")))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return fit(w, text.String(), opts)
}

func list(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return clean(strings.Join(s, ", "))
}

// path renders a path as A > B > C.
func path(p []string) string {
	return clean(strings.Join(p, " > "))
}

// clean makes s safe in a table cell. Object names and field names reach
// the tables as read, and a tab or a newline in one would split its cell
// or its row; tabwriter also gives the byte 0xff (tabwriter.Escape) a
// meaning (ref.Printable escapes it).
func clean(s string) string { return ref.Printable(s) }

func compact(v any) string {
	if v == nil {
		return "(none)"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return clean(fmt.Sprint(v))
	}
	return string(b)
}
