package impl

import (
	"fmt"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// Claim parses --semantics, the semantics an implementation claims, and
// tells a configuration that runs either (Claimer) to run under it. An
// empty flag is the implementation's own claim. run, simulate --impl and
// fuzz --impl share it.
func Claim(cfg Config, flag string) (engine.Semantics, error) {
	if flag == "" {
		return "", nil
	}
	sem, err := engine.ParseSemantics(flag)
	if err != nil {
		return "", exitcode.Input{Err: fmt.Errorf("--semantics: %w", err)}
	}
	if c, ok := cfg.(Claimer); ok {
		c.Claim(sem)
	}
	return sem, nil
}

// ClaimVocabulary parses --status-vocabulary, the status vocabulary an
// implementation claims, and tells a configuration that writes either
// (VocabularyClaimer) to write it. An empty flag is the implementation's
// own claim.
func ClaimVocabulary(cfg Config, flag string) (engine.Vocabulary, error) {
	if flag == "" {
		return "", nil
	}
	v, err := engine.ParseVocabulary(flag)
	if err != nil {
		return "", exitcode.Input{Err: fmt.Errorf("--status-vocabulary: %w", err)}
	}
	if c, ok := cfg.(VocabularyClaimer); ok {
		c.ClaimVocabulary(v)
	}
	return v, nil
}
