// Package suite holds gepcheck's named properties of the reference engine:
// laws from GEP-713, GEP-2649 and RFC 7386 checked over random scenarios
// (pgregory.net/rapid), each able to reject a deliberately broken engine
// (engine.Mutant). `go test ./suite/` runs them; `gepcheck fuzz` runs them
// from the command line.
package suite

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// Property is a named law of the engine.
type Property struct {
	// Name is stable: requirements and replay commands cite it.
	Name string
	// Cite names the rule the property checks.
	Cite string
	// Check draws a random case and checks the law on the engine variant m
	// (the zero Mutant is the reference engine). It records the scenario it
	// checks in c so that a failure can be written out.
	Check func(t *rapid.T, m engine.Mutant, c *Capture)
	// Kills lists the mutants the property must reject.
	Kills []engine.Mutant
	// Finding marks a property that is expected to fail on the reference
	// engine: it looks for a disagreement between specs, and a
	// counterexample is an output (scenarios/findings/), not a bug.
	Finding bool
	// Replay, for a property that is not in the registry (a differential
	// property, built from --impl and its flags), is the fuzz flags that
	// rebuild it; empty: --property Name.
	Replay string
}

// Capture keeps the last scenario a property checked. rapid runs the
// minimal failing case last, so after a failure it holds the shrunk
// counterexample.
type Capture struct {
	opts     Options
	mu       sync.Mutex
	scenario *generators.Scenario
	sem      engine.Semantics
	note     string
}

// Set records the scenario under check.
func (c *Capture) Set(s *generators.Scenario, sem engine.Semantics) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.scenario, c.sem, c.note = s, sem, ""
}

// Note records why the last check failed.
func (c *Capture) Note(format string, a ...any) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.note = fmt.Sprintf(format, a...)
}

// Last returns the last scenario, its semantics and the failure note.
func (c *Capture) Last() (*generators.Scenario, engine.Semantics, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.scenario, c.sem, c.note
}

// Fail notes a property's failure on its capture and fails the check.
func Fail(t *rapid.T, c *Capture, format string, a ...any) {
	t.Helper()
	c.Note(format, a...)
	t.Fatalf(format, a...)
}

// Properties lists every property, in a stable order.
func Properties() []Property {
	ps := []Property{
		orderingStrictTotalOrder(),
		orderingRules13(),
		orderingInputOrderIndependence(),
		determinismSameInput(),
		noneAtMostOneAccepted(),
		noneSameTargetConflicts(),
		noneProfileRefused(),
		atomicOneSpec(),
		loneStrategyIndependent(),
		rfc7386DefaultsOverridesDual(),
		stickyFieldPrecedence(),
		statusEnforcedFromProvenance(),
		statusAffectedFromProvenance(),
		localityAddingAPolicy(),
		listenerSetScope(),
		selectorsSameNamespace(),
		findingGEP713VsSticky(),
		kuadrantOverridesNeverBeaten("kuadrant/overrides-never-beaten-from-below",
			"Kuadrant RFC, Merge an overrides block: p[r.id] ← r, and defaults never replace a rule p has: the highest override's rules are in the effective policy",
			[]engine.Mutant{engine.MutantOverridesAsDefaults}, false),
		kuadrantOverridesNeverBeaten("kuadrant/unset-never-removes-override",
			"Kuadrant RFC, Unsetting inherited defaults and Example F2: spec.unset removes defaults, never overrides",
			[]engine.Mutant{engine.MutantUnsetOverrides}, true),
		kuadrantWhenFalse(),
		kuadrantMergeKeepsNames(),
		kuadrantAtomicNeverMixes(),
		fieldLevelInputOrder(),
		fieldLevelPrecedence(),
		storedDefaultsNamed(),
	}
	sort.SliceStable(ps, func(a, b int) bool { return ps[a].Name < ps[b].Name })
	return ps
}

// Select returns the properties named, or, when none is, every property
// that is not a finding (findings look for disagreements between specs and
// run only when named).
func Select(names []string) ([]Property, error) {
	var ps []Property
	if len(names) == 0 {
		for _, p := range Properties() {
			if !p.Finding {
				ps = append(ps, p)
			}
		}
		return ps, nil
	}
	for _, n := range names {
		p, ok := Lookup(n)
		if !ok {
			var all []string
			for _, p := range Properties() {
				all = append(all, p.Name)
			}
			return nil, fmt.Errorf("no property %q (one of %s)", n, strings.Join(all, ", "))
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// Lookup finds a property by name.
func Lookup(name string) (Property, bool) {
	for _, p := range Properties() {
		if p.Name == name {
			return p, true
		}
	}
	return Property{}, false
}

// EngineRuns counts the engine runs the properties have made, for the
// throughput benchmark.
var EngineRuns atomic.Int64

// run simulates the single policy kind of a generated model with engine
// variant m.
func run(t *rapid.T, model *simulator.Model, sem engine.Semantics, m engine.Mutant) engine.Result {
	t.Helper()
	return runVocabulary(t, model, sem, m, "")
}

// runVocabulary is run with the status vocabulary vocab (empty: merged).
func runVocabulary(t *rapid.T, model *simulator.Model, sem engine.Semantics, m engine.Mutant, vocab engine.Vocabulary) engine.Result {
	t.Helper()
	EngineRuns.Add(1)
	if len(model.Kinds) != 1 {
		t.Fatalf("generated model has %d policy kinds, want 1", len(model.Kinds))
	}
	k := model.Kinds[0]
	return engine.Run(engine.Input{Graph: model.Graph, Profile: k.Profile, Policies: k.Policies, Grants: model.Grants, Semantics: sem, Vocabulary: vocab, Mutant: m, OwnFields: model.OwnFields})
}

// draw draws a scenario and builds its model.
func draw(t *rapid.T, g *rapid.Generator[*generators.Scenario], label string) (*generators.Scenario, *simulator.Model) {
	t.Helper()
	s := g.Draw(t, label)
	m, err := s.Model()
	if err != nil {
		t.Fatalf("generated scenario does not build: %v\n%s", err, s.YAML())
	}
	return s, m
}

// drawCase draws a scenario from g, then the semantics, and records both
// as the case's counterexample.
func drawCase(t *rapid.T, c *Capture, g *rapid.Generator[*generators.Scenario]) (*generators.Scenario, *simulator.Model, engine.Semantics) {
	t.Helper()
	s, m := draw(t, g, "scenario")
	sem := c.semantics(t)
	c.Set(s, sem)
	return s, m, sem
}

// semantics draws one of the two path semantics, unless the run fixes one.
func (c *Capture) semantics(t *rapid.T) engine.Semantics {
	if c != nil && c.opts.Semantics != "" {
		return c.opts.Semantics
	}
	return rapid.SampledFrom([]engine.Semantics{engine.StickyOverrides, engine.GEP713}).Draw(t, "semantics")
}

// profile returns the profile for properties that accept any.
func (c *Capture) profile() string {
	if c == nil {
		return ""
	}
	return c.opts.Profile
}

func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("unmarshalable: %v", err)
	}
	return string(b)
}

func pathKey(p []string) string { return strings.Join(p, " > ") }
