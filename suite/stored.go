package suite

import (
	"slices"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
)

// storedDefaultsNamed: a field a CRD default set is named as one. The
// drawn profile (all-levels, flat specs) is given a schema default for
// one key inside each stanza (profile spec.stored, docs/profiles.md, What
// is stored), so that a policy whose stanza lacks the key is stored with
// it; then on every path, a field is in StoredDefaults exactly when the
// policy its provenance names did not write it: the value can only be the
// default the API server set for that policy.
func storedDefaultsNamed() Property {
	return Property{
		Name:  "provenance/stored-defaults-named",
		Cite:  "Kubernetes, Defaulting and Nullable (a default is applied where the field is missing); GEP-713, Effective policies (provenance): a field a CRD default set is attributed to the default, stored for its policy, not to the policy's author",
		Kills: []engine.Mutant{engine.MutantStoredDefaultUnnamed},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			s, model, sem := drawCase(t, c, generators.Scenarios(generators.Config{FlatSpecs: true, Profile: "all-levels"}))
			key := rapid.SampledFrom(generators.FlatKeys).Draw(t, "defaulted key")
			k := model.Kinds[0]
			prof := *k.Profile
			defaults := map[string]any{}
			if sel := prof.Spec.Selection; sel != nil && sel.Stanzas != nil {
				for _, st := range []string{sel.Stanzas.Defaults, sel.Stanzas.Overrides} {
					if st != "" {
						defaults[st+"."+key] = "stored-default"
					}
				}
			}
			if len(defaults) == 0 {
				t.Fatalf("profile %s has no stanzas to default a key in", prof.Metadata.Name)
			}
			prof.Spec.Stored = &profile.Stored{PruneNulls: true, Defaults: defaults}
			pols := slices.Clone(k.Policies)
			written := map[string]map[string]any{}
			for i := range pols {
				spec := s.Policies[i].Spec
				if spec == nil {
					spec = map[string]any{}
				}
				pols[i].Intent = prof.Interpret(spec)
				// What the author wrote: the spec proper read without
				// storing it (a profile without spec.stored).
				plain := prof
				plain.Spec.Stored = nil
				written[pols[i].Ref.String()] = plain.Interpret(spec).SpecProper
			}
			EngineRuns.Add(1)
			res := engine.Run(engine.Input{Graph: model.Graph, Profile: &prof, Policies: pols, Grants: model.Grants, Semantics: sem, Mutant: m})
			for _, e := range res.EffectivePolicies {
				var want []string
				for f, by := range e.Provenance {
					if _, wrote := written[by][f]; !wrote {
						want = append(want, f)
					}
				}
				slices.Sort(want)
				if !slices.Equal(want, e.StoredDefaults) {
					Fail(t, c, "path %s: stored defaults %v, want %v (provenance %v)", pathKey(e.Path), e.StoredDefaults, want, e.Provenance)
				}
			}
		},
	}
}
