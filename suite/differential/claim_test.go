package differential

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/features"
	"github.com/gepcheck/gepcheck/suite/observe"
	"github.com/gepcheck/gepcheck/suite/observe/observetest"
)

// literal is an implementation that follows GEP-713's process literally
// (the reference under gep713) and claims claim.
type literal struct{ claim engine.Semantics }

func (literal) Name() string { return "literal" }

func (l literal) Capabilities() observe.Capabilities {
	return observe.Capabilities{Semantics: l.claim}
}

func (literal) Observe(_ context.Context, cases []observe.Case) ([]observe.Observation, error) {
	return observe.Reference(cases, observe.Capabilities{Semantics: engine.GEP713}), nil
}

func scenarioCase(t *testing.T, file string) observe.Case {
	t.Helper()
	data, err := os.ReadFile("../../scenarios/gep-713/" + file)
	if err != nil {
		t.Fatal(err)
	}
	return observe.Case{Name: file, YAML: string(data)}
}

// An implementation is judged by the semantics it claims (docs/semantics.md):
// one that follows GEP-713's process literally passes when it claims
// gep713 and fails on the scenario where the readings differ when it
// claims sticky-overrides; a scenario whose expectations hold under one
// reading only (its semantics:) is skipped for an implementation that
// claims the other.
func TestCasesFollowTheClaim(t *testing.T) {
	differs := scenarioCase(t, "overrides-three-levels-gep713.yaml") // GEP-713 Example 2's overrides, three levels
	differs.Semantics = nil                                          // judged whatever the claim
	res, err := Cases(context.Background(), literal{engine.GEP713}, []observe.Case{differs})
	if err != nil {
		t.Fatal(err)
	}
	if len(res[0].Diff) > 0 || res[0].Skipped != "" {
		t.Errorf("claiming gep713, a literal implementation disagrees: %v %s", res[0].Diff, res[0].Skipped)
	}
	res, _ = Cases(context.Background(), literal{engine.StickyOverrides}, []observe.Case{differs})
	if len(res[0].Diff) == 0 {
		t.Error("claiming sticky-overrides, a literal implementation agrees on the scenario where the readings differ: the claim is not followed")
	}

	onlyGEP713 := scenarioCase(t, "overrides-three-levels-gep713.yaml")
	onlyGEP713.Semantics = []engine.Semantics{engine.GEP713}
	res, _ = Cases(context.Background(), literal{engine.StickyOverrides}, []observe.Case{onlyGEP713})
	if !strings.Contains(res[0].Skipped, "holds under gep-713") || len(res[0].Diff) > 0 {
		t.Errorf("a gep713-only scenario against a sticky-overrides claim: skipped %q, diff %v", res[0].Skipped, res[0].Diff)
	}
	res, _ = Cases(context.Background(), literal{engine.GEP713}, []observe.Case{onlyGEP713})
	if res[0].Skipped != "" || len(res[0].Diff) > 0 {
		t.Errorf("a gep713-only scenario against a gep713 claim: skipped %q, diff %v", res[0].Skipped, res[0].Diff)
	}
}

// The differential property and batched runs (fuzz --impl … --semantics)
// compare with the reference under the claim: a literal implementation
// claiming gep713 passes on inherited ColorPolicy scenarios; claiming
// sticky-overrides it is caught.
func TestPropertyAndBatchFollowTheClaim(t *testing.T) {
	gen := generators.Scenarios(generators.Config{Profile: "color-inherited", MaxPolicies: 6})
	if out := suite.Run(Property(context.Background(), literal{engine.GEP713}, "color-inherited", gen), "", 3, 200, suite.Options{ShrinkTime: time.Second}); !out.Passed {
		t.Errorf("claiming gep713, a literal implementation fails the differential property: %s", out.Log)
	}
	if out := suite.Run(Property(context.Background(), literal{engine.StickyOverrides}, "color-inherited", gen), "", 3, 200, suite.Options{ShrinkTime: time.Second}); out.Passed {
		t.Error("claiming sticky-overrides, a literal implementation passes 200 cases (seed 3): the claim is not followed")
	}
	var cases []generators.Case
	for i := range 200 {
		cases = append(cases, generators.Case{Scenario: gen.Example(i)})
	}
	for _, tc := range []struct {
		claim    engine.Semantics
		disagree bool
	}{{engine.GEP713, false}, {engine.StickyOverrides, true}} {
		im := literal{tc.claim}
		res, err := judge(context.Background(), im, "color-inherited", cases, im.Capabilities())
		if err != nil {
			t.Fatal(err)
		}
		var found []Disagreement
		for _, d := range res {
			if d.disagrees() {
				found = append(found, d)
			}
		}
		if (len(found) > 0) != tc.disagree {
			t.Errorf("batched, claiming %s: %d disagreements in 200 scenarios", tc.claim, len(found))
		}
	}
}

// declared is the reference declaring only some features.
type declared struct{ fs features.Set }

func (declared) Name() string { return "declared" }

func (d declared) Capabilities() observe.Capabilities { return observe.Capabilities{Features: d.fs} }

func (declared) Observe(_ context.Context, cases []observe.Case) ([]observe.Observation, error) {
	return observe.Reference(cases, observe.Capabilities{}), nil
}

// A case that needs a feature the implementation does not declare (a
// policy kind it does not serve, ObjectFields) is skipped, naming the
// feature, not failed (run --exec-features).
func TestCasesSkipUndeclaredFeatures(t *testing.T) {
	read := func(file string) observe.Case {
		data, err := os.ReadFile("../../scenarios/" + file)
		if err != nil {
			t.Fatal(err)
		}
		return observe.Case{Name: file, YAML: string(data)}
	}
	cases := []observe.Case{
		read("gep-713/example-2-defaults-and-overrides.yaml"),
		read("kuadrant/a1-default-replaced.yaml"),
		read("gep-2649/cdncaching-object-fields.yaml"),
	}
	res, err := Cases(context.Background(), declared{features.Set{"ColorPolicy", "CDNCachingPolicy"}}, cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"", "uses AuthPolicy", "uses ObjectFields"} {
		if !strings.HasPrefix(res[i].Skipped, want) || (want == "") != (res[i].Skipped == "") || len(res[i].Diff) > 0 {
			t.Errorf("%s: skipped %q, diff %v; want skipped %q", res[i].Name, res[i].Skipped, res[i].Diff, want)
		}
	}
	res, _ = Cases(context.Background(), declared{features.All}, cases)
	for _, r := range res {
		if r.Skipped != "" {
			t.Errorf("%s skipped with every feature declared: %s", r.Name, r.Skipped)
		}
	}
}

// mutated is the reference engine broken by a mutant: an implementation
// with a known bug; the reference itself without the mutant.
func mutated(m engine.Mutant) observetest.Mutated {
	return observetest.Mutated{Named: "mutated", Mutant: m}
}

// The inherited-policy generators draw what an implementation can get
// wrong: one that merges lists in merge patches element by element is
// caught on ColorPolicy scenarios (a list under a key the specs share).
func TestDifferentialCatchesListsMerged(t *testing.T) {
	gen := generators.Scenarios(generators.Config{Profile: "color-inherited", Strategies: []profile.Strategy{profile.PatchDefaults, profile.PatchOverrides}})
	out := suite.Run(Property(context.Background(), mutated(engine.MutantListsMerged), "color-inherited", gen), "", 1, 300, suite.Options{ShrinkTime: time.Second, Semantics: engine.StickyOverrides})
	if out.Passed {
		t.Fatal("an implementation merging lists element by element passes 300 color-inherited cases (seed 1)")
	}
}

// The coverage report names each field at each level with each merge
// option a scenario draws, the values that matter to merge patches, the
// shapes of targetRefs and the orders of creationTimestamps; it counts
// disagreements and lists the declared combinations never drawn.
func TestCoverage(t *testing.T) {
	at := func(sec int) *time.Time { c := generators.BaseTime.Add(time.Duration(sec) * time.Second); return &c }
	s := &generators.Scenario{
		Gateways: []generators.Gateway{{Namespace: "ns", Name: "gw"}},
		Routes:   []generators.Route{{Namespace: "ns", Name: "r"}},
		Policies: []generators.Policy{
			{Kind: "P", Namespace: "ns", Name: "p-a", Created: at(1), Targets: []generators.Target{{Kind: "HTTPRoute", Name: "r", Section: "rule-1"}},
				Spec: map[string]any{"retry": map[string]any{"numRetries": 2.0}, "timeout": nil, "mergeType": "JSONMerge"}},
			{Kind: "P", Namespace: "ns", Name: "p-b", Created: at(0), Targets: []generators.Target{{Kind: "Gateway", Name: "gw"}, {Kind: "Gateway", Name: "gw", Section: "http"}},
				Spec: map[string]any{"cors": map[string]any{"allowOrigins": []any{"a"}}}},
			{Kind: "P", Namespace: "ns", Name: "p-c", Created: at(1), Targets: []generators.Target{{Kind: "HTTPRoute", Name: "gone"}, {Kind: "Gateway", Name: "gw"}},
				Spec: map[string]any{"retry": map[string]any{}, "codes": []any{}}},
		}}
	want := []string{
		"codes @ Gateway / none", "codes @ HTTPRoute / none",
		"cors.allowOrigins @ Gateway / none", "cors.allowOrigins @ Gateway listener / none",
		// p-a and p-c: equal; p-b is older than both, with a later name
		// than p-a's and an earlier one than p-c's.
		"creationTimestamp: equal", "creationTimestamp: older has the earlier name", "creationTimestamp: older has the later name",
		"retry.numRetries @ HTTPRoute rule / JSONMerge",
		"targetRefs: missing HTTPRoute", "targetRefs: missing beside existing", "targetRefs: several",
		"value [] @ Gateway / none", "value [] @ HTTPRoute / none",
		"value list @ Gateway / none", "value list @ Gateway listener / none",
		"value null @ HTTPRoute rule / JSONMerge",
		"value {} @ Gateway / none", "value {} @ HTTPRoute / none",
	}
	if got := Combinations(s); !slices.Equal(got, want) {
		t.Errorf("Combinations =\n%q\nwant\n%q", got, want)
	}
	declared := DeclaredCombinations([]string{"retry.numRetries"}, map[string][]string{"HTTPRoute rule": {"none", "JSONMerge"}})
	c := newCoverage(declared)
	c.add(s, true)
	if got := c.Missing(); !slices.Equal(got, []string{"retry.numRetries @ HTTPRoute rule / none"}) {
		t.Errorf("Missing = %q", got)
	}
	k := "retry.numRetries @ HTTPRoute rule / JSONMerge"
	if c.Drawn[k] != 1 || c.Disagreed[k] != 1 {
		t.Errorf("counts: drawn %d, disagreed %d", c.Drawn[k], c.Disagreed[k])
	}
}

// TestExtraMeaning: a condition an implementation writes that GEP-713
// names as a basic status condition ("Overridden: the policy's spec is
// known to have been fully overridden by other specs") contradicts it
// where the reference has the policy still enforced; one no spec names is
// only counted.
func TestExtraMeaning(t *testing.T) {
	s := &Summary{Extra: map[string]int{}, ExtraVsReference: map[string]map[string]int{}}
	obs := func(ref string, cs ...observe.Condition) observe.Observation {
		return observe.Observation{Policies: []observe.Status{{Ref: ref, Conditions: cs}}}
	}
	overridden := observe.Condition{Type: "Overridden", Status: "True", Reason: "Overridden"}
	merged := observe.Condition{Type: "Merged", Status: "True", Reason: "Merged"}
	for _, c := range []struct{ enforced string }{{"True/PartiallyEnforced"}, {"False/Overridden"}, {"True/Enforced"}} {
		status, reason, _ := strings.Cut(c.enforced, "/")
		s.countExtra(Disagreement{
			Want: obs("P/ns/p", observe.Condition{Type: "Enforced", Status: status, Reason: reason}),
			Got:  obs("P/ns/p", observe.Condition{Type: "Accepted", Status: "True", Reason: "Accepted"}, overridden, merged),
		})
	}
	// The reference's condition in merged GEP-713's words reads the same.
	for _, c := range []struct{ status, reason string }{{"True", "PartiallyProgrammed"}, {"False", "Overridden"}, {"True", "Programmed"}} {
		s.countExtra(Disagreement{
			Want: obs("P/ns/p", observe.Condition{Type: "Programmed", Status: c.status, Reason: c.reason}),
			Got:  obs("P/ns/p", observe.Condition{Type: "Accepted", Status: "True", Reason: "Accepted"}, overridden, merged),
		})
	}
	if _, defined, contradicts := s.Meaning("Overridden=True/Overridden"); !defined || contradicts != 4 {
		t.Errorf("Overridden: defined %v, contradicts %d; want defined, 4 of 6 (the reference has the policy enforced)", defined, contradicts)
	}
	if _, defined, _ := s.Meaning("Merged=True/Merged"); defined {
		t.Errorf("Merged: defined by GEP-713, want not")
	}
	if s.Extra["Merged=True/Merged"] != 6 || s.Extra["Accepted=True/Accepted"] != 0 {
		t.Errorf("counts %v, want Merged 6 and no Accepted", s.Extra)
	}
}

// otherVocabulary is an implementation that claims one status vocabulary
// and writes the other: the reference's observation in the vocabulary it
// claims, every policy condition rewritten into the other's (GEP-713 as
// merged upstream, "Status reporting": Programmed, PartiallyProgrammed;
// its draft, Policy status: Enforced, PartiallyEnforced; Overridden is a
// reason of both). Swapping both ways keeps the mutant a mutant whatever
// vocabulary the reference writes. An honest one writes what it claims.
type otherVocabulary struct {
	claim  engine.Vocabulary
	honest bool
}

func (otherVocabulary) Name() string { return "other-vocabulary" }

func (o otherVocabulary) Capabilities() observe.Capabilities {
	return observe.Capabilities{Vocabulary: o.claim}
}

func (o otherVocabulary) Observe(_ context.Context, cases []observe.Case) ([]observe.Observation, error) {
	swap := map[string]string{"Enforced": "Programmed", "Programmed": "Enforced", "PartiallyEnforced": "PartiallyProgrammed", "PartiallyProgrammed": "PartiallyEnforced"}
	out := observe.Reference(cases, o.Capabilities())
	if o.honest {
		return out, nil
	}
	for _, obs := range out {
		for _, p := range obs.Policies {
			for i, c := range p.Conditions {
				if to, ok := swap[c.Type]; ok {
					p.Conditions[i].Type = to
					if r, ok := swap[c.Reason]; ok {
						p.Conditions[i].Reason = r
					}
				}
			}
		}
	}
	return out, nil
}

// An implementation that claims one status vocabulary and writes the
// other is caught, on the catalogue's scenarios and by the differential
// property (fuzz --impl … --status-vocabulary), whichever it claims; one
// that writes what it claims agrees.
func TestVocabularyMutantCaught(t *testing.T) {
	c := scenarioCase(t, "example-2-defaults-and-overrides.yaml")
	for _, claim := range []engine.Vocabulary{engine.VocabularyMerged, engine.VocabularyDraft} {
		res, err := Cases(context.Background(), otherVocabulary{claim: claim}, []observe.Case{c})
		if err != nil {
			t.Fatal(err)
		}
		second := 0
		for _, d := range res[0].Diff {
			if d.Condition == "Programmed" || d.Condition == "Enforced" {
				second++
			}
		}
		if second == 0 {
			t.Errorf("claiming %s, writing the other vocabulary: no Programmed or Enforced difference: %v", claim, res[0].Diff)
		}
		if res, _ = Cases(context.Background(), otherVocabulary{claim: claim, honest: true}, []observe.Case{c}); len(res[0].Diff) > 0 {
			t.Errorf("claiming %s and writing it: %v", claim, res[0].Diff)
		}
	}
	gen := generators.Scenarios(generators.Config{Profile: "color-inherited", MaxPolicies: 4})
	if out := suite.Run(Property(context.Background(), otherVocabulary{claim: engine.VocabularyMerged}, "color-inherited", gen), "", 1, 50, suite.Options{ShrinkTime: time.Second}); out.Passed {
		t.Error("the differential property passes 50 cases of an implementation claiming merged GEP-713's vocabulary and writing the draft's")
	}
}

// In merged GEP-713's vocabulary ("Status reporting", Status conditions)
// Programmed is a policy condition, not an extra one, and the reference's
// Programmed is the state an extra condition is read against:
// PartiallyEnforced where the reference has PartiallyProgrammed agrees.
func TestExtraMeaningMerged(t *testing.T) {
	s := &Summary{Extra: map[string]int{}, ExtraVsReference: map[string]map[string]int{}}
	obs := func(cs ...observe.Condition) observe.Observation {
		return observe.Observation{Policies: []observe.Status{{Ref: "P/ns/p", Conditions: cs}}}
	}
	s.countExtra(Disagreement{
		Want: obs(observe.Condition{Type: "Programmed", Status: "True", Reason: "PartiallyProgrammed"}),
		Got:  obs(observe.Condition{Type: "Programmed", Status: "True", Reason: "Programmed"}, observe.Condition{Type: "PartiallyEnforced", Status: "True", Reason: "PartiallyEnforced"}),
	})
	if len(s.Extra) != 1 || s.Extra["PartiallyEnforced=True/PartiallyEnforced"] != 1 {
		t.Errorf("extra %v, want only PartiallyEnforced once", s.Extra)
	}
	if _, defined, contradicts := s.Meaning("PartiallyEnforced=True/PartiallyEnforced"); !defined || contradicts != 0 {
		t.Errorf("PartiallyEnforced against the reference's PartiallyProgrammed: defined %v, contradicts %d", defined, contradicts)
	}
}
