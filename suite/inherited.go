package suite

import (
	"maps"
	"slices"
	"strings"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/internal/jsonmap"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// Properties of GEP-2649's field-level merging and of the Kuadrant RFC's
// Defaults & Overrides.

// kuadrantRuleIDs lists the rule ids of an effective spec or of a block
// ({"limits": {"a": ...}}).
func kuadrantRuleIDs(spec any) []string {
	var ids []string
	m, _ := spec.(map[string]any)
	limits, _ := m["limits"].(map[string]any)
	for id := range limits {
		ids = append(ids, "limits."+id)
	}
	slices.Sort(ids)
	return ids
}

// byRef indexes a scenario's policies by Kind/namespace/name.
func byRef(s *generators.Scenario) map[string]generators.Policy {
	out := map[string]generators.Policy{}
	for _, p := range s.Policies {
		out[p.Kind+"/"+p.Namespace+"/"+p.Name] = p
	}
	return out
}

func kuadrantOverridesNeverBeaten(name, cite string, kills []engine.Mutant, onlyUnset bool) Property {
	return Property{
		Name: name, Cite: cite, Kills: kills,
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			s, model := draw(t, generators.KuadrantScenarios(generators.InheritedConfig{NoWhen: true}), "scenario")
			c.Set(s, engine.StickyOverrides)
			res := run(t, model, engine.StickyOverrides, m)
			pols, targets := policies(model), resolvedTargets(res)
			gen := byRef(s)
			for _, e := range res.EffectivePolicies {
				stack := expectedStack(e.Path, pols, targets)
				// The highest policy with an overrides block: established
				// first, so the first in the stack.
				var top *stacked
				for k := range stack {
					if _, ok := gen[stack[k].ref].Spec["overrides"]; ok {
						top = &stack[k]
						break
					}
				}
				if top == nil {
					continue
				}
				unset := map[string]bool{}
				for _, st := range stack {
					for _, u := range asStrings(gen[st.ref].Spec["unset"]) {
						unset[u] = true
					}
				}
				block, _ := gen[top.ref].Spec["overrides"].(map[string]any)
				for _, id := range kuadrantRuleIDs(block) {
					if onlyUnset && !unset[strings.TrimPrefix(id, "limits.")] {
						continue
					}
					if e.Provenance[id] != top.ref {
						Fail(t, c, "path %s: override rule %s of %s (the highest override) is %q in the effective policy", pathKey(e.Path), id, top.ref, e.Provenance[id])
					}
				}
			}
		},
	}
}

func asStrings(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func kuadrantWhenFalse() Property {
	return Property{
		Name:  "kuadrant/when-false-changes-nothing",
		Cite:  "Kuadrant RFC, Merging a generic block of policy rules with conditions: when B.when(p) does not match, return p",
		Kills: []engine.Mutant{engine.MutantWhenIgnored},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			s, model := draw(t, generators.KuadrantScenarios(generators.InheritedConfig{}), "scenario")
			c.Set(s, engine.StickyOverrides)
			// The same scenario without the blocks whose condition is false.
			s2 := s.Clone()
			for i := range s2.Policies {
				spec := jsonmap.Clone(s2.Policies[i].Spec)
				for _, stanza := range []string{"defaults", "overrides"} {
					if b, ok := spec[stanza].(map[string]any); ok && b["when"] == "false" {
						delete(spec, stanza)
					}
				}
				s2.Policies[i].Spec = spec
			}
			model2, err := s2.Model()
			if err != nil {
				t.Fatal(err)
			}
			a, b := run(t, model, engine.StickyOverrides, m), run(t, model2, engine.StickyOverrides, m)
			if canonical(a.EffectivePolicies) != canonical(b.EffectivePolicies) {
				Fail(t, c, "blocks with when: \"false\" changed the effective policies:\n%s\nwithout them:\n%s", canonical(a.EffectivePolicies), canonical(b.EffectivePolicies))
			}
		},
	}
}

func kuadrantMergeKeepsNames() Property {
	return Property{
		Name:  "kuadrant/merge-keeps-every-rule-name",
		Cite:  "Kuadrant RFC, Matrix of D/O strategies: merge compares policy rules one by one; a rule of either side without a counterpart is kept",
		Kills: []engine.Mutant{engine.MutantMergeAsAtomic},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			s, model := draw(t, generators.KuadrantScenarios(generators.InheritedConfig{OnlyMerge: true, NoWhen: true, NoUnset: true}), "scenario")
			c.Set(s, engine.StickyOverrides)
			res := run(t, model, engine.StickyOverrides, m)
			gen := byRef(s)
			for _, e := range res.EffectivePolicies {
				want := map[string]bool{}
				for _, ref := range e.Policies {
					spec := gen[ref].Spec
					for _, part := range []any{spec, spec["defaults"], spec["overrides"]} {
						if b, ok := part.(map[string]any); ok {
							for _, id := range kuadrantRuleIDs(b) {
								want[id] = true
							}
						}
					}
				}
				got := kuadrantRuleIDs(e.Spec)
				if len(got) != len(want) {
					Fail(t, c, "path %s: rules %v, want every rule of the stack %v", pathKey(e.Path), got, slices.Sorted(maps.Keys(want)))
				}
			}
		},
	}
}

func kuadrantAtomicNeverMixes() Property {
	return Property{
		Name:  "kuadrant/atomic-never-mixes",
		Cite:  "Kuadrant RFC, Atomic vs. individually merged policy rules: with atomic blocks the effective policy is one indivisible set of rules or the other",
		Kills: []engine.Mutant{engine.MutantAtomicAsPatch},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			s, model := draw(t, generators.KuadrantScenarios(generators.InheritedConfig{OnlyAtomic: true, NoWhen: true, NoUnset: true}), "scenario")
			c.Set(s, engine.StickyOverrides)
			res := run(t, model, engine.StickyOverrides, m)
			for _, e := range res.EffectivePolicies {
				from := map[string]bool{}
				for _, p := range e.Provenance {
					from[p] = true
				}
				if len(from) > 1 {
					Fail(t, c, "path %s: rules come from %v, want a single policy", pathKey(e.Path), slices.Sorted(maps.Keys(from)))
				}
			}
		},
	}
}

func fieldLevelInputOrder() Property {
	return Property{
		Name:  "fieldlevel/input-order-independence",
		Cite:  "GEP-2649 with GEP-713 Conflict resolution: field-level results do not depend on the order of input documents",
		Kills: []engine.Mutant{engine.MutantInputOrder},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			s, model := draw(t, generators.FieldLevelScenarios(generators.InheritedConfig{}), "scenario")
			c.Set(s, engine.StickyOverrides)
			sameWhenPermuted(t, c, s, model, engine.StickyOverrides, m)
		},
	}
}

func fieldLevelPrecedence() Property {
	return Property{
		Name:  "fieldlevel/field-precedence",
		Cite:  "GEP-2649, Hierarchy and Inherited Policy design guidelines: per field, A override > B override > C override > the object's own value > C default > B default > A default; at one level the first created wins",
		Kills: []engine.Mutant{engine.MutantOverridesAsDefaults},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			s, model := draw(t, generators.FieldLevelScenarios(generators.InheritedConfig{}), "scenario")
			c.Set(s, engine.StickyOverrides)
			res := run(t, model, engine.StickyOverrides, m)
			pols, targets := policies(model), resolvedTargets(res)
			for _, e := range res.EffectivePolicies {
				stack := expectedStack(e.Path, pols, targets)
				want := map[string]any{}
				setFirst := func(spec map[string]any) {
					for k, v := range spec {
						if _, has := want[k]; !has {
							want[k] = v
						}
					}
				}
				for _, st := range stack { // overrides: the highest first
					setFirst(st.p.Intent.Overrides)
				}
				setFirst(model.OwnFields[e.Path[len(e.Path)-1]])
				// defaults: the lowest level first; within a level the first
				// created.
				for end := len(stack); end > 0; {
					start := end - 1
					for start > 0 && stack[start-1].level == stack[end-1].level {
						start--
					}
					for _, st := range stack[start:end] {
						setFirst(st.p.Intent.Defaults)
					}
					end = start
				}
				if canonical(want) != canonical(e.Spec) {
					Fail(t, c, "path %s (stack %v): effective %s, want %s", pathKey(e.Path), refs(stack), canonical(e.Spec), canonical(want))
				}
			}
		},
	}
}
