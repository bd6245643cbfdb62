// Package runner runs scenario files through an implementation, offline
// or in a cluster, for `gepcheck run` (docs/cluster.md; docs/reports.md):
// it selects the implementation's form, runs the cases, writes the cases
// a cluster shrank as findings, and builds the results and the commands
// that replay them. It returns values; the command prints them.
package runner

import (
	"fmt"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// BadInput is an error in what the user gave (exit 2), apart from the
// implementation or the cluster failing.
type BadInput struct{ Err error }

func (e BadInput) Error() string { return e.Err.Error() }
func (e BadInput) Unwrap() error { return e.Err }

// Claim parses --semantics, the semantics an implementation claims, and
// tells a configuration that runs either (impl.Claimer) to run under it.
// An empty flag is the implementation's own claim.
func Claim(cfg impl.Config, flag string) (engine.Semantics, error) {
	if flag == "" {
		return "", nil
	}
	sem, err := engine.ParseSemantics(flag)
	if err != nil {
		return "", fmt.Errorf("--semantics: %w", err)
	}
	if c, ok := cfg.(impl.Claimer); ok {
		c.Claim(sem)
	}
	return sem, nil
}

// ClaimVocabulary parses --status-vocabulary, the status vocabulary an
// implementation claims, and tells a configuration that writes either
// (impl.VocabularyClaimer) to write it. An empty flag is the
// implementation's own claim.
func ClaimVocabulary(cfg impl.Config, flag string) (engine.Vocabulary, error) {
	if flag == "" {
		return "", nil
	}
	v, err := engine.ParseVocabulary(flag)
	if err != nil {
		return "", fmt.Errorf("--status-vocabulary: %w", err)
	}
	if c, ok := cfg.(impl.VocabularyClaimer); ok {
		c.ClaimVocabulary(v)
	}
	return v, nil
}
