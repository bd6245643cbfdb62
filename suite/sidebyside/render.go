package sidebyside

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// ReadingLine says which reading produced the reference side, and which
// of its settings a flag gave in place of the implementation's claim.
func (r *Result) ReadingLine() string {
	return readingLine(r.Implementation, [3]string{string(r.Reading.Semantics), string(r.Reading.StatusVocabulary), r.AncestorEntries}, r.Overridden) + "; profiles " + strings.Join(r.Reading.Profiles, ", ")
}

// readingLine names the semantics, status vocabulary and ancestor entries
// of a reading (values, in that order), each overridden one with its flag
// and the implementation's claim.
func readingLine(impl string, values [3]string, overridden []Override) string {
	names := [3]string{"semantics", "status vocabulary", "ancestor entries"}
	head := "reference reading, as " + ref.Printable(impl) + " claims it: "
	if len(overridden) > 0 {
		head = "reference reading, as " + ref.Printable(impl) + " claims it except where overridden: "
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " " + values[i]
		for _, o := range overridden {
			if o.Setting == n {
				parts[i] += fmt.Sprintf(" (overridden by %s; %s claims %s)", o.Flag, ref.Printable(impl), o.Claimed)
			}
		}
	}
	return head + strings.Join(parts, "; ")
}

// Table prints both answers: every path either side has an effective
// setting on (the reference's projected on the fields the implementation's
// output shows), then every policy condition compared, each row with "="
// or the difference's kinds and its finding; then the conditions the
// implementation writes that are not compared, and the reference's paths
// it cannot show.
func (r *Result) Table(w io.Writer, opts render.TableOptions) error {
	if r.Observed.Error != "" {
		fmt.Fprintf(w, "%s failed on the input: %s\n", ref.Printable(r.Implementation), ref.Printable(r.Observed.Error))
	}
	if err := r.pathsTable().Write(w, opts); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := r.conditionsTable().Write(w, opts); err != nil {
		return err
	}
	r.writeNotCompared(w)
	n := 0
	for _, d := range r.Differences {
		if d.Finding == New {
			n++
		}
	}
	fmt.Fprintf(w, "\n%d difference(s), %d with no kept finding (new)\n", len(r.Differences), n)
	return nil
}

// pathsTable has a row for every path either side has an effective
// setting on.
func (r *Result) pathsTable() *render.Table {
	paths := &render.Table{
		Title:  fmt.Sprintf("%s BESIDE THE REFERENCE (%s)", strings.ToUpper(ref.Printable(r.Implementation)), r.ReadingLine()),
		Header: []string{"PATH", "REFERENCE", strings.ToUpper(ref.Printable(r.Implementation)), "DIFFERENCE"},
		Long:   []int{1, 2, 3},
		Names:  []int{0},
	}
	want, got := index(r.Reference.Effective), index(r.Observed.Effective)
	keys := map[string][]string{}
	for k, p := range want {
		keys[k] = p[0].Path
	}
	for k, p := range got {
		keys[k] = p[0].Path
	}
	for _, k := range sortedKeys(keys) {
		paths.Rows = append(paths.Rows, []string{ref.Printable(k), specs(want[k]), specs(got[k]), r.mark(func(d Difference) bool {
			return (d.Kind == compare.Effective || d.Kind == compare.ExtraEffective) && strings.Join(d.Path, " > ") == k
		})})
	}
	return paths
}

// conditionRow is an object (a policy, a target, or a policy's entry for
// an ancestor, "policy@ancestor") and a condition type.
type conditionRow struct{ obj, typ string }

// conditionRows holds each row's status/reason on the reference's side (0)
// and the implementation's (1).
type conditionRows map[conditionRow][2]string

// add sets side's status/reason of every condition of ss that the result
// compares.
func (rows conditionRows) add(r *Result, ss []observe.Status, side int) {
	set := func(obj string, c observe.Condition) {
		if r.Conditions != nil && !slices.Contains(r.Conditions, c.Type) {
			return
		}
		v := rows[conditionRow{obj, c.Type}]
		v[side] = c.Status + "/" + c.Reason
		rows[conditionRow{obj, c.Type}] = v
	}
	for _, s := range ss {
		for _, c := range s.Conditions {
			set(s.Ref, c)
		}
		for _, a := range s.Ancestors {
			for _, c := range a.Conditions {
				set(s.Ref+"@"+a.Ref, c)
			}
		}
	}
}

// conditionsTable has a row for every policy condition compared, and the
// targets' where the implementation reports them.
func (r *Result) conditionsTable() *render.Table {
	conds := &render.Table{
		Header: []string{"OBJECT", "CONDITION", "REFERENCE", strings.ToUpper(ref.Printable(r.Implementation)), "DIFFERENCE"},
		Long:   []int{4},
		Names:  []int{0, 1},
	}
	rows := conditionRows{}
	rows.add(r, r.Reference.Policies, 0)
	rows.add(r, r.Observed.Policies, 1)
	rows.add(r, r.Observed.Targets, 1)
	if r.Observed.Targets != nil {
		rows.add(r, r.Reference.Targets, 0)
	}
	ks := make([]conditionRow, 0, len(rows))
	for k := range rows {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b conditionRow) int { return strings.Compare(a.obj+" "+a.typ, b.obj+" "+b.typ) })
	for _, k := range ks {
		v := rows[k]
		mark := r.mark(func(d Difference) bool {
			return (d.Kind == compare.PolicyCondition || d.Kind == compare.TargetCondition) && d.Ref == k.obj && d.Condition == k.typ
		})
		if mark == "=" && v[0] == "" && strings.Contains(k.obj, "@") {
			// compare.Diff judges status per ancestor only where both
			// sides write it.
			mark = "not compared: the reference writes no entry per ancestor for this kind"
		}
		conds.Rows = append(conds.Rows, []string{ref.Printable(k.obj), ref.Printable(k.typ), orNone(v[0]), orNone(ref.Printable(v[1])), mark})
	}
	return conds
}

// writeNotCompared writes the differences of no table (status rules,
// errors) and the reference's paths the implementation cannot show.
func (r *Result) writeNotCompared(w io.Writer) {
	for _, d := range r.Differences {
		if d.Kind == compare.StatusRule || d.Kind == compare.Error {
			fmt.Fprintf(w, "%s: %s\n", d.String(), name(d))
		}
	}
	if len(r.NotObservable) > 0 {
		fmt.Fprintf(w, "\n%d path(s) of the reference %s's output cannot show, not compared:\n", len(r.NotObservable), ref.Printable(r.Implementation))
		for _, p := range r.NotObservable {
			fmt.Fprintf(w, "  %s\n", ref.Printable(strings.Join(p, " > ")))
		}
	}
}

// mark is "=" or the differences of a row, each with its finding; nothing
// is compared when the implementation failed on the input.
func (r *Result) mark(of func(Difference) bool) string {
	if r.Observed.Error != "" {
		return "not compared: " + ref.Printable(r.Implementation) + " failed"
	}
	var parts []string
	for _, d := range r.Differences {
		if of(d) {
			parts = append(parts, name(d))
		}
	}
	if len(parts) == 0 {
		return "="
	}
	return "≠ " + strings.Join(parts, "; ")
}

// name says which kept finding explains d, or that it is new.
func name(d Difference) string {
	kinds := strings.Join(d.Kinds, ",")
	if d.Finding == New {
		return kinds + ": new"
	}
	req := d.Requirement
	if req == "" {
		req = "-"
	}
	return fmt.Sprintf("%s: %s (%s %s)", kinds, d.Finding, d.Verdict, req)
}

func index(ps []observe.Path) map[string][]observe.Path {
	m := map[string][]observe.Path{}
	for _, p := range ps {
		if len(p.Spec) == 0 {
			continue
		}
		k := strings.Join(p.Path, " > ")
		m[k] = append(m[k], p)
	}
	return m
}

func specs(ps []observe.Path) string {
	if len(ps) == 0 {
		return "-"
	}
	var out []string
	for _, p := range ps {
		out = append(out, ref.Printable(specKey(p.Spec)))
	}
	return strings.Join(out, " | ")
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// JSON writes r, indented (docs/output.md).
func (r *Result) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
