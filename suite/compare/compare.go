// Package compare tells how an implementation's observation differs from
// the reference's: each difference is a value (Difference) that callers
// classify, map and count by its fields, and print only at the edge
// (Difference.String).
package compare

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/tree"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Kind is what a Difference is about.
type Kind string

const (
	// Error: the implementation (or the reference) failed on the case, or
	// the two failed differently.
	Error Kind = "error"
	// Effective: a path's effective setting differs, or the implementation
	// has none where the reference has one.
	Effective Kind = "effective"
	// ExtraEffective: the implementation has an effective setting on a
	// path where the reference has none.
	ExtraEffective Kind = "extra-effective"
	// PolicyCondition: a condition on a policy differs, or is missing.
	PolicyCondition Kind = "policy-condition"
	// TargetCondition: a condition on an affected object differs, or is
	// missing (GEP-713, "Target object status").
	TargetCondition Kind = "target-condition"
	// StatusRule: a policy's status breaks a rule of the specs, whatever
	// its conditions say (statusrules.Rules); Condition names the
	// rule, Got what breaks it.
	StatusRule Kind = "status-rule"
	// Flapping: a condition the implementation flipped (its status or
	// reason changed, even if it changed back) during the quiet period
	// after a faulted case's last change (docs/faults.md, stability): Ref
	// is the object (and ancestor entry), Condition the type, Want the
	// condition before the write and Got after, as "Status/Reason".
	Flapping Kind = "flapping"
	// NotConvergent: a condition or an effective setting that differs
	// once the controller is restarted on a faulted case's final objects
	// (docs/faults.md, convergence): status that depends on the history.
	// Ref, Condition and Path are the compared difference's, Want what the
	// implementation showed before the restart and Got after it.
	NotConvergent Kind = "not-convergent"
	// HistoryDependent: the same final objects reached by two histories
	// give different status (docs/faults.md, history independence).
	HistoryDependent Kind = "history-dependent"
)

// OracleKind says whether k is found by a fault oracle (docs/faults.md),
// comparing the implementation with itself, not with the reference.
func OracleKind(k Kind) bool {
	return k == Flapping || k == NotConvergent || k == HistoryDependent
}

// StoredValues prefixes the kind (Kinds) of an effective setting that
// differs on a field where the reference's answer depends on what the API
// server stored.
const StoredValues = "stored-values-"

// Difference is one way an observation differs from the expected one.
//
// A kept finding records its differences in this form (the JSON names
// below), and reproduces when a new run shows the same (suite.Reproduce).
type Difference struct {
	Kind Kind `json:"kind"`
	// Path is the path whose effective setting differs (Effective,
	// ExtraEffective).
	Path []string `json:"path,omitempty"`
	// Fields are the top-level spec fields that differ on Path, sorted.
	Fields []string `json:"fields,omitempty"`
	// Ref is the policy or object whose condition differs
	// (PolicyCondition, TargetCondition).
	Ref string `json:"ref,omitempty"`
	// Condition is the condition type that differs.
	Condition string `json:"condition,omitempty"`
	// Want and Got: for effective settings the specs (nil: no effective
	// setting); for conditions "Status/Reason" ("": no such condition);
	// for errors the error texts.
	Want any `json:"want,omitempty"`
	Got  any `json:"got,omitempty"`
	// WantMessage is the message of the reference's condition: why it is
	// Invalid, who won. Shown, never compared.
	WantMessage string `json:"wantMessage,omitempty"`
	// StoredFields are the fields of Fields (Effective) on which the
	// reference's answer depends on what the API server stored: the
	// policies as their authors wrote them give Written there, not Want
	// (CRD defaults, pruned nulls; docs/profiles.md, What is stored).
	StoredFields []string `json:"storedFields,omitempty"`
	Written      any      `json:"written,omitempty"`
}

// Key names what d is about, whatever the values: its kind and the path,
// or the object and condition (or rule). Within one comparison no two
// differences share a key.
func (d Difference) Key() string {
	switch d.Kind {
	case Effective, ExtraEffective:
		return string(d.Kind) + " " + pathKey(d.Path)
	case Error:
		return string(d.Kind)
	}
	if d.Path != nil {
		return string(d.Kind) + " " + pathKey(d.Path)
	}
	return string(d.Kind) + " " + d.Ref + " " + d.Condition
}

// Diff lists how got differs from want: effective settings per path, and
// the conditions of policies (and of targets, when got reports them) by
// type, status and reason (messages are not compared), keeping only the
// condition types caps.Conditions lists (all when nil), and the status
// rules got breaks (Observation.Broken). want's effective specs are
// projected with caps.Readable, and its paths caps.Observable rules out
// are left out; paths whose effective spec is empty count as having none. The differences come in a stable order:
// errors, paths, policy conditions, target conditions, status rules.
func Diff(want, got observe.Observation, caps observe.Capabilities) []Difference {
	var out []Difference
	if want.Error != "" || got.Error != "" {
		if want.Error != got.Error {
			out = append(out, Difference{Kind: Error, Want: want.Error, Got: got.Error})
		}
		return out
	}
	var observable func([]string) bool
	if caps.Observable != nil {
		observable = func(p []string) bool { return caps.Observable(p, &got) }
	}
	w, g := effective(want.Effective, caps.Readable, observable), effective(got.Effective, nil, nil)
	written := writtenSpecs(want.Written, caps.Readable)
	for _, k := range slices.Sorted(maps.Keys(w)) {
		wp, gp := w[k], g[k]
		if gp == nil {
			out = append(out, stored(Difference{Kind: Effective, Path: wp.Path, Fields: fieldsDiffering(wp.Spec, nil), Want: wp.Spec}, written))
			continue
		}
		if !jsonEqual(wp.Spec, gp.Spec) {
			out = append(out, stored(Difference{Kind: Effective, Path: wp.Path, Fields: fieldsDiffering(wp.Spec, gp.Spec), Want: wp.Spec, Got: gp.Spec}, written))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(g)) {
		if _, ok := w[k]; !ok {
			gp := g[k]
			out = append(out, Difference{Kind: ExtraEffective, Path: gp.Path, Fields: fieldsDiffering(nil, gp.Spec), Got: gp.Spec})
		}
	}
	unreported := func(s observe.Status) bool { return slices.Contains(got.Unreported, s.Ref) }
	wantPolicies := slices.DeleteFunc(slices.Clone(want.Policies), unreported)
	gotPolicies := slices.DeleteFunc(slices.Clone(got.Policies), unreported)
	out = append(out, conditions(PolicyCondition, wantPolicies, gotPolicies, caps.Conditions)...)
	wa, ga := ancestors(wantPolicies, gotPolicies)
	out = append(out, conditions(PolicyCondition, wa, ga, caps.Conditions)...)
	if got.Targets != nil {
		out = append(out, conditions(TargetCondition, want.Targets, got.Targets, caps.Conditions)...)
	}
	// The reference keeps every status rule: what the implementation
	// breaks is a difference whatever its conditions say.
	for _, b := range got.Broken {
		out = append(out, Difference{Kind: StatusRule, Ref: b.Ref, Condition: b.Rule, Got: b.Got})
	}
	return out
}

// ancestors lists, as objects of their own (Ref policy@ancestor, as
// gepcheck-reference's in-cluster observations name them), the status per
// ancestor of each policy for which both sides report status per ancestor
// (observe.Status.Ancestors): every ancestor got writes, beside want's for
// the same ancestor, which has no conditions when want has no entry there
// (Gateway API v1, PolicyStatus.Ancestors: "the status of the policy with
// respect to each ancestor"). An ancestor want has and got does not write
// is not compared: which Gateways an implementation answers for is the
// status rules' to judge (suite/statusrules).
func ancestors(want, got []observe.Status) (w, g []observe.Status) {
	wantOf := map[string]observe.Status{}
	for _, s := range want {
		wantOf[s.Ref] = s
	}
	for _, gs := range got {
		ws, ok := wantOf[gs.Ref]
		if !ok || ws.Ancestors == nil || gs.Ancestors == nil {
			continue
		}
		for _, ga := range gs.Ancestors {
			ref := gs.Ref + "@" + ga.Ref
			g = append(g, observe.Status{Ref: ref, Conditions: ga.Conditions})
			i := slices.IndexFunc(ws.Ancestors, func(a observe.Status) bool { return a.Ref == ga.Ref })
			if i >= 0 {
				w = append(w, observe.Status{Ref: ref, Conditions: ws.Ancestors[i].Conditions})
			}
		}
	}
	return w, g
}

// effective indexes the paths that have an effective setting, projected
// with readable and kept where observable, when not nil.
func effective(ps []observe.Path, readable func(map[string]any) map[string]any, observable func([]string) bool) map[string]*observe.Path {
	m := map[string]*observe.Path{}
	for _, p := range ps {
		if observable != nil && !observable(p.Path) {
			continue
		}
		if readable != nil {
			p.Spec = readable(p.Spec)
		}
		if len(p.Spec) > 0 {
			m[pathKey(p.Path)] = &p
		}
	}
	return m
}

func pathKey(p []string) string { return strings.Join(p, " > ") }

// writtenSpecs indexes the reference's effective settings as written
// (Observation.Written) by path, projected with readable when not nil; a
// path with no effective policy as written has a nil spec.
func writtenSpecs(ps []observe.Path, readable func(map[string]any) map[string]any) map[string]map[string]any {
	if len(ps) == 0 {
		return nil
	}
	m := make(map[string]map[string]any, len(ps))
	for _, p := range ps {
		spec := p.Spec
		if readable != nil && spec != nil {
			spec = readable(spec)
		}
		m[pathKey(p.Path)] = spec
	}
	return m
}

// stored marks d's fields where the implementation gives what the
// reference's answer as written gives and the reference's answer as stored
// does not (Difference.StoredFields): the difference is exactly what the
// API server's storing changed there. A field the implementation gets
// otherwise wrong stays an effective-setting difference.
func stored(d Difference, written map[string]map[string]any) Difference {
	ws, ok := written[pathKey(d.Path)]
	if !ok {
		return d
	}
	want, _ := d.Want.(map[string]any)
	got, _ := d.Got.(map[string]any)
	for _, f := range d.Fields {
		if len(leavesDiffering(want[f], ws[f])) > 0 && len(leavesDiffering(got[f], ws[f])) == 0 {
			d.StoredFields = append(d.StoredFields, f)
		}
	}
	if len(d.StoredFields) > 0 {
		d.Written = ws
		if ws == nil {
			d.Written = map[string]any{}
		}
	}
	return d
}

// leavesDiffering lists the dotted leaves (scalars, lists, empty objects;
// a null is absent) at which a and b differ.
func leavesDiffering(a, b any) []string {
	la, lb := leafMap(a), leafMap(b)
	var out []string
	for k, v := range la {
		if w, ok := lb[k]; !ok || !jsonEqual(v, w) {
			out = append(out, k)
		}
	}
	for k := range lb {
		if _, ok := la[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

func leafMap(v any) map[string]any {
	out := map[string]any{}
	for _, l := range tree.From(v, tree.NoOrigin).Leaves() {
		if l.Value.Value == nil && !l.Value.IsObject() {
			continue
		}
		out[tree.FieldPath(l.Path)] = l.Value.JSON()
	}
	return out
}

// conditions compares the conditions of want's objects with got's.
func conditions(kind Kind, want, got []observe.Status, types []string) []Difference {
	type key struct{ ref, typ string }
	messages := map[key]string{}
	index := func(ss []observe.Status) map[key]string {
		m := map[key]string{}
		for _, s := range ss {
			for _, c := range s.Conditions {
				if types == nil || slices.Contains(types, c.Type) {
					m[key{s.Ref, c.Type}] = c.Status + "/" + c.Reason
				}
			}
		}
		return m
	}
	// A condition whose value neither GEP-713 text settles (the
	// reference's reading, engine.Condition.Undefined; docs/semantics.md)
	// is not judged, whatever the implementation writes.
	undefined := map[key]bool{}
	for _, s := range want {
		for _, c := range s.Conditions {
			messages[key{s.Ref, c.Type}] = c.Message
			if c.Undefined != "" {
				undefined[key{s.Ref, c.Type}] = true
			}
		}
	}
	wc, gc := index(want), index(got)
	// Both ways: a condition the implementation writes where the
	// reference writes none of that type (an Enforced on a rejected
	// policy, a Programmed where the reference writes the draft's
	// Enforced) differs too, for the types compared: those listed, else
	// those the reference writes on some object, and GEP-713's policy
	// conditions in either status vocabulary (merged: Accepted,
	// Programmed; draft: Accepted, Enforced).
	known := map[string]bool{}
	if types == nil {
		for k := range wc {
			known[k.typ] = true
		}
		if kind == PolicyCondition {
			known["Accepted"], known["Enforced"], known["Programmed"] = true, true, true
		}
	}
	all := maps.Clone(wc)
	for k := range gc {
		if _, ok := wc[k]; !ok && (types != nil || known[k.typ]) {
			all[k] = ""
		}
	}
	keys := slices.SortedFunc(maps.Keys(all), func(a, b key) int {
		return strings.Compare(a.ref+" "+a.typ, b.ref+" "+b.typ)
	})
	var out []Difference
	for _, k := range keys {
		if gc[k] != wc[k] && !undefined[k] {
			out = append(out, Difference{Kind: kind, Ref: k.ref, Condition: k.typ, Want: wc[k], Got: gc[k], WantMessage: messages[k]})
		}
	}
	return out
}

// fieldsDiffering lists the top-level fields whose values differ.
func fieldsDiffering(w, g map[string]any) []string {
	keys := map[string]bool{}
	for k := range w {
		keys[k] = true
	}
	for k := range g {
		keys[k] = true
	}
	var fields []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !jsonEqual(w[k], g[k]) {
			fields = append(fields, k)
		}
	}
	return fields
}

// jsonEqual compares two JSON values as JSON: numbers by value, whatever
// their Go type.
func jsonEqual(a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// String prints the difference as gepcheck prints it in reports and
// findings files, in the form those files have always had.
func (d Difference) String() string {
	// Paths, refs and messages come from an implementation: printed
	// escaped, they cannot drive a terminal.
	return ref.Printable(d.text())
}

func (d Difference) text() string {
	switch d.Kind {
	case Error:
		return fmt.Sprintf("error: want %q, got %q", d.Want, d.Got)
	case Effective:
		return fmt.Sprintf("path %s: want %s, got %s", pathKey(d.Path), specText(d.Want), specText(d.Got))
	case ExtraEffective:
		return fmt.Sprintf("path %s: want no effective policy, got %s", pathKey(d.Path), specText(d.Got))
	case StatusRule:
		return fmt.Sprintf("status of %s breaks %s: %v", d.Ref, d.Condition, d.Got)
	case PolicyCondition, TargetCondition:
		what := "policy"
		if d.Kind == TargetCondition {
			what = "target"
		}
		want, got := fmt.Sprint(d.Want), fmt.Sprint(d.Got)
		if want == "" {
			want = "no such condition"
		}
		if got == "" {
			got = "no such condition"
		}
		line := fmt.Sprintf("%s %s %s: want %s, got %s", what, d.Ref, d.Condition, want, got)
		if d.WantMessage != "" {
			line += " (reference: " + shorten(d.WantMessage) + ")"
		}
		return line
	case Flapping:
		return fmt.Sprintf("flapping: %s %s flipped from %s to %s during the quiet period", d.Ref, d.Condition, orNone(d.Want), orNone(d.Got))
	case NotConvergent, HistoryDependent:
		if d.Path != nil {
			return fmt.Sprintf("%s: path %s: %s, then %s", d.Kind, pathKey(d.Path), specText(d.Want), specText(d.Got))
		}
		return fmt.Sprintf("%s: %s %s: %s, then %s", d.Kind, d.Ref, d.Condition, orNone(d.Want), orNone(d.Got))
	}
	return fmt.Sprintf("%s: want %v, got %v", d.Kind, d.Want, d.Got)
}

// orNone prints a condition's "Status/Reason", or that there is none.
func orNone(v any) string {
	if s := fmt.Sprint(v); v != nil && s != "" {
		return s
	}
	return "no such condition"
}

// shorten keeps a message to one short line.
func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 160
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func specText(v any) string {
	m, _ := v.(map[string]any)
	if m == nil {
		return "no effective policy"
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// Strings prints each difference.
func Strings(ds []Difference) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return out
}

// Kinds names the kinds of difference in ds, sorted, for keeping one
// finding of each: "conflicted" (a policy condition where either side says
// Conflicted), "extra-condition" (a policy condition the reference does
// not write), "condition" (any other policy condition),
// "target-condition", "error", "flapping", "not-convergent",
// "history-dependent" (docs/faults.md), and for effective settings one per spec
// field that differs: "effective-setting-retry" where a path's value
// differs, "stored-values-retry" where the implementation's value is the
// one the reference gives for the policies as written and not the one it
// gives for the policies as the API server stores them
// (Difference.StoredFields: a CRD default or a pruned null decides it),
// "extra-setting-retry" where the
// implementation sets it on a path the reference gives no effective
// policy.
func Kinds(ds []Difference) []string {
	kinds := map[string]bool{}
	for _, d := range ds {
		switch d.Kind {
		case PolicyCondition:
			switch {
			case strings.HasSuffix(fmt.Sprint(d.Want), "/Conflicted") || strings.HasSuffix(fmt.Sprint(d.Got), "/Conflicted"):
				kinds["conflicted"] = true
			case d.Want == "":
				kinds["extra-condition"] = true
			default:
				kinds["condition"] = true
			}
		case TargetCondition, Error, Flapping, NotConvergent, HistoryDependent:
			kinds[string(d.Kind)] = true
		case StatusRule:
			kinds["status-rule-"+d.Condition] = true
		case ExtraEffective:
			for _, f := range d.Fields {
				kinds["extra-setting-"+f] = true
			}
		case Effective:
			if len(d.Fields) == 0 {
				kinds["effective-setting"] = true
			}
			for _, f := range d.Fields {
				if slices.Contains(d.StoredFields, f) {
					kinds[StoredValues+f] = true
					continue
				}
				kinds["effective-setting-"+f] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(kinds))
}

// Found is a kind of difference a run found (Kinds) and whether it was
// first seen after a change (scenarios/README.md, Steps): a difference
// that appears only after a step is a finding of its own, apart from the
// same kind seen at creation.
type Found struct {
	Kind      string
	AfterStep bool
}

// String is the kind as findings and reports write it: KIND, or
// KIND-after-step.
func (f Found) String() string {
	if f.AfterStep {
		return f.Kind + afterStep
	}
	return f.Kind
}

// afterStep ends the written kind of a difference first seen after a step.
const afterStep = "-after-step"

// MarshalText writes f as String does: a results file keeps a kind as
// findings name it.
func (f Found) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText reads a kind String wrote back into its value, at the one
// boundary where it is text (a results file read again).
func (f *Found) UnmarshalText(b []byte) error {
	k, after := strings.CutSuffix(string(b), afterStep)
	*f = Found{Kind: k, AfterStep: after}
	return nil
}
