package scenarios

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// CheckStepDiff judges d, the diff of a scenario's state before a step and
// after it (gepcheck diff; docs/diff.md), by the scenario's own
// expectations of the two states (scenarios/README.md, Steps), read here
// independently of the diff's code:
//
//   - effective fields: the expected effective policies of a state are
//     exhaustive, so the fields that change are exactly the leaves of the
//     expected specs whose value differs (or that one state lacks), and
//     those whose expected provenance differs where both states give one;
//     each change's values and the policy that set it are the expected
//     ones;
//   - conditions: every condition both states state (a policy's, or one of
//     its ancestors') flips in d exactly when its status or reason
//     differs, from the one to the other; a condition only the later state
//     states, where d flips it, flips to it.
//
// It returns every disagreement; none means d is what the scenario says.
func CheckStepDiff(before, after *simulator.Expect, d *simulator.StateDiff) []string {
	bl, al := flatten(before), flatten(after)
	want := changedLeaves(bl, al)
	problems := checkFields(bl, al, want, d)
	problems = append(problems, checkMissing(want, d)...)
	return append(problems, checkFlips(before, after, d)...)
}

// leaf is one leaf of an expected effective policy's spec.
type leaf struct {
	value string
	from  string
	prov  bool // the expectation gives the path's provenance
}

// flatten indexes the leaves of exp's expected effective specs by path
// and field.
func flatten(exp *simulator.Expect) map[string]leaf {
	m := map[string]leaf{}
	for _, p := range exp.EffectivePolicies {
		var walk func(prefix string, v any)
		walk = func(prefix string, v any) {
			if o, ok := v.(map[string]any); ok && len(o) > 0 {
				for k, c := range o {
					f := k
					if prefix != "" {
						f = prefix + "." + k
					}
					walk(f, c)
				}
				return
			}
			b, _ := json.Marshal(v)
			m[strings.Join(p.Path, " > ")+"\x00"+prefix] = leaf{string(b), nearest(p.Provenance, prefix), p.Provenance != nil}
		}
		walk("", p.Spec)
	}
	return m
}

// changedLeaves is the leaves whose value differs (or that one state
// lacks), and those whose provenance differs where both states give one.
func changedLeaves(bl, al map[string]leaf) map[string]bool {
	want := map[string]bool{}
	for k, b := range bl {
		a, ok := al[k]
		if !ok || a.value != b.value || (a.prov && b.prov && a.from != b.from) {
			want[k] = true
		}
	}
	for k := range al {
		if _, ok := bl[k]; !ok {
			want[k] = true
		}
	}
	return want
}

// checkFields judges each field change d reports: one the expectations
// have (want), with their values and provenance.
func checkFields(bl, al map[string]leaf, want map[string]bool, d *simulator.StateDiff) []string {
	var problems []string
	for _, f := range d.Fields {
		k := strings.Join(f.Path, " > ") + "\x00" + f.Field
		b, bok := bl[k]
		a, aok := al[k]
		if !want[k] {
			// A change of provenance alone, where an expectation gives
			// none, is not stated by the scenario either way.
			if bok != aok || a.value != b.value || (a.prov && b.prov) {
				problems = append(problems, fmt.Sprintf("%s %s: the diff reports a change the scenario's expectations do not have", printable(f.Path), f.Field))
			}
			continue
		}
		problems = append(problems, checkField(f, b, bok, a, aok)...)
	}
	return problems
}

// checkField judges one expected field change f against the leaf before
// (b, set when bok) and after (a, set when aok).
func checkField(f simulator.FieldChange, b leaf, bok bool, a leaf, aok bool) []string {
	var problems []string
	add := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s %s: "+format, append([]any{printable(f.Path), f.Field}, args...)...))
	}
	if f.BeforeSet != bok || f.AfterSet != aok {
		add("set before/after %v/%v, want %v/%v", f.BeforeSet, f.AfterSet, bok, aok)
	}
	if bok && jsonOf(f.Before) != b.value {
		add("before %s, want %s", jsonOf(f.Before), b.value)
	}
	if aok && jsonOf(f.After) != a.value {
		add("after %s, want %s", jsonOf(f.After), a.value)
	}
	if aok && a.prov && f.AfterFrom != a.from {
		add("after set by %q, want %q", f.AfterFrom, a.from)
	}
	if bok && b.prov && f.BeforeFrom != b.from {
		add("before set by %q, want %q", f.BeforeFrom, b.from)
	}
	return problems
}

// checkMissing is the expected changes (want) d does not report.
func checkMissing(want map[string]bool, d *simulator.StateDiff) []string {
	got := map[string]bool{}
	for _, f := range d.Fields {
		got[strings.Join(f.Path, " > ")+"\x00"+f.Field] = true
	}
	var missing []string
	for k := range want {
		if !got[k] {
			missing = append(missing, strings.ReplaceAll(k, "\x00", " "))
		}
	}
	sort.Strings(missing)
	var problems []string
	for _, k := range missing {
		problems = append(problems, k+": the scenario's expectations change it, the diff does not report it")
	}
	return problems
}

// conditions indexes the conditions an expectation states, by object,
// entry (as simulator.ConditionFlip names it) and type.
func conditions(exp *simulator.Expect) map[[3]string]simulator.ExpectedCondition {
	m := map[[3]string]simulator.ExpectedCondition{}
	for _, p := range exp.Policies {
		for _, c := range p.Conditions {
			m[[3]string{p.Ref, "policy", c.Type}] = c
		}
		for _, a := range p.Ancestors {
			for _, c := range a.Conditions {
				m[[3]string{p.Ref, "ancestor " + a.Ref, c.Type}] = c
			}
		}
	}
	return m
}

func checkFlips(before, after *simulator.Expect, d *simulator.StateDiff) []string {
	var problems []string
	bc, ac := conditions(before), conditions(after)
	flips := map[[3]string]simulator.ConditionFlip{}
	for _, f := range d.Conditions {
		flips[[3]string{f.Object, f.Entry, f.Type}] = f
	}
	keys := make([][3]string, 0, len(ac))
	for k := range ac {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return strings.Join(keys[i][:], "/") < strings.Join(keys[j][:], "/") })
	for _, k := range keys {
		f, flipped := flips[k]
		b, stated := bc[k]
		problems = append(problems, checkFlip(k, b, stated, ac[k], f, flipped)...)
	}
	return problems
}

// checkFlip judges condition k, stated after (a) and before (b, when
// stated), against its flip f in the diff (when flipped).
func checkFlip(k [3]string, b simulator.ExpectedCondition, stated bool, a simulator.ExpectedCondition, f simulator.ConditionFlip, flipped bool) []string {
	var problems []string
	add := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s %s %s: "+format, append([]any{k[0], k[1], k[2]}, args...)...))
	}
	differs := stated && (a.Status != b.Status || (a.Reason != "" && b.Reason != "" && a.Reason != b.Reason))
	switch {
	case stated && differs && !flipped:
		add("the scenario flips it %s/%s → %s/%s, the diff does not", b.Status, b.Reason, a.Status, a.Reason)
	case stated && !differs && flipped:
		add("the diff flips it, the scenario keeps it %s/%s", a.Status, a.Reason)
	case flipped && !sameCondition(f.After, a):
		add("the diff flips it to %s, the scenario says %s/%s", condString(f.After), a.Status, a.Reason)
	}
	if flipped && stated && differs && !sameCondition(f.Before, b) {
		add("the diff flips it from %s, the scenario says %s/%s", condString(f.Before), b.Status, b.Reason)
	}
	return problems
}

// sameCondition reports whether c is e's status, and its reason where e
// gives one.
func sameCondition(c *engine.Condition, e simulator.ExpectedCondition) bool {
	return c != nil && c.Status == e.Status && (e.Reason == "" || c.Reason == e.Reason)
}

func condString(c *engine.Condition) string {
	if c == nil {
		return "(none)"
	}
	return c.Status + "/" + c.Reason
}

// nearest is the provenance of field, or of the nearest enclosing field
// that has one.
func nearest(prov map[string]string, field string) string {
	for f := field; ; {
		if p, ok := prov[f]; ok {
			return p
		}
		i := strings.LastIndex(f, ".")
		if i < 0 {
			return prov[""]
		}
		f = f[:i]
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func printable(path []string) string { return strconv.Quote(strings.Join(path, " > ")) }
