package observe

import (
	"os"

	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// ScenarioCases reads scenario files (and directories) as cases, each with its own profiles
// unless profiles are given; a scenario with steps is one case per step,
// holding the objects as they are at that step (simulator.States): a
// translator is given the full state of each step.
func ScenarioCases(files, profiles []string) ([]Case, error) {
	paths, err := scenarios.PolicyFiles(files)
	if err != nil {
		return nil, err
	}
	var cases []Case
	for _, p := range paths {
		docs, err := load.Read([]string{p}, nil)
		if err != nil {
			return nil, err
		}
		states, models, err := simulator.StateModels(docs, simulator.Options{Profiles: profiles})
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		c := Case{Name: p, YAML: string(data), Profiles: profiles}
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
			cases = append(cases, c)
			continue
		}
		for _, st := range states {
			sc := c
			sc.Name = p + " " + st.Label(len(states)-1)
			if sc.YAML, err = load.Marshal(st.Docs); err != nil {
				return nil, err
			}
			cases = append(cases, sc)
		}
	}
	return cases, nil
}
