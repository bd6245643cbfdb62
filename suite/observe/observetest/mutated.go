// Package observetest holds the implementations the tests of differential
// runs compare with the reference: the reference engine with a planted
// mistake (engine.Mutant), which a run must find.
package observetest

import (
	"context"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Mutated is the reference engine broken by Mutant (none: the reference
// itself) under sticky-overrides, named Named: an implementation with a
// known bug. It claims nothing (observe.Capabilities{}).
type Mutated struct {
	Named  string
	Mutant engine.Mutant
}

// Name is m.Named.
func (m Mutated) Name() string { return m.Named }

// Capabilities claims nothing.
func (Mutated) Capabilities() observe.Capabilities { return observe.Capabilities{} }

// Observe runs each case through the mutated engine; a case that does not
// load is observed as its error.
func (m Mutated) Observe(_ context.Context, cases []observe.Case) ([]observe.Observation, error) {
	out := make([]observe.Observation, len(cases))
	for i, c := range cases {
		model, err := c.Model(simulator.Options{Profiles: c.Profiles})
		if err != nil {
			out[i] = observe.Observation{Name: c.Name, Error: err.Error()}
			continue
		}
		out[i] = observe.FromOutput(c.Name, model.RunMutant(engine.StickyOverrides, m.Mutant))
	}
	return out, nil
}
