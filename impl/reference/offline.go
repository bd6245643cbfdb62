package reference

import (
	"context"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Offline is the reference engine as an implementation: every comparison
// run against it agrees, which checks the pipeline itself.
type Offline struct {
	Semantics engine.Semantics
	// Vocabulary is the status vocabulary it writes and claims (merged
	// GEP-713's when empty).
	Vocabulary engine.Vocabulary
}

// Name implements observe.Observer.
func (Offline) Name() string { return "reference" }

// Capabilities implements observe.Observer: every feature, every
// condition, the semantics it runs, the status vocabulary it writes.
func (r Offline) Capabilities() observe.Capabilities {
	return observe.Capabilities{Semantics: r.Semantics, Vocabulary: observe.Capabilities{Vocabulary: r.Vocabulary}.StatusVocabulary()}
}

// Observe implements observe.Observer.
func (r Offline) Observe(_ context.Context, cases []observe.Case) ([]observe.Observation, error) {
	return observe.Reference(cases, r.Capabilities()), nil
}
