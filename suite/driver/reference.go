package driver

import (
	"context"
	"strings"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// Reference observes cases with gepcheck's own engine.
type Reference struct {
	Semantics engine.Semantics
}

// Name implements Driver.
func (Reference) Name() string { return "reference" }

// Supports implements Driver: the engine handles every feature.
func (Reference) Supports(string) bool { return true }

// Conditions implements Driver.
func (Reference) Conditions() []string { return nil }

// Observe implements Driver.
func (r Reference) Observe(_ context.Context, cases []Case) ([]Observation, error) {
	out := make([]Observation, len(cases))
	for i, c := range cases {
		out[i] = r.observe(c)
	}
	return out, nil
}

func (r Reference) observe(c Case) Observation {
	m, err := simulator.LoadFiles([]string{"-"}, strings.NewReader(c.YAML), simulator.Options{Profiles: c.Profiles})
	if err != nil {
		return Observation{Name: c.Name, Error: err.Error()}
	}
	sem := r.Semantics
	if sem == "" {
		sem = engine.StickyOverrides
	}
	return FromOutput(c.Name, m.Run(sem, nil))
}

// FromOutput converts a simulation into an observation.
func FromOutput(name string, out *simulator.Output) Observation {
	o := Observation{Name: name, Effective: []Path{}, Policies: []Status{}}
	for _, e := range out.EffectivePolicies {
		spec, _ := e.Spec.(map[string]any)
		o.Effective = append(o.Effective, Path{Path: e.Path, Spec: spec})
	}
	for _, p := range out.Policies {
		s := Status{Ref: p.Ref}
		for _, c := range p.Conditions {
			s.Conditions = append(s.Conditions, Condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message})
		}
		o.Policies = append(o.Policies, s)
	}
	for _, t := range out.Targets {
		s := Status{Ref: t.Ref}
		for _, c := range t.Conditions {
			s.Conditions = append(s.Conditions, Condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message})
		}
		o.Targets = append(o.Targets, s)
	}
	o.Normalize()
	return o
}
