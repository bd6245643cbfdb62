package sidebyside

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/simulator/tree"
)

// Source says where the implementation took one field of one path from,
// where its answer lets gepcheck tell: an implementation's output shows
// values, not provenance, so a field is taken from a policy when exactly
// one policy on the path (the reference's stack of it) sets that field to
// that value.
type Source struct {
	Path  []string `json:"path"`
	Field string   `json:"field"`
	Value any      `json:"value"`
	// Policy is the policy the value came from; empty when it cannot be
	// told (Reason says why).
	Policy string `json:"policy,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Reference is the policy the reference takes the field from on the
	// path ("" when the reference has no such field there).
	Reference string `json:"reference"`
}

// Explanation is explain --impl --target: the implementation's answer
// field by field on every path through the target, beside the reference's.
type Explanation struct {
	Implementation string            `json:"implementation"`
	Target         string            `json:"target"`
	Reading        simulator.Reading `json:"reading"`
	// Overridden is Result.Overridden.
	Overridden []Override `json:"overridden,omitempty"`
	Sources    []Source   `json:"sources"`
}

// Explain says where the implementation took each field it shows on every
// path through target (Source), from r's observation and the reference's
// output for the same objects.
func (r *Result) Explain(target ref.Ref) (*Explanation, error) {
	x, err := simulator.ExplainTarget(r.out, target)
	if err != nil {
		return nil, err
	}
	specs := map[string]map[string]any{}
	for _, k := range r.model.Kinds {
		for _, p := range k.Policies {
			specs[p.Ref.String()] = p.Intent.SpecProper
		}
	}
	e := &Explanation{Implementation: r.Implementation, Target: target.String(), Reading: r.Reading, Overridden: r.Overridden, Sources: []Source{}}
	// The implementation's entries by path, indexed once (linear in the
	// paths, not quadratic).
	byPath := map[string][]map[string]any{}
	for _, o := range r.Observed.Effective {
		k := strings.Join(o.Path, " > ")
		byPath[k] = append(byPath[k], o.Spec)
	}
	seen := map[string]bool{}
	for _, p := range x.Paths {
		key := strings.Join(p.Path, " > ")
		if seen[key+p.PolicyKind] {
			continue
		}
		seen[key+p.PolicyKind] = true
		for _, spec := range byPath[key] {
			for _, l := range tree.From(spec, tree.NoOrigin).Leaves() {
				field := tree.FieldPath(l.Path)
				s := Source{Path: p.Path, Field: field, Value: l.Value.JSON(), Reference: p.Provenance[field]}
				if !ownsField(p.Policies, specs, l.Path) {
					continue
				}
				var from []string
				for _, pol := range p.Policies {
					if v, ok := leaf(specs[pol], l.Path); ok && jsonEqual(v, s.Value) {
						from = append(from, pol)
					}
				}
				switch len(from) {
				case 1:
					s.Policy = from[0]
				case 0:
					s.Reason = "cannot tell: no policy on the path sets this value (the implementation's default, or a value it computed)"
				default:
					s.Reason = "cannot tell: " + strings.Join(from, ", ") + " set the same value"
				}
				e.Sources = append(e.Sources, s)
			}
		}
	}
	return e, nil
}

// ownsField reports whether a policy of the path's kind can set the leaf's
// top-level field (the implementation's spec holds every kind's fields).
func ownsField(policies []string, specs map[string]map[string]any, path []string) bool {
	for _, p := range policies {
		if _, ok := specs[p][path[0]]; ok {
			return true
		}
	}
	return false
}

func leaf(spec map[string]any, path []string) (any, bool) {
	var v any = spec
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

func jsonEqual(a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// Table prints e: one line per path and field.
func (e *Explanation) Table(w io.Writer, opts render.TableOptions) error {
	anc := e.Reading.AncestorEntries.Name()
	t := &render.Table{
		Title: fmt.Sprintf("%s, FIELD BY FIELD, ON EVERY PATH THROUGH %s (%s)",
			strings.ToUpper(ref.Printable(e.Implementation)), ref.Printable(e.Target), readingLine(e.Implementation, [3]string{string(e.Reading.Semantics), string(e.Reading.StatusVocabulary), anc}, e.Overridden)),
		Header: []string{"PATH", "FIELD", "VALUE", "TAKEN FROM", "REFERENCE TAKES IT FROM"},
		Long:   []int{2, 3, 4},
		Names:  []int{0, 1},
	}
	for _, s := range e.Sources {
		v, _ := json.Marshal(s.Value)
		from := s.Policy
		if from == "" {
			from = s.Reason
		}
		t.Rows = append(t.Rows, []string{ref.Printable(strings.Join(s.Path, " > ")), ref.Printable(s.Field), ref.Printable(string(v)), ref.Printable(from), orNone(s.Reference)})
	}
	if err := t.Write(w, opts); err != nil {
		return err
	}
	if len(e.Sources) == 0 {
		_, err := fmt.Fprintf(w, "(%s shows no setting on a path through %s)\n", ref.Printable(e.Implementation), ref.Printable(e.Target))
		return err
	}
	return nil
}
