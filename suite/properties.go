package suite

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

// scenarios is the default generator: Gateway API shaped with any profile
// (unless the run names one), cross-namespace targets honoured or not, one
// time in four with Gateway API v1.6's whole hierarchy (ListenerSets, every
// route kind, label-selector targets: generators.Config.Hierarchy), and,
// one time in four, a generic DAG of abstract kinds.
func scenarios(c *Capture) *rapid.Generator[*generators.Scenario] {
	return rapid.Custom(func(t *rapid.T) *generators.Scenario {
		if c.profile() == "" && rapid.IntRange(0, 3).Draw(t, "generic") == 0 {
			return generators.GenericScenarios(generators.Config{}).Draw(t, "dag")
		}
		cross := rapid.Bool().Draw(t, "crossNamespace")
		hierarchy := rapid.IntRange(0, 3).Draw(t, "hierarchy") == 0
		return generators.Scenarios(generators.Config{Profile: c.profile(), CrossNamespace: cross, Hierarchy: hierarchy}).Draw(t, "gatewayapi")
	})
}

func orderingStrictTotalOrder() Property {
	return Property{
		Name:  "ordering/strict-total-order",
		Cite:  "GEP-713, Conflict resolution rules 2 and 3: the order assigning established and challenger is a strict total order on policies",
		Kills: []engine.Mutant{engine.MutantInputOrder},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			s, model := draw(t, scenarios(c), "scenario")
			c.Set(s, "")
			less := engine.LessFor(m)
			var ps []*engine.Policy
			pols := policies(model)
			for _, k := range slices.Sorted(maps.Keys(pols)) {
				ps = append(ps, pols[k])
			}
			for _, a := range ps {
				if less(a, a) {
					Fail(t, c, "irreflexivity: %s < %s", a.Ref, a.Ref)
				}
				for _, b := range ps {
					if a == b {
						continue
					}
					if less(a, b) == less(b, a) {
						Fail(t, c, "totality/asymmetry: %s and %s: a<b=%v, b<a=%v", a.Ref, b.Ref, less(a, b), less(b, a))
					}
					for _, x := range ps {
						if less(a, b) && less(b, x) && !less(a, x) {
							Fail(t, c, "transitivity: %s < %s < %s but not %s < %s", a.Ref, b.Ref, x.Ref, a.Ref, x.Ref)
						}
					}
				}
			}
		},
	}
}

func orderingRules13() Property {
	return Property{
		Name:  "ordering/rules-1-3",
		Cite:  "GEP-713, Conflict resolution rules 1-3 and Abstract process: every path's stack puts higher policies first, then older, then first by {namespace}/{name}",
		Kills: []engine.Mutant{engine.MutantNewerWins, engine.MutantNameDescending, engine.MutantLowerEstablished},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			_, model, sem := drawCase(t, c, scenarios(c))
			res := run(t, model, sem, m)
			pols, targets := policies(model), resolvedTargets(res)
			for _, e := range res.EffectivePolicies {
				want := refs(expectedStack(e.Path, pols, targets))
				if !slices.Equal(want, e.Policies) {
					Fail(t, c, "path %s: stack %v, want %v", pathKey(e.Path), e.Policies, want)
				}
			}
		},
	}
}

func orderingInputOrderIndependence() Property {
	return Property{
		Name:  "ordering/input-order-independence",
		Cite:  "GEP-713, Conflict resolution rules: the established policy is chosen by level, timestamp and name, never by the order objects were read",
		Kills: []engine.Mutant{engine.MutantInputOrder},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			s, model, sem := drawCase(t, c, scenarios(c))
			sameWhenPermuted(t, c, s, model, sem, m)
		},
	}
}

// sameWhenPermuted checks that reordering the documents of s changes
// nothing in the output.
func sameWhenPermuted(t *rapid.T, c *Capture, s *generators.Scenario, model *simulator.Model, sem engine.Semantics, m engine.Mutant) {
	t.Helper()
	pm, err := generators.Permute(t, s).Model()
	if err != nil {
		t.Fatalf("permuted scenario does not build: %v", err)
	}
	a, b := canonical(run(t, model, sem, m)), canonical(run(t, pm, sem, m))
	if a != b {
		Fail(t, c, "the output depends on the order of the input documents:\n%s\n%s", a, b)
	}
}

func determinismSameInput() Property {
	return Property{
		Name:  "determinism/same-input",
		Cite:  "gepcheck's engine is a function: the same input gives the same output (DEVELOPERS.md, Deterministic)",
		Kills: []engine.Mutant{engine.MutantFlakyTies},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			_, model, sem := drawCase(t, c, scenarios(c))
			first := canonical(run(t, model, sem, m))
			for i := 0; i < 3; i++ {
				if again := canonical(run(t, model, sem, m)); again != first {
					Fail(t, c, "run %d differs from the first:\n%s\n%s", i+2, first, again)
				}
			}
		},
	}
}

func noneAtMostOneAccepted() Property {
	return Property{
		Name:  "none/at-most-one-accepted",
		Cite:  "GEP-713, Merge strategy: None: the oldest, then first by {namespace}/{name}, beats all challengers, which MUST be rejected",
		Kills: []engine.Mutant{engine.MutantNoneAcceptsAll, engine.MutantNewerWins},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			prof := rapid.SampledFrom([]string{"color-direct", "backendtlspolicy"}).Draw(t, "profile")
			_, model, sem := drawCase(t, c, generators.Scenarios(generators.Config{Profile: prof}))
			res := run(t, model, sem, m)
			pols, targets := policies(model), acceptedTargets(res)
			// Per target at most one accepted policy.
			accepted := map[string][]string{}
			for ref, ts := range targets {
				for _, tg := range ts {
					accepted[tg] = append(accepted[tg], ref)
				}
			}
			for _, tg := range slices.Sorted(maps.Keys(accepted)) {
				if ps := accepted[tg]; len(ps) > 1 {
					slices.Sort(ps)
					Fail(t, c, "target %s: %d accepted policies %v, want at most one", tg, len(ps), ps)
				}
			}
			if prof == "color-direct" {
				// One level only: of the policies resolving to a target,
				// exactly one is accepted and every other is Conflicted.
				resolved := map[string]int{}
				for _, ts := range resolvedTargets(res) {
					for _, tg := range ts {
						resolved[tg]++
					}
				}
				for _, tg := range slices.Sorted(maps.Keys(resolved)) {
					if len(accepted[tg]) != 1 {
						Fail(t, c, "target %s: %d policies resolve to it, %d accepted, want exactly one", tg, resolved[tg], len(accepted[tg]))
					}
				}
			}
			// On every path the effective spec is the oldest policy's,
			// whatever the level (rules 2 and 3 only).
			for _, e := range res.EffectivePolicies {
				var winner *engine.Policy
				for _, ref := range e.Policies {
					if p := pols[ref]; winner == nil || olderFirst(p, winner) {
						winner = p
					}
				}
				if winner == nil {
					continue
				}
				if canonical(e.Spec) != canonical(winner.Intent.SpecProper) {
					Fail(t, c, "path %s: effective %s, want the established %s's %s", pathKey(e.Path), canonical(e.Spec), winner.Ref, canonical(winner.Intent.SpecProper))
				}
			}
		},
	}
}

func noneSameTargetConflicts() Property {
	return Property{
		Name:  "none/same-target-conflicts",
		Cite:  "Gateway API, BackendTLSPolicySpec.TargetRefs: \"When more than one BackendTLSPolicy selects the same target and sectionName, implementations MUST determine precedence\" (older, then first by {namespace}/{name}); the others are Conflicted (profile noneConflicts: Target)",
		Kills: []engine.Mutant{engine.MutantTargetConflictsOnPath, engine.MutantNewerWins},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			_, model, sem := drawCase(t, c, generators.BackendTLSScenarios("default", 4))
			res := run(t, model, sem, m)
			pols := policies(model)
			oldestOnMostSpecific(t, c, res, pols)
			conflictedWhereOlder(t, c, res, pols)
		},
	}
}

// targetDepth is the index in path of the most specific element p targets,
// -1 when it targets none.
func targetDepth(p *engine.Policy, path []string) int {
	d := -1
	for _, tr := range p.TargetRefs {
		ns := tr.Namespace
		if ns == "" {
			ns = p.Ref.Namespace
		}
		ref := tr.Kind + "/" + ns + "/" + tr.Name
		if tr.SectionName != "" {
			ref += "#" + tr.SectionName
		}
		if i := slices.Index(path, ref); i > d {
			d = i
		}
	}
	return d
}

// oldestOnMostSpecific: on every path the effective spec is that of the
// oldest policy on the most specific target any policy of the path
// selects.
func oldestOnMostSpecific(t *rapid.T, c *Capture, res engine.Result, pols map[string]*engine.Policy) {
	for _, e := range res.EffectivePolicies {
		var winner *engine.Policy
		deepest := -1
		for _, ref := range e.Policies {
			p := pols[ref]
			switch d := targetDepth(p, e.Path); {
			case d > deepest:
				winner, deepest = p, d
			case d == deepest && olderFirst(p, winner):
				winner = p
			}
		}
		if winner != nil && canonical(e.Spec) != canonical(winner.Intent.SpecProper) {
			Fail(t, c, "path %s: effective %s, want %s's %s (the oldest on the most specific target)", pathKey(e.Path), canonical(e.Spec), winner.Ref, canonical(winner.Intent.SpecProper))
		}
	}
}

// conflictedWhereOlder: a policy is Conflicted on a target exactly where
// an older valid policy selects the same target.
func conflictedWhereOlder(t *rapid.T, c *Capture, res engine.Result, pols map[string]*engine.Policy) {
	invalid := map[string]bool{}
	for _, ps := range res.Policies {
		for _, cond := range ps.Conditions {
			invalid[ps.Ref] = invalid[ps.Ref] || cond.Type == engine.TypeAccepted && cond.Reason == engine.ReasonInvalid
		}
	}
	for _, ps := range res.Policies {
		p := pols[ps.Ref]
		for _, tg := range ps.Targets {
			older := ""
			for ref, q := range pols {
				if q != p && !invalid[ref] && olderFirst(q, p) && targetDepth(q, []string{tg.Ref}) == 0 {
					older = ref
				}
			}
			for _, cond := range tg.Conditions {
				if cond.Type != engine.TypeAccepted {
					continue
				}
				switch conflicted := cond.Reason == engine.ReasonConflicted; {
				case conflicted && older == "":
					Fail(t, c, "%s is Conflicted on %s, where no older policy selects the same target", ps.Ref, tg.Ref)
				case !conflicted && older != "" && cond.Status == "True":
					Fail(t, c, "%s is Accepted on %s, where the older %s selects the same target", ps.Ref, tg.Ref, older)
				}
			}
		}
	}
}

func noneProfileRefused() Property {
	return Property{
		Name:  "none/profile-refused",
		Cite:  "GEP-713, Merge strategy: None: \"The None merge strategy MUST NOT be implemented in combination with any other merge strategy\"",
		Kills: []engine.Mutant{MutantNoneCombinable},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			others := rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"AtomicDefaults", "PatchDefaults", "AtomicOverrides", "PatchOverrides"}), 0, 4, rapid.ID[string]).Draw(t, "others")
			strategies := append([]string{"None"}, others...)
			rapid.Permutation(strategies).Draw(t, "order")
			doc := fmt.Sprintf(`apiVersion: gepcheck.dev/v1alpha1
kind: PolicyProfile
metadata: {name: random}
spec:
  policy: {group: example.com, kind: RandomPolicy}
  targets: [{group: "", kind: Service}]
  effectiveTargets: [{group: "", kind: Service}]
  mergeStrategies: [%s]
  selection: {bareSpec: Defaults}
`, strings.Join(strategies, ", "))
			err := validateFor(m)([]byte(doc))
			switch {
			case len(others) > 0 && err == nil:
				Fail(t, c, "profile implementing %v was accepted", strategies)
			case len(others) > 0 && !strings.Contains(err.Error(), "spec.mergeStrategies"):
				Fail(t, c, "profile implementing %v refused without naming spec.mergeStrategies: %v", strategies, err)
			}
		},
	}
}

// MutantNoneCombinable is a broken profile validator (not an engine mutant)
// that lets None be combined with other strategies.
const MutantNoneCombinable engine.Mutant = "none-combinable"

func validateFor(m engine.Mutant) func([]byte) error {
	return func(doc []byte) error {
		if m == MutantNoneCombinable {
			// Validate as if None were not listed.
			doc = []byte(strings.Replace(string(doc), "None, ", "", 1))
			doc = []byte(strings.Replace(string(doc), ", None", "", 1))
		}
		_, err := profile.Parse(doc, "random")
		return err
	}
}

func atomicOneSpec() Property {
	return Property{
		Name:  "atomic/one-spec",
		Cite:  "GEP-713, Merge strategies: Atomic defaults and Atomic overrides: the effective spec proper MUST equal the winning spec in its entirety",
		Kills: []engine.Mutant{engine.MutantAtomicAsPatch, engine.MutantOverridesAsDefaults, engine.MutantLowerEstablished},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			cfg := generators.Config{Profile: "all-levels", Strategies: []profile.Strategy{profile.AtomicDefaults, profile.AtomicOverrides}}
			_, model, sem := drawCase(t, c, generators.Scenarios(cfg))
			res := run(t, model, sem, m)
			pols, targets := policies(model), acceptedTargets(res)
			for _, e := range res.EffectivePolicies {
				stack := expectedStack(e.Path, pols, targets)
				got := canonical(e.Spec)
				if sem == engine.GEP713 {
					// The literal process may pick any of them, but
					// only one, whole.
					found := false
					for _, st := range stack {
						found = found || canonical(st.p.Intent.SpecProper) == got
					}
					if !found {
						Fail(t, c, "path %s: effective %s is no stacked policy's spec proper", pathKey(e.Path), got)
					}
					continue
				}
				// sticky-overrides: the least specific override, else the
				// most specific default.
				var want *engine.Policy
				for _, st := range stack {
					if st.p.Intent.Strategy == profile.AtomicOverrides {
						want = st.p
						break
					}
				}
				if want == nil && len(stack) > 0 {
					want = stack[len(stack)-1].p
				}
				if want != nil && canonical(want.Intent.SpecProper) != got {
					Fail(t, c, "path %s: effective %s, want %s's %s", pathKey(e.Path), got, want.Ref, canonical(want.Intent.SpecProper))
				}
			}
		},
	}
}

func loneStrategyIndependent() Property {
	return Property{
		Name:  "lone/strategy-independent",
		Cite:  "GEP-713, Merge strategies: a merge combines an established and a challenger policy; a path with one policy has none to combine, so its effective spec proper is that policy's, nulls included, whatever its merge strategy",
		Kills: []engine.Mutant{engine.MutantPatchOntoNothing},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			cfg := generators.Config{Profile: "all-levels", MaxPolicies: 1, NoInvalid: true,
				Strategies: []profile.Strategy{profile.AtomicDefaults, profile.PatchDefaults, profile.AtomicOverrides, profile.PatchOverrides}}
			_, model, sem := drawCase(t, c, generators.Scenarios(cfg))
			res := run(t, model, sem, m)
			pols, targets := policies(model), acceptedTargets(res)
			for _, e := range res.EffectivePolicies {
				stack := expectedStack(e.Path, pols, targets)
				if len(stack) != 1 {
					continue // one policy attached twice on the path
				}
				p := stack[0].p
				if want, got := canonical(p.Intent.SpecProper), canonical(e.Spec); want != got {
					Fail(t, c, "path %s: the lone %s policy %s has effective spec %s, want its spec proper %s", pathKey(e.Path), p.Intent.Strategy.Title(), p.Ref, got, want)
				}
			}
		},
	}
}

// dualProfile is a two-level hierarchy for merge-patch laws.
const dualProfile = `apiVersion: gepcheck.dev/v1alpha1
kind: PolicyProfile
metadata: {name: dual}
spec:
  policy: {group: example.gepcheck.dev, kind: P}
  targets:
  - {group: example.gepcheck.dev, kind: A}
  - {group: example.gepcheck.dev, kind: B}
  effectiveTargets: [{group: example.gepcheck.dev, kind: B}]
  mergeStrategies: [PatchDefaults, PatchOverrides]
  selection:
    stanzas: {defaults: defaults, overrides: overrides}
    bareSpec: Defaults
`

func dualScenario(high, low map[string]any, highStanza string) *generators.Scenario {
	pol := func(name, kind, stanza string, spec map[string]any) generators.Policy {
		return generators.Policy{Group: "example.gepcheck.dev", Kind: "P", Namespace: "default", Name: name,
			Targets: []generators.Target{{Group: "example.gepcheck.dev", Kind: kind, Name: strings.ToLower(kind) + "1"}},
			Spec:    map[string]any{stanza: spec}}
	}
	return &generators.Scenario{
		ProfileYAML: dualProfile,
		Generic: &generators.Generic{Group: "example.gepcheck.dev", Kinds: []string{"A", "B"},
			Nodes: []generators.GenericNode{{Kind: "A", Name: "a1"}, {Kind: "B", Name: "b1"}}, Edges: [][2]int{{0, 1}}},
		Policies: []generators.Policy{pol("high", "A", highStanza, high), pol("low", "B", "defaults", low)},
	}
}

func rfc7386DefaultsOverridesDual() Property {
	return Property{
		Name:  "rfc7386/defaults-overrides-dual",
		Cite:  "GEP-713, Patch defaults: f(e,c) = rfc7386(target = e, patch = c); Patch overrides: f(e,c) = rfc7386(target = c, patch = e); so Patch defaults(e,c) = Patch overrides(c,e) = MergePatch(e, c) of RFC 7386 (checked against evanphx/json-patch)",
		Kills: []engine.Mutant{engine.MutantNullKept, engine.MutantListsMerged},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			e := generators.JSONObject(3).Draw(t, "e")
			p := withoutNullsInLists(generators.JSONObject(3).Draw(t, "c")).(map[string]any)
			want := evanphx(t, e, p)
			sem := c.semantics(t)
			for _, s := range []*generators.Scenario{dualScenario(e, p, "defaults"), dualScenario(p, e, "overrides")} {
				c.Set(s, sem)
				model, err := s.Model()
				if err != nil {
					t.Fatalf("dual scenario: %v", err)
				}
				res := run(t, model, sem, m)
				if len(res.EffectivePolicies) != 1 {
					t.Fatalf("want one path, got %d", len(res.EffectivePolicies))
				}
				if got := canonical(res.EffectivePolicies[0].Spec); got != want {
					Fail(t, c, "%s of %s and %s: got %s, evanphx MergePatch gives %s", s.Policies[0].Spec, canonical(e), canonical(p), got, want)
				}
			}
		},
	}
}

// withoutNullsInLists drops nulls inside objects inside lists: evanphx
// removes them although RFC 7386 copies lists whole (a known difference,
// pinned in simulator/tree's TestEvanphxDifferences).
func withoutNullsInLists(v any) any { return stripNulls(v, false) }

func stripNulls(v any, inList bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, c := range x {
			if c != nil || !inList {
				out[k] = stripNulls(c, inList)
			}
		}
		return out
	case []any:
		out := []any{}
		for _, c := range x {
			out = append(out, stripNulls(c, true))
		}
		return out
	}
	return v
}

func evanphx(t *rapid.T, target, patch any) string {
	tb, _ := json.Marshal(target)
	pb, _ := json.Marshal(patch)
	out, err := jsonpatch.MergePatch(tb, pb)
	if err != nil {
		t.Fatalf("evanphx MergePatch: %v", err)
	}
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("evanphx output: %v", err)
	}
	return canonical(v)
}

func stickyFieldPrecedence() Property {
	return Property{
		Name:  "sticky/field-precedence",
		Cite:  "GEP-2649, Hierarchy: per field, A override > B override > C override > C default > B default > A default (sticky-overrides semantics)",
		Kills: []engine.Mutant{engine.MutantStickyIsGEP713, engine.MutantOverridesAsDefaults},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			cfg := generators.Config{Profile: "all-levels", FlatSpecs: true, Strategies: []profile.Strategy{profile.PatchDefaults, profile.PatchOverrides}}
			s, model := draw(t, generators.Scenarios(cfg), "scenario")
			c.Set(s, engine.StickyOverrides)
			res := run(t, model, engine.StickyOverrides, m)
			pols, targets := policies(model), acceptedTargets(res)
			for _, e := range res.EffectivePolicies {
				stack := expectedStack(e.Path, pols, targets)
				want := map[string]any{}
				// Defaults: the most specific wins, so apply top-down.
				for _, st := range stack {
					if !st.p.Intent.Strategy.IsOverride() {
						for k, v := range st.p.Intent.SpecProper {
							want[k] = v
						}
					}
				}
				// Overrides: the least specific wins, so apply bottom-up.
				for i := len(stack) - 1; i >= 0; i-- {
					if st := stack[i]; st.p.Intent.Strategy.IsOverride() {
						for k, v := range st.p.Intent.SpecProper {
							want[k] = v
						}
					}
				}
				if canonical(want) != canonical(e.Spec) {
					Fail(t, c, "path %s (stack %v): effective %s, want %s", pathKey(e.Path), refs(stack), canonical(e.Spec), canonical(want))
				}
			}
		},
	}
}

// statusWords are the condition each status vocabulary reports how much of
// an accepted policy is in effect with, written here from the texts, not
// taken from the engine: GEP-713 as merged ("Status reporting", Status
// conditions: Programmed True "Programmed" / "PartiallyProgrammed", False
// "Overridden") and its 2025 draft ("Policy status": Enforced,
// PartiallyEnforced, Overridden). A policy no path through whose targets
// reaches an effective target is gepcheck's Unknown (docs/semantics.md,
// Status vocabularies).
var statusWords = map[engine.Vocabulary]struct {
	typ, other                         string
	full, partial, overridden, unknown [2]string // status, reason
}{
	engine.VocabularyMerged: {"Programmed", "Enforced", [2]string{"True", "Programmed"}, [2]string{"True", "PartiallyProgrammed"}, [2]string{"False", "Overridden"}, [2]string{"Unknown", "Unknown"}},
	engine.VocabularyDraft:  {"Enforced", "Programmed", [2]string{"True", "Enforced"}, [2]string{"True", "PartiallyEnforced"}, [2]string{"False", "Overridden"}, [2]string{"False", "Unknown"}},
}

func statusEnforcedFromProvenance() Property {
	return Property{
		Name:  "status/enforced-from-provenance",
		Cite:  "GEP-713, Status reporting, Status conditions (merged): Programmed (full spec programmed), PartiallyProgrammed (parts superseded), Overridden (fully overridden); its draft's Policy status: Enforced, PartiallyEnforced, Overridden; derived here from which fields of the policy reach the effective policies, in both vocabularies",
		Kills: []engine.Mutant{engine.MutantAlwaysEnforced, engine.MutantOtherVocabulary},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			_, model, sem := drawCase(t, c, generators.Scenarios(generators.Config{FlatSpecs: true, Profile: c.profile()}))
			// Both vocabularies, on one case: they word one outcome.
			for _, vocab := range []engine.Vocabulary{engine.VocabularyMerged, engine.VocabularyDraft} {
				checkStatusWords(t, c, model, sem, m, vocab)
			}
		},
	}
}

// fieldsInEffect counts the paths whose expected stack holds policy, those
// where every one of its fields is in effect, and those where none is.
func fieldsInEffect(res engine.Result, pols map[string]*engine.Policy, targets map[string][]string, policy string, fields []string) (paths, full, zero int) {
	for _, e := range res.EffectivePolicies {
		for _, st := range expectedStack(e.Path, pols, targets) {
			if st.ref != policy {
				continue
			}
			paths++
			kept := 0
			for _, f := range fields {
				if e.Provenance[f] == policy {
					kept++
				}
			}
			if kept == len(fields) {
				full++
			} else if kept == 0 {
				zero++
			}
		}
	}
	return paths, full, zero
}

func checkStatusWords(t *rapid.T, c *Capture, model *simulator.Model, sem engine.Semantics, m engine.Mutant, vocab engine.Vocabulary) {
	words := statusWords[vocab]
	res := runVocabulary(t, model, sem, m, vocab)
	pols, targets := policies(model), acceptedTargets(res)
	for _, ps := range res.Policies {
		if _, ok := engine.FindCondition(ps.Conditions, words.other); ok {
			Fail(t, c, "%s: %s writes the other vocabulary's %s condition: %+v", ps.Ref, vocab, words.other, ps.Conditions)
		}
		acc, _ := engine.FindCondition(ps.Conditions, engine.TypeAccepted)
		enf, ok := engine.FindCondition(ps.Conditions, words.typ)
		switch {
		case acc.Status != "True" && ok:
			// GEP-713 (merged), Status conditions: "Non-accepted policy
			// objects are also not Programmed and not Overridden".
			Fail(t, c, "%s: not accepted (%s), yet %s=%s/%s", ps.Ref, acc.Reason, words.typ, enf.Status, enf.Reason)
		case acc.Status == "True" && !ok:
			Fail(t, c, "%s: accepted, with no %s condition (%s): %+v", ps.Ref, words.typ, vocab, ps.Conditions)
		}
		if !ok {
			continue
		}
		fields, opaque := leafFields(pols[ps.Ref].Intent.SpecProper)
		if opaque {
			continue
		}
		paths, full, zero := fieldsInEffect(res, pols, targets, ps.Ref, fields)
		want := words.partial
		switch {
		case paths == 0:
			want = words.unknown
		case full == paths:
			want = words.full
		case zero == paths:
			want = words.overridden
		}
		if enf.Status != want[0] || enf.Reason != want[1] {
			Fail(t, c, "%s: %s %s=%s/%s, want %s/%s (stacked %d times: %d fully in effect, %d not at all)", ps.Ref, vocab, words.typ, enf.Status, enf.Reason, want[0], want[1], paths, full, zero)
		}
	}
}

func statusAffectedFromProvenance() Property {
	return Property{
		Name:  "status/affected-from-provenance",
		Cite:  "GEP-713, Target object status: <domain>/<Kind>Affected on objects affected by a policy, i.e. where at least one of its fields is in effect",
		Kills: []engine.Mutant{engine.MutantAffectedByAll},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			_, model, sem := drawCase(t, c, generators.Scenarios(generators.Config{FlatSpecs: true, Profile: c.profile()}))
			res := run(t, model, sem, m)
			pols, targets := policies(model), acceptedTargets(res)
			want := map[string]map[string]bool{}
			add := func(obj, ref string) {
				if want[obj] == nil {
					want[obj] = map[string]bool{}
				}
				want[obj][ref] = true
			}
			for _, e := range res.EffectivePolicies {
				for _, st := range expectedStack(e.Path, pols, targets) {
					fields, _ := leafFields(st.p.Intent.SpecProper)
					in := len(fields) == 0
					for _, f := range fields {
						in = in || e.Provenance[f] == st.ref
					}
					if in {
						add(e.Path[len(e.Path)-1], st.ref) // the effective target
						add(e.Path[st.level], st.ref)      // the declared target
					}
				}
			}
			got := map[string]map[string]bool{}
			for _, ts := range res.Targets {
				got[ts.Ref] = map[string]bool{}
				for _, p := range ts.AffectedBy {
					got[ts.Ref][p] = true
				}
			}
			if canonical(got) != canonical(want) {
				Fail(t, c, "Affected conditions %s, want %s", canonical(got), canonical(want))
			}
		},
	}
}

func localityAddingAPolicy() Property {
	return Property{
		Name:  "locality/adding-a-policy",
		Cite:  "GEP-713, Hierarchy of target kinds: a policy affects the scope rooted at its targets; adding one changes only the effective policies of paths through its targets (GEP-1713, Policy Attachment: a policy on a ListenerSet does \"not impact listeners in the parent Gateway\"; label-selector targets count as targets)",
		Kills: []engine.Mutant{engine.MutantLeakyTargets},
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			cfg := generators.Config{Profile: rapid.SampledFrom([]string{"all-levels", "color-inherited", "backendtlspolicy"}).Draw(t, "profile")}
			cfg.Hierarchy = rapid.Bool().Draw(t, "hierarchy")
			s, model := draw(t, generators.Scenarios(cfg), "scenario")
			extra := generators.PolicyFor(s, cfg).Draw(t, "extra")
			s2 := s.WithPolicy(extra)
			sem := c.semantics(t)
			c.Set(s2, sem)
			model2, err := s2.Model()
			if err != nil {
				t.Fatalf("scenario with the extra policy does not build: %v", err)
			}
			before, after := run(t, model, sem, m), run(t, model2, sem, m)
			ref := fmt.Sprintf("%s/%s/%s", extra.Kind, extra.Namespace, extra.Name)
			old := map[string]string{}
			for _, e := range before.EffectivePolicies {
				old[pathKey(e.Path)] = canonical(e.Spec) + canonical(e.Provenance)
			}
			seen := map[string]bool{}
			for _, e := range after.EffectivePolicies {
				k := pathKey(e.Path)
				seen[k] = true
				if old[k] == canonical(e.Spec)+canonical(e.Provenance) {
					continue
				}
				if !throughDeclared(e.Path, extra, s) {
					Fail(t, c, "adding %s (targets %v) changed path %s, which is not through its targets", ref, extra.Targets, k)
				}
			}
			for _, k := range slices.Sorted(maps.Keys(old)) {
				if !seen[k] {
					Fail(t, c, "adding %s removed the effective policy of path %s", ref, k)
				}
			}
		},
	}
}

// throughDeclared reports whether path passes through one of the targets
// the policy declares (as written in its targetRefs, not as resolved), or
// through a route of s its label selectors select (read from s's plain
// data: a route of the selector's kind, in the policy's namespace, with
// all of its labels).
func throughDeclared(path []string, p generators.Policy, s *generators.Scenario) bool {
	for _, el := range path {
		r, err := ref.Parse(el)
		if err != nil {
			continue
		}
		if selectsRoute(r, p, s) || targetsElement(r, p) {
			return true
		}
	}
	return false
}

// selectsRoute: one of p's label selectors selects route r of s (its kind,
// in p's namespace, every label matching).
func selectsRoute(r ref.Ref, p generators.Policy, s *generators.Scenario) bool {
	for _, sel := range p.Selectors {
		for _, rt := range s.Routes {
			kind := "HTTPRoute"
			switch {
			case rt.Kind != "":
				kind = rt.Kind
			case rt.GRPC:
				kind = "GRPCRoute"
			}
			if kind != sel.Kind || rt.Name != r.Name || r.Kind != kind || nsOr(rt.Namespace) != nsOr(p.Namespace) || r.Namespace != nsOr(rt.Namespace) {
				continue
			}
			all := true
			for k, v := range sel.MatchLabels {
				if rt.Labels[k] != v {
					all = false
				}
			}
			if all {
				return true
			}
		}
	}
	return false
}

// targetsElement: one of p's targetRefs names r.
func targetsElement(r ref.Ref, p generators.Policy) bool {
	for _, tg := range p.Targets {
		ns := tg.Namespace
		if ns == "" {
			ns = p.Namespace
		}
		if r.Kind == tg.Kind && r.Name == tg.Name && r.Section == tg.Section && (r.Namespace == "" || r.Namespace == ns) {
			return true
		}
	}
	return false
}

func findingGEP713VsSticky() Property {
	return Property{
		Name:    "findings/gep713-vs-sticky",
		Cite:    "GEP-713, Abstract process for calculating Effective policies (flowchart step H) versus GEP-2649, Hierarchy: do the literal process and sticky overrides agree?",
		Finding: true,
		Check: func(t *rapid.T, m engine.Mutant, c *Capture) {
			cfg := generators.Config{Profile: "all-levels", FlatSpecs: true}
			s, model := draw(t, generators.Scenarios(cfg), "scenario")
			c.Set(s, "")
			a, b := run(t, model, engine.GEP713, m), run(t, model, engine.StickyOverrides, m)
			ga, gb := map[string]string{}, map[string]string{}
			for _, e := range a.EffectivePolicies {
				ga[pathKey(e.Path)] = canonical(e.Spec)
			}
			for _, e := range b.EffectivePolicies {
				gb[pathKey(e.Path)] = canonical(e.Spec)
			}
			for _, k := range slices.Sorted(maps.Keys(ga)) {
				if gb[k] != ga[k] {
					Fail(t, c, "path %s: gep713 gives %s, sticky-overrides gives %s", k, ga[k], gb[k])
				}
			}
		},
	}
}

// nsOr is the namespace of an object written without one.
func nsOr(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}
