package sidebyside

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/simulator/tree"
)

// The answers of a PolicyField: whether a field of the policy is in effect
// on a path. An implementation's output shows values, not provenance
// (Source), so "applied" is a value the implementation shows that only
// this policy on the path sets.
const (
	Applied    = "applied"
	NotApplied = "not applied"
	CannotTell = "cannot tell"
)

// PolicyField is one field of the policy on one path it is stacked on:
// whether the implementation applied it, and whether the reference does.
type PolicyField struct {
	Path  []string `json:"path"`
	Field string   `json:"field"`
	// Value is the policy's value of the field.
	Value any `json:"value"`
	// Implementation is Applied, NotApplied or CannotTell; Observed the
	// implementation's value on the path (absent when it shows none);
	// Reason says why it is not applied or cannot be told.
	Implementation string `json:"implementation"`
	Observed       any    `json:"observed,omitempty"`
	Reason         string `json:"reason,omitempty"`
	// Reference is Applied or NotApplied, as the reference's provenance
	// of the field on the path says; ReferenceFrom is the policy the
	// reference takes the field from there ("" when it has none).
	Reference     string `json:"reference"`
	ReferenceFrom string `json:"referenceFrom,omitempty"`
}

// PolicyExplanation is explain --impl --policy: for one policy, every
// field it sets on every path it is stacked on, the implementation's
// answer beside the reference's.
type PolicyExplanation struct {
	Implementation string            `json:"implementation"`
	Policy         string            `json:"policy"`
	Reading        simulator.Reading `json:"reading"`
	// AncestorEntries is Result.AncestorEntries: the reading of status
	// per ancestor, always named.
	AncestorEntries string `json:"ancestorEntries"`
	// Overridden is Result.Overridden.
	Overridden []Override    `json:"overridden,omitempty"`
	Fields     []PolicyField `json:"fields"`
}

// ExplainPolicy says, for the policy named (a reference resolved against
// Model), on every path of the reference's output whose stack holds it,
// which of its fields the implementation applied: the value it shows there
// is the policy's, and no other policy on the path sets that value
// (Applied); it shows another value or none (NotApplied); or it cannot be
// told (CannotTell: another policy on the path sets the same value, the
// path is one the implementation's output cannot show, or the field is not
// one it shows). Each beside the reference's provenance of the field.
func (r *Result) ExplainPolicy(policy ref.Ref) (*PolicyExplanation, error) {
	specs := map[string]map[string]any{}
	var names []string
	for _, k := range r.model.Kinds {
		for _, p := range k.Policies {
			specs[p.Ref.String()] = p.Intent.SpecProper
			names = append(names, p.Ref.String())
		}
	}
	name := policy.String()
	own, ok := specs[name]
	if !ok {
		slices.Sort(names)
		return nil, fmt.Errorf("no policy %s in the input (policies: %s)", name, strings.Join(names, ", "))
	}
	var readable map[string]any
	if r.caps.Readable != nil {
		readable = r.caps.Readable(own)
	}
	notObservable := map[string]bool{}
	for _, p := range r.NotObservable {
		notObservable[strings.Join(p, " > ")] = true
	}
	e := &PolicyExplanation{Implementation: r.Implementation, Policy: name, Reading: r.Reading, AncestorEntries: r.AncestorEntries, Overridden: r.Overridden, Fields: []PolicyField{}}
	leaves := tree.From(own, tree.NoOrigin).Leaves()
	// The implementation's entries by path, indexed once: a path's are
	// looked up per field, not searched for (linear in the paths).
	byPath := map[string][]map[string]any{}
	for _, o := range r.Observed.Effective {
		k := strings.Join(o.Path, " > ")
		byPath[k] = append(byPath[k], o.Spec)
	}
	seen := map[string]bool{}
	for _, p := range r.out.EffectivePolicies {
		key := strings.Join(p.Path, " > ")
		if !slices.Contains(p.Policies, name) || seen[key] {
			continue
		}
		seen[key] = true
		for _, l := range leaves {
			f := PolicyField{Path: p.Path, Field: tree.FieldPath(l.Path), Value: l.Value.JSON()}
			f.ReferenceFrom = provenance(p.Provenance, l.Path)
			f.Reference = NotApplied
			if f.ReferenceFrom == name {
				f.Reference = Applied
			}
			switch values := observedValues(byPath[key], l.Path); {
			case notObservable[key]:
				f.Implementation, f.Reason = CannotTell, "the implementation's output cannot show this path"
			case r.caps.Readable != nil && !hasLeaf(readable, l.Path):
				f.Implementation, f.Reason = CannotTell, "the implementation's output does not show this field"
			case len(values) == 0:
				f.Implementation, f.Reason = NotApplied, "the implementation has no value for this field on the path"
			case len(values) > 1:
				f.Implementation, f.Reason = CannotTell, "the implementation configures the path more than once, with different values"
			default:
				f.Observed = values[0]
				f.Implementation, f.Reason = applied(f.Value, values[0], othersSetting(p.Policies, specs, name, l.Path, values[0]))
			}
			e.Fields = append(e.Fields, f)
		}
	}
	return e, nil
}

// othersSetting is the policies of a path other than name whose spec sets
// the leaf at path to value.
func othersSetting(policies []string, specs map[string]map[string]any, name string, path []string, value any) []string {
	var others []string
	for _, o := range policies {
		if v, ok := leaf(specs[o], path); ok && o != name && jsonEqual(v, value) {
			others = append(others, o)
		}
	}
	return others
}

// applied judges a field whose value the implementation shows: the policy's
// own value, set by no other policy of the path, is Applied.
func applied(own, observed any, others []string) (verdict, reason string) {
	switch {
	case !jsonEqual(observed, own) && len(others) == 1:
		return NotApplied, "the value of " + others[0]
	case !jsonEqual(observed, own) && len(others) == 0:
		return NotApplied, "a value no policy on the path sets (the implementation's default, or a value it computed)"
	case !jsonEqual(observed, own):
		return NotApplied, "the value of " + strings.Join(others, ", ")
	case len(others) > 0:
		return CannotTell, strings.Join(others, ", ") + " set the same value"
	default:
		return Applied, ""
	}
}

// observedValues is the distinct values the implementation shows for the
// leaf in specs, its entries of one path (one per configuration of it).
func observedValues(specs []map[string]any, path []string) []any {
	var out []any
	for _, spec := range specs {
		v, ok := leaf(spec, path)
		if !ok {
			continue
		}
		if !slices.ContainsFunc(out, func(w any) bool { return jsonEqual(v, w) }) {
			out = append(out, v)
		}
	}
	return out
}

// provenance is the policy the reference takes the leaf from: the
// provenance of its dotted path, else of the nearest field above it (a
// field replaced as a whole).
func provenance(prov map[string]string, path []string) string {
	for n := len(path); n > 0; n-- {
		if p, ok := prov[tree.FieldPath(path[:n])]; ok {
			return p
		}
	}
	return ""
}

func hasLeaf(spec map[string]any, path []string) bool {
	_, ok := leaf(spec, path)
	return ok
}

// Table prints e: one line per path and field.
func (e *PolicyExplanation) Table(w io.Writer, opts render.TableOptions) error {
	t := &render.Table{
		Title: fmt.Sprintf("%s, FIELD BY FIELD, ON EVERY PATH %s IS ON (%s)",
			strings.ToUpper(ref.Printable(e.Implementation)), ref.Printable(e.Policy), readingLine(e.Implementation, [3]string{string(e.Reading.Semantics), string(e.Reading.StatusVocabulary), e.AncestorEntries}, e.Overridden)),
		Header: []string{"PATH", "FIELD", "VALUE", strings.ToUpper(ref.Printable(e.Implementation)), "REFERENCE"},
		Long:   []int{3, 4},
		Names:  []int{0, 1},
	}
	for _, f := range e.Fields {
		v, _ := json.Marshal(f.Value)
		impl := f.Implementation
		if f.Reason != "" {
			impl += ": " + f.Reason
		}
		if f.Observed != nil && f.Implementation != Applied {
			o, _ := json.Marshal(f.Observed)
			impl += " (shows " + string(o) + ")"
		}
		reference := f.Reference
		if f.Reference == NotApplied {
			if f.ReferenceFrom == "" {
				reference += ": no policy sets it there"
			} else {
				reference += ": from " + f.ReferenceFrom
			}
		}
		t.Rows = append(t.Rows, []string{ref.Printable(strings.Join(f.Path, " > ")), ref.Printable(f.Field), ref.Printable(string(v)), ref.Printable(impl), ref.Printable(reference)})
	}
	if err := t.Write(w, opts); err != nil {
		return err
	}
	if len(e.Fields) == 0 {
		_, err := fmt.Fprintf(w, "(%s is on no path, or sets no field)\n", ref.Printable(e.Policy))
		return err
	}
	return nil
}
