package engine

import (
	"sort"

	"github.com/gepcheck/gepcheck/simulator/tree"
)

// StoredDefaultSource is how a field's source reads when its value is a
// default the API server set as it stored the policy that Provenance
// names (EffectivePolicy.StoredDefaults): the policy author did not write
// it (Kubernetes, "Defaulting and Nullable").
func StoredDefaultSource(kind, policy string) string {
	return kind + " CRD default, stored for " + policy
}

// anyStoredDefaults reports whether a policy of the run carries a field
// its kind's schema defaulted (profile.Intent.Stored): only then are the
// effective specs searched for them, so that kinds without spec.stored
// pay nothing.
func (r *run) anyStoredDefaults() bool {
	for _, p := range r.policies {
		if p.Intent.Stored != nil && len(p.Intent.Stored.Defaulted) > 0 {
			return true
		}
	}
	return false
}

// storedDefaults names, sorted, the fields of spec (as Provenance names
// them) whose value is a default the API server set for the policy that
// set the field, rather than a value its author wrote; nil when none is.
func (r *run) storedDefaults(spec *tree.Node) []string {
	if !r.hasStored || r.in.Mutant == MutantStoredDefaultUnnamed {
		return nil
	}
	if v, ok := r.storedCache[spec]; ok {
		return v
	}
	var out []string
	for _, l := range spec.Leaves() {
		o := int(l.Value.Origin)
		if len(l.Path) == 0 || o < 0 || o >= len(r.policies) {
			continue // an empty spec, or an object's own value
		}
		if r.policies[o].Intent.Stored.IsDefault(l.Path) {
			out = append(out, r.renderPath(l.Path))
		}
	}
	sort.Strings(out)
	if r.storedCache == nil {
		r.storedCache = map[*tree.Node][]string{}
	}
	r.storedCache[spec] = out
	return out
}
