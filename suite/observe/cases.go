package observe

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// ScenarioCases reads scenario files (and directories) as cases, each with its own profiles
// unless profiles are given; a scenario with steps is one case per step,
// holding the objects as they are at that step (simulator.States): a
// translator is given the full state of each step.
func ScenarioCases(files, profiles []string) ([]Case, error) {
	loaded, err := scenarios.LoadPolicy(files)
	if err != nil {
		return nil, err
	}
	return LoadedCases(loaded, profiles)
}

// LoadedCases are ScenarioCases of scenario files already loaded
// (scenarios.LoadPolicy), parsed no second time: a run that picks among
// the files first (--shard) hands over the ones it picked.
func LoadedCases(loaded []scenarios.Loaded, profiles []string) ([]Case, error) {
	var cases []Case
	for _, l := range loaded {
		cs, err := FileCases(l, profiles)
		if err != nil {
			return nil, err
		}
		cases = append(cases, cs...)
	}
	return cases, nil
}

// FileCases are the cases of one scenario file as read once
// (scenarios.LoadPolicy; ScenarioCases): one, or one per state.
func FileCases(l scenarios.Loaded, profiles []string) ([]Case, error) {
	p, docs := l.File, l.Docs
	if l.Err != nil {
		return nil, l.Err
	}
	states, models, err := simulator.StateModels(docs, simulator.Options{Profiles: profiles})
	if err != nil {
		return nil, err
	}
	if len(profiles) > 0 {
		if err := hasPolicies(p, profiles, docs, models); err != nil {
			return nil, err
		}
	}
	data, err := load.ReadNamed(p, load.DefaultLimits.MaxBytes)
	if err != nil {
		return nil, err
	}
	c := Case{Name: p, File: p, YAML: string(data), Profiles: profiles, Docs: docs}
	if sc := models[0].Scenario; sc != nil {
		if len(c.Profiles) == 0 {
			c.Profiles = sc.Spec.Profiles
		}
		if len(sc.Spec.Semantics) > 0 {
			if c.Semantics, err = sc.SemanticsList(); err != nil {
				return nil, err // names file, document and field
			}
		}
	}
	if len(states) == 1 {
		return []Case{c}, nil
	}
	for _, st := range states {
		c.States = append(c.States, st.Name)
	}
	var cases []Case
	for _, st := range states {
		sc := c
		sc.State = st.Step
		sc.Name = p + " " + sc.Label()
		sc.Docs = st.Docs
		if sc.YAML, err = load.Marshal(st.Docs); err != nil {
			return nil, err
		}
		cases = append(cases, sc)
	}
	return cases, nil
}

// hasPolicies refuses a case in which the profiles given keep no policy
// (the case's policies are of other kinds): compared so, it would agree
// with anything.
func hasPolicies(file string, profiles []string, docs []*load.Doc, models []*simulator.Model) error {
	for _, m := range models {
		if m.HasPolicies() == nil {
			return nil
		}
	}
	var kinds []string
	for _, d := range docs {
		if !slices.Contains(kinds, d.Kind) {
			kinds = append(kinds, d.Kind)
		}
	}
	slices.Sort(kinds)
	return fmt.Errorf("%s: --profile %s: %v (the case holds %s)", file, strings.Join(profiles, ","), models[0].HasPolicies(), strings.Join(kinds, ", "))
}
