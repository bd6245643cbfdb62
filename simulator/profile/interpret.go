package profile

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Intent is what a policy object asks for: its merge strategy and its spec
// proper.
type Intent struct {
	Strategy Strategy
	// SpecProper is the spec proper as a JSON object.
	SpecProper map[string]any
	// Invalid, when not empty, says why the controller must reject the
	// policy (Accepted=False, reason InvalidReason, else Invalid).
	Invalid       string
	InvalidReason string
	// Defaults and Overrides are the two stanzas of a policy of a
	// field-level kind (GEP-2649: a policy may hold both); nil when absent.
	Defaults, Overrides map[string]any
	// Blocks are the defaults and overrides blocks of a Kuadrant policy,
	// defaults first; Unset lists the names in spec.unset.
	Blocks []Block
	Unset  []string
	// Stored records what the API server changed as it stored the spec
	// (StoreRecord), in the coordinates of the spec proper (a stanza's
	// fields without the stanza's name; targetRefs and the strategy field
	// left out); nil when storing changed nothing, which is always the
	// case for a kind without spec.stored.
	Stored *StoredChanges
	// Written is the intent of the spec as the policy author wrote it,
	// before it was stored; set only when Stored is, so that the
	// simulator can tell what storing changed in the answer.
	Written *Intent
}

// Block is a defaults or overrides block of a Kuadrant policy.
type Block struct {
	Overrides bool
	// Merge is the merge strategy; atomic when false.
	Merge bool
	// When is a CEL expression on self, the lower policy; empty: always.
	When string
	// Rules maps rule ids (set.name) to rules.
	Rules map[string]any
}

// Interpret reads the spec of a policy object of this kind. It never fails:
// a spec a controller would reject yields an Intent with Invalid set. The
// spec is read as stored (Store).
func (p *Profile) Interpret(spec map[string]any) Intent {
	written, stored, changes := p.storeRecord(spec)
	return p.InterpretStored(written, stored, changes)
}

// InterpretStored reads a policy's spec as stored, with the spec as
// written and what storing changed (StoreRecord, StoredFromCRD): the
// intent of the stored spec, and with changes, the intent as written.
func (p *Profile) InterpretStored(written, stored map[string]any, changes *StoredChanges) Intent {
	in := p.interpret(stored)
	if changes == nil {
		return in
	}
	w := p.interpret(written)
	in.Stored, in.Written = p.properChanges(changes), &w
	return in
}

// properChanges moves changes from the coordinates of the spec to those of
// the spec proper: a stanza's name is dropped, as are the fields that
// select targets and strategies. It returns nil when nothing is left.
func (p *Profile) properChanges(c *StoredChanges) *StoredChanges {
	move := func(paths [][]string) [][]string {
		var out [][]string
		for _, path := range paths {
			switch {
			case len(path) > 1 && p.isStanza(path[0]):
				out = append(out, path[1:])
			case !p.reserved(path[0]) && p.inSpecProper(path[0]):
				out = append(out, path)
			}
		}
		return out
	}
	out := &StoredChanges{Defaulted: move(c.Defaulted), Pruned: move(c.Pruned)}
	if out.Empty() {
		// Still not nil: storing changed the spec (e.g. a pruned null
		// strategy field), which may change the answer.
		return &StoredChanges{}
	}
	return out
}

// isStanza reports whether field is one of the kind's stanzas.
func (p *Profile) isStanza(field string) bool {
	sel := p.Spec.Selection
	if sel == nil || sel.Stanzas == nil || field == "" {
		return false
	}
	return field == sel.Stanzas.Defaults || field == sel.Stanzas.Overrides
}

// interpret is Interpret of a spec as it is, stored or not.
func (p *Profile) interpret(spec map[string]any) Intent {
	strategies := p.Strategies()
	if len(strategies) == 1 && p.Spec.Selection == nil {
		return Intent{Strategy: strategies[0], SpecProper: p.specProper(spec, nil)}
	}
	if p.Spec.FieldLevel != nil {
		return p.interpretFieldLevel(spec)
	}
	if p.Spec.Kuadrant != nil {
		return p.interpretKuadrant(spec)
	}
	body, class, stanza, invalid := p.selectedStanza(spec)
	if invalid != "" {
		return Intent{Invalid: invalid}
	}
	mode, invalid := p.strategyMode(spec, body, stanza)
	if invalid != "" {
		return Intent{Invalid: invalid}
	}
	st, ok := p.choose(class, mode)
	if !ok {
		want := strings.TrimSpace(mode + " " + strings.ToLower(class))
		return Intent{Invalid: fmt.Sprintf("%s does not implement %s merge strategy (implements %s)", p.Spec.Policy.Kind, want, p.strategyList())}
	}
	return Intent{Strategy: st, SpecProper: p.specProper(body, spec)}
}

// selectedStanza finds the defaults or overrides stanza a policy sets, if
// any: the body of its spec proper, its class ("", Defaults or Overrides)
// and the stanza's name, or why the spec is invalid.
func (p *Profile) selectedStanza(spec map[string]any) (body map[string]any, class, stanza, invalid string) {
	sel := p.Spec.Selection
	body, class = spec, sel.BareSpec
	st := sel.Stanzas
	if st == nil {
		return body, class, "", ""
	}
	var found []string
	for _, name := range []string{st.Defaults, st.Overrides} {
		if _, ok := spec[name]; ok && name != "" {
			found = append(found, name)
		}
	}
	if len(found) > 1 {
		// GEP-713: "User MUST NOT be allowed to specify at any individual
		// Policy CR more than one merge strategy at a time."
		return nil, "", "", fmt.Sprintf("spec sets both %s and %s: a policy may specify one merge strategy at a time (GEP-713, Selecting a merge strategy at runtime)", found[0], found[1])
	}
	if len(found) == 0 {
		return body, class, "", ""
	}
	stanza = found[0]
	m, ok := spec[stanza].(map[string]any)
	if !ok {
		return nil, "", "", fmt.Sprintf("spec.%s must be an object", stanza)
	}
	if stray := p.strayFields(spec, stanza); len(stray) > 0 {
		return nil, "", "", fmt.Sprintf("spec proper fields outside spec.%s: %s", stanza, strings.Join(stray, ", "))
	}
	class = "Overrides"
	if stanza == st.Defaults {
		class = "Defaults"
	}
	return m, class, stanza, ""
}

// strategyMode reads the strategy field, at spec level or inside the
// stanza: "", Atomic or Patch, or why the spec is invalid.
func (p *Profile) strategyMode(spec, body map[string]any, stanza string) (mode, invalid string) {
	sel := p.Spec.Selection
	f := sel.StrategyField
	if f == "" {
		return "", ""
	}
	var values []string
	var where []string
	read := func(m map[string]any, field string) {
		v, ok := m[f]
		if !ok || v == nil {
			return // null is unset, as in Kubernetes
		}
		s, isString := v.(string)
		if !isString {
			s = fmt.Sprintf("<%v>", v) // never one of strategyValues
		}
		values, where = append(values, s), append(where, field)
	}
	read(spec, "spec."+f)
	if stanza != "" {
		read(body, "spec."+stanza+"."+f)
	}
	if len(values) == 2 && values[0] != values[1] {
		return "", fmt.Sprintf("%s=%q and %s=%q disagree: a policy may specify one merge strategy at a time (GEP-713)", where[0], values[0], where[1], values[1])
	}
	if len(values) == 0 {
		return "", ""
	}
	m, ok := sel.StrategyValues[values[0]]
	if !ok {
		return "", fmt.Sprintf("%s=%q is not one of %s", where[0], values[0], strings.Join(slices.Sorted(maps.Keys(sel.StrategyValues)), ", "))
	}
	return m, ""
}

// choose picks the first implemented strategy, in the GEP's default order,
// compatible with the class (Defaults/Overrides) and mode (Atomic/Patch)
// that the policy asked for. GEP-713: a defaults field "SHOULD assume the
// Atomic Defaults merge strategy", an overrides field "the Atomic Overrides",
// and otherwise the first of Atomic Defaults, Patch Defaults, Atomic
// Overrides, Patch Overrides, Custom.
func (p *Profile) choose(class, mode string) (Strategy, bool) {
	for _, s := range p.Strategies() {
		if class == "Defaults" && s.IsOverride() || class == "Overrides" && !s.IsOverride() {
			continue
		}
		if mode == "Atomic" && s.IsPatch() || mode == "Patch" && !s.IsPatch() {
			continue
		}
		return s, true
	}
	return 0, false
}

func (p *Profile) strategyList() string {
	var names []string
	for _, s := range p.Strategies() {
		names = append(names, s.Title())
	}
	return strings.Join(names, ", ")
}

// reserved reports whether a top-level spec field belongs to targeting or
// strategy selection rather than to the spec proper.
func (p *Profile) reserved(field string) bool {
	if field == "targetRefs" || field == "targetRef" {
		return true
	}
	if ts := p.Spec.TargetSelectors; ts != nil && field == ts.Field {
		return true
	}
	if sel := p.Spec.Selection; sel != nil {
		if sel.StrategyField != "" && field == sel.StrategyField {
			return true
		}
		if st := sel.Stanzas; st != nil && (field == st.Defaults || field == st.Overrides) && field != "" {
			return true
		}
	}
	for _, x := range p.Spec.SpecProper.Exclude {
		if x == field {
			return true
		}
	}
	return false
}

// strayFields lists spec-proper fields set next to a stanza.
func (p *Profile) strayFields(spec map[string]any, stanza string) []string {
	var out []string
	for k := range spec {
		if k != stanza && !p.reserved(k) && p.inSpecProper(k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func (p *Profile) inSpecProper(field string) bool {
	if len(p.Spec.SpecProper.Fields) == 0 {
		return true
	}
	for _, f := range p.Spec.SpecProper.Fields {
		if f == field {
			return true
		}
	}
	return false
}

// specProper extracts the spec proper from body (the spec, or a stanza of
// it). outer is the whole spec when body is a stanza.
func (p *Profile) specProper(body, outer map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range body {
		if k == "targetRefs" && outer == nil || p.reserved(k) || !p.inSpecProper(k) {
			continue
		}
		out[k] = v
	}
	return out
}

// interpretFieldLevel reads a policy of a GEP-2649 kind: "MAY specify a
// defaults stanza, an overrides stanza, or both"; a bare spec is defaults.
func (p *Profile) interpretFieldLevel(spec map[string]any) Intent {
	st := p.Spec.Selection.Stanzas
	var in Intent
	stanza := func(name string) (map[string]any, bool, string) {
		v, ok := spec[name]
		if !ok || name == "" || v == nil {
			return nil, false, ""
		}
		m, isObject := v.(map[string]any)
		if !isObject {
			return nil, true, fmt.Sprintf("spec.%s must be an object", name)
		}
		return p.specProper(m, spec), true, ""
	}
	d, hasD, errD := stanza(st.Defaults)
	o, hasO, errO := stanza(st.Overrides)
	if errD != "" || errO != "" {
		return Intent{Invalid: strings.TrimSpace(errD + " " + errO)}
	}
	if hasD || hasO {
		var stray []string
		for k := range spec {
			if k != st.Defaults && k != st.Overrides && !p.reserved(k) && p.inSpecProper(k) {
				stray = append(stray, k)
			}
		}
		if len(stray) > 0 {
			sort.Strings(stray)
			return Intent{Invalid: fmt.Sprintf("spec proper fields outside the %s/%s stanzas: %s", st.Defaults, st.Overrides, strings.Join(stray, ", "))}
		}
		in.Defaults, in.Overrides = d, o
	} else if p.Spec.Selection.BareSpec == "Overrides" {
		in.Overrides = p.specProper(spec, nil)
	} else {
		in.Defaults = p.specProper(spec, nil)
	}
	// Strategy and SpecProper summarize the policy for reports: the
	// overrides if it has only overrides, else the defaults.
	in.Strategy, in.SpecProper = AtomicDefaults, in.Defaults
	if in.Defaults == nil {
		in.Strategy, in.SpecProper = AtomicOverrides, in.Overrides
	}
	return in
}

// interpretKuadrant reads a Kuadrant policy (Kuadrant RFC, "Writing
// D/O-enabled Kuadrant Policies"): defaults and/or overrides blocks, each
// with rules, a strategy (atomic when omitted) and a when condition; or the
// bare rules, "treated implicitly as a block of defaults"; and spec.unset.
func (p *Profile) interpretKuadrant(spec map[string]any) Intent {
	st := p.Spec.Selection.Stanzas
	var in Intent
	unset, msg := kuadrantUnset(spec)
	if msg != "" {
		return Intent{Invalid: msg}
	}
	in.Unset = unset
	d, hasD, errD := stanza(spec, st.Defaults)
	o, hasO, errO := stanza(spec, st.Overrides)
	if errD != "" || errO != "" {
		return Intent{Invalid: strings.TrimSpace(errD + " " + errO)}
	}
	if !hasD && !hasO {
		b, msg := p.kuadrantBlock("spec", spec, false)
		if msg != "" {
			return Intent{Invalid: msg}
		}
		b.Merge, b.When = false, "" // bare rules: an atomic set of defaults
		in.Blocks = []Block{b}
	} else {
		// "Between the following mutually exclusive options, either one or
		// the other shall be used": no bare rules next to blocks.
		for _, set := range p.Spec.Kuadrant.RuleSets {
			if _, bare := spec[strings.Split(set, ".")[0]]; bare {
				return Intent{Invalid: fmt.Sprintf("spec.%s next to %s/%s blocks: use one or the other (Kuadrant RFC)", strings.Split(set, ".")[0], st.Defaults, st.Overrides)}
			}
		}
		for _, s := range []struct {
			has       bool
			name      string
			body      map[string]any
			overrides bool
		}{{hasD, st.Defaults, d, false}, {hasO, st.Overrides, o, true}} {
			if !s.has {
				continue
			}
			b, msg := p.kuadrantBlock("spec."+s.name, s.body, s.overrides)
			if msg != "" {
				return Intent{Invalid: msg}
			}
			in.Blocks = append(in.Blocks, b)
		}
	}
	in.Strategy = AtomicDefaults
	if !hasD && hasO {
		in.Strategy = AtomicOverrides
	}
	return in
}

// kuadrantUnset reads spec.unset, a list of rule names, or says why not.
func kuadrantUnset(spec map[string]any) ([]string, string) {
	u, ok := spec["unset"]
	if !ok || u == nil {
		return nil, ""
	}
	list, isList := u.([]any)
	if !isList {
		return nil, "spec.unset must be a list of rule names"
	}
	var out []string
	for i, n := range list {
		s, isString := n.(string)
		if !isString {
			return nil, fmt.Sprintf("spec.unset[%d] must be a rule name", i)
		}
		out = append(out, s)
	}
	return out, ""
}

// stanza is the object of spec's field name (a defaults or overrides
// stanza), whether it is there, or why it is not an object.
func stanza(spec map[string]any, name string) (map[string]any, bool, string) {
	v, ok := spec[name]
	if !ok || v == nil || name == "" {
		return nil, false, ""
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		return nil, true, fmt.Sprintf("spec.%s must be an object", name)
	}
	return m, true, ""
}

// kuadrantBlock reads a block of defaults or overrides at where: its
// strategy, its when condition and its rules, by rule set.
func (p *Profile) kuadrantBlock(where string, body map[string]any, overrides bool) (Block, string) {
	b := Block{Overrides: overrides, Rules: map[string]any{}}
	switch v := body["strategy"]; v {
	case nil, "atomic":
	case "merge":
		b.Merge = true
	default:
		return b, fmt.Sprintf("%s.strategy=%v: must be atomic or merge (Kuadrant RFC: \"Each block of defaults and overrides must specify a strategy field whose value is set to either atomic or merge\")", where, v)
	}
	if w, ok := body["when"]; ok && w != nil {
		s, isString := w.(string)
		if !isString {
			return b, where + ".when must be a CEL expression (a string)"
		}
		b.When = s
	}
	for _, set := range p.Spec.Kuadrant.RuleSets {
		var cur any = body
		for _, k := range strings.Split(set, ".") {
			m, _ := cur.(map[string]any)
			cur = m[k]
		}
		rules, _ := cur.(map[string]any)
		for name, r := range rules {
			b.Rules[set+"."+name] = r
		}
	}
	return b, ""
}
