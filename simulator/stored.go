package simulator

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/tree"
)

// StoredChange is one field of one path whose effective value storing
// changed: the policies as the API server stores them (CRD defaults set,
// nulls pruned; profile spec.stored) give Stored, the policies as their
// authors wrote them would give Written (Kubernetes, "Defaulting and
// Nullable"; docs/profiles.md, What is stored).
type StoredChange struct {
	PolicyKind string
	Path       []string
	// Field is the dotted field, as Provenance names it.
	Field string
	// Stored and Written are the values (nil with Has* false: unset), and
	// StoredFrom and WrittenFrom the policies that set them.
	Stored, Written       any
	HasStored, HasWritten bool
	StoredFrom            string
	WrittenFrom           string
	// StoredDefault: Stored is a CRD default set for StoredFrom.
	StoredDefault bool
	// PrunedBy names the policy whose null for PrunedField (Field or an
	// object holding it) the API server pruned, when that is why the
	// field was not deleted.
	PrunedBy, PrunedField string
}

// asWritten runs the engine again on kind k's policies as their authors
// wrote them, when storing changed one of them (profile.Intent.Written),
// and returns the effective policies of the paths where the answer
// differs from res, the run on the policies as stored, with the fields
// that differ. A kind none of whose policies storing changed costs
// nothing more.
func (m *Model) asWritten(k *Kind, sem engine.Semantics, res engine.Result) ([]engine.EffectivePolicy, []StoredChange) {
	written := writtenPolicies(k)
	if written == nil {
		return nil, nil
	}
	wres := engine.Run(engine.Input{Graph: m.Graph, Profile: k.Profile, Policies: written, Grants: m.Grants, Semantics: sem, OwnFields: m.OwnFields, Mutant: m.mutant, CEL: m.cel})
	byPath := make(map[string]*engine.EffectivePolicy, len(wres.EffectivePolicies))
	for i := range wres.EffectivePolicies {
		e := &wres.EffectivePolicies[i]
		byPath[strings.Join(e.Path, "\x00")] = e
	}
	d := &storedDiff{kind: k.Profile.Spec.Policy.Kind, pruned: map[string][][]string{}}
	for _, p := range k.Policies {
		if st := p.Intent.Stored; st != nil && len(st.Pruned) > 0 {
			d.pruned[p.Ref.String()] = st.Pruned
		}
	}
	seen := map[string]bool{}
	for i := range res.EffectivePolicies {
		s := &res.EffectivePolicies[i]
		key := strings.Join(s.Path, "\x00")
		seen[key] = true
		d.compare(s, byPath[key])
	}
	for i := range wres.EffectivePolicies {
		if w := &wres.EffectivePolicies[i]; !seen[strings.Join(w.Path, "\x00")] {
			d.compare(nil, w)
		}
	}
	return d.paths, d.changes
}

// writtenPolicies is k's policies as their authors wrote them, nil when
// storing changed none.
func writtenPolicies(k *Kind) []engine.Policy {
	var written []engine.Policy
	for i, p := range k.Policies {
		if p.Intent.Written == nil {
			continue
		}
		if written == nil {
			written = slices.Clone(k.Policies)
		}
		written[i].Intent = *p.Intent.Written
	}
	return written
}

// storedDiff gathers the paths and fields where a kind's policies as
// stored and as written differ.
type storedDiff struct {
	kind    string
	pruned  map[string][][]string // by policy ref
	paths   []engine.EffectivePolicy
	changes []StoredChange
}

// compare compares a path's effective policy as stored (s) and as written
// (w); either may be nil where the path has none.
func (d *storedDiff) compare(s, w *engine.EffectivePolicy) {
	var sv, wv map[string]any
	var stack []string
	if s != nil {
		sv, stack = leafValues(s.Spec), s.Policies
	}
	if w != nil {
		wv = leafValues(w.Spec)
		if stack == nil {
			stack = w.Policies
		}
	}
	fields := differing(sv, wv)
	if len(fields) == 0 {
		return
	}
	e := engine.EffectivePolicy{PolicyKind: d.kind}
	if w != nil {
		e = *w
	} else {
		e.Path = s.Path
	}
	d.paths = append(d.paths, e)
	for _, f := range fields {
		c := StoredChange{PolicyKind: e.PolicyKind, Path: e.Path, Field: f}
		c.Stored, c.HasStored = sv[f]
		c.Written, c.HasWritten = wv[f]
		if s != nil {
			c.StoredFrom = s.Provenance[f]
			_, c.StoredDefault = slices.BinarySearch(s.StoredDefaults, f)
		}
		if w != nil {
			c.WrittenFrom = w.Provenance[f]
		}
		if c.HasStored && !c.HasWritten && !c.StoredDefault {
			c.PrunedBy, c.PrunedField = prunedOn(stack, d.pruned, f)
		}
		d.changes = append(d.changes, c)
	}
}

// prunedOn names the first policy of stack (established first) whose
// pruned null was field or an object holding it, and that null's field.
func prunedOn(stack []string, pruned map[string][][]string, field string) (string, string) {
	for _, ref := range stack {
		for _, p := range pruned[ref] {
			f := tree.FieldPath(p)
			if field == f || strings.HasPrefix(field, f+".") {
				return ref, f
			}
		}
	}
	return "", ""
}

// leafValues flattens an effective spec to its leaves by dotted field, as
// Provenance names them. A null leaf is an unset field (a merge patch's
// null deletes; an Atomic spec's null sets nothing).
func leafValues(spec any) map[string]any {
	out := map[string]any{}
	for _, l := range tree.From(spec, tree.NoOrigin).Leaves() {
		if len(l.Path) == 0 || l.Value.Value == nil && !l.Value.IsObject() {
			continue
		}
		out[tree.FieldPath(l.Path)] = l.Value.JSON()
	}
	return out
}

// differing lists, sorted, the fields whose values differ between a and b,
// leaving out an empty object on one side where the other has fields
// beneath it (the fields beneath say what differs).
func differing(a, b map[string]any) []string {
	var out []string
	under := func(m map[string]any, f string) bool {
		for k := range m {
			if strings.HasPrefix(k, f+".") {
				return true
			}
		}
		return false
	}
	for _, f := range slices.Sorted(maps.Keys(a)) {
		bv, ok := b[f]
		if ok && tree.JSONEqual(a[f], bv) || !ok && under(b, f) {
			continue
		}
		out = append(out, f)
	}
	for _, f := range slices.Sorted(maps.Keys(b)) {
		if _, ok := a[f]; !ok && !under(a, f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// StoredWarnings words changes for people, one warning per change met on
// any number of paths, sorted: the count of paths and the first of them
// (in the order of changes) close each.
func StoredWarnings(changes []StoredChange) []string {
	type seen struct {
		n     int
		first []string
	}
	byMsg := map[string]*seen{}
	for _, c := range changes {
		msg := c.String()
		if s := byMsg[msg]; s != nil {
			s.n++
			continue
		}
		byMsg[msg] = &seen{n: 1, first: c.Path}
	}
	var out []string
	for _, msg := range slices.Sorted(maps.Keys(byMsg)) {
		s := byMsg[msg]
		out = append(out, fmt.Sprintf("%s (on %d path(s), e.g. %s)", msg, s.n, strings.Join(s.first, " > ")))
	}
	return out
}

// String words c without its path.
func (c StoredChange) String() string {
	written := "nothing (the policies as written leave it unset)"
	if c.HasWritten {
		written = fmt.Sprintf("%s from %s", compact(c.Written), c.WrittenFrom)
	}
	switch {
	case c.StoredDefault && c.HasWritten:
		return fmt.Sprintf("%s: %s from the %s replaces %s: the API server set it when it stored the policy (Kubernetes, Defaulting and Nullable)",
			c.Field, compact(c.Stored), engine.StoredDefaultSource(c.PolicyKind, c.StoredFrom), written)
	case c.StoredDefault:
		return fmt.Sprintf("%s: %s from the %s, where the policies as written leave it unset: the API server set it when it stored the policy (Kubernetes, Defaulting and Nullable)",
			c.Field, compact(c.Stored), engine.StoredDefaultSource(c.PolicyKind, c.StoredFrom))
	case c.PrunedBy != "":
		return fmt.Sprintf("a null for %s in %s is pruned by the API server: the merge patch does not delete %s (%s: %s from %s stays in effect; Kubernetes, Defaulting and Nullable)",
			c.PrunedField, c.PrunedBy, c.PrunedField, c.Field, compact(c.Stored), c.StoredFrom)
	}
	stored := "unset"
	if c.HasStored {
		stored = fmt.Sprintf("%s from %s", compact(c.Stored), c.StoredFrom)
	}
	return fmt.Sprintf("%s: %s as the API server stores the policies, %s as their authors wrote them (Kubernetes, Defaulting and Nullable)", c.Field, stored, written)
}
