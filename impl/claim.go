package impl

import (
	"context"
	"fmt"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/observe"
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

// StartOffline starts cfg's offline form (Config.Offline) claiming sem
// and voc ("": its own; observe.Claiming, observe.ClaimingVocabulary), so
// that the comparison follows the claim: what run, fuzz --impl and run
// --cluster's replays share. An error is cfg's: ErrUnsupported when it
// runs only in a cluster, else starting it failed.
func StartOffline(ctx context.Context, cfg Config, sem engine.Semantics, voc engine.Vocabulary) (observe.Observer, error) {
	d, err := cfg.Offline(ctx)
	if err != nil {
		return nil, err
	}
	return observe.ClaimingVocabulary(observe.Claiming(d, sem), voc), nil
}
