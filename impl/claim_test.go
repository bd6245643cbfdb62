package impl

import (
	"context"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// claiming is a Config that records what it is told to claim.
type claiming struct {
	sem engine.Semantics
	voc engine.Vocabulary
}

func (*claiming) Offline(context.Context) (observe.Observer, error)           { return nil, nil }
func (*claiming) InCluster(context.Context) (incluster.Implementation, error) { return nil, nil }
func (c *claiming) Claim(sem engine.Semantics)                                { c.sem = sem }
func (c *claiming) ClaimVocabulary(v engine.Vocabulary)                       { c.voc = v }

// TestClaim: a flag is parsed and told to a configuration that claims; an
// empty flag tells it nothing; a bad one is the flag's error.
func TestClaim(t *testing.T) {
	var c claiming
	if sem, err := Claim(&c, ""); err != nil || sem != "" || c.sem != "" {
		t.Fatalf(`Claim(""): %q, %v, told %q; want nothing`, sem, err, c.sem)
	}
	if sem, err := Claim(&c, string(engine.GEP713)); err != nil || sem != engine.GEP713 || c.sem != engine.GEP713 {
		t.Fatalf("Claim(gep-713): %q, %v, told %q", sem, err, c.sem)
	}
	if v, err := ClaimVocabulary(&c, string(engine.VocabularyDraft)); err != nil || v != engine.VocabularyDraft || c.voc != engine.VocabularyDraft {
		t.Fatalf("ClaimVocabulary(draft): %q, %v, told %q", v, err, c.voc)
	}
	if _, err := Claim(&c, "nope"); err == nil || err.Error()[:len("--semantics: ")] != "--semantics: " {
		t.Fatalf("Claim(nope): %v, want a --semantics error", err)
	}
	if _, err := ClaimVocabulary(&c, "nope"); err == nil || err.Error()[:len("--status-vocabulary: ")] != "--status-vocabulary: " {
		t.Fatalf("ClaimVocabulary(nope): %v, want a --status-vocabulary error", err)
	}
}

// offlineForm is a Config whose offline form is d, or err.
type offlineForm struct {
	d   observe.Observer
	err error
}

func (o offlineForm) Offline(context.Context) (observe.Observer, error)         { return o.d, o.err }
func (offlineForm) InCluster(context.Context) (incluster.Implementation, error) { return nil, nil }

// ownClaim is an observer claiming sticky-overrides and the merged
// vocabulary of its own.
type ownClaim struct{}

func (ownClaim) Name() string { return "own" }
func (ownClaim) Capabilities() observe.Capabilities {
	return observe.Capabilities{Semantics: engine.StickyOverrides, Vocabulary: engine.VocabularyMerged}
}
func (ownClaim) Observe(context.Context, []observe.Case) ([]observe.Observation, error) {
	return nil, nil
}

// TestStartOffline: the offline form claims what it is told, its own with
// nothing told, and an error starting it is returned as it is.
func TestStartOffline(t *testing.T) {
	d, err := StartOffline(context.Background(), offlineForm{d: ownClaim{}}, engine.GEP713, engine.VocabularyDraft)
	if err != nil {
		t.Fatal(err)
	}
	if c := d.Capabilities(); c.Semantics != engine.GEP713 || c.Vocabulary != engine.VocabularyDraft {
		t.Errorf("claimed %q, %q; want gep-713, draft", c.Semantics, c.Vocabulary)
	}
	d, err = StartOffline(context.Background(), offlineForm{d: ownClaim{}}, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if c := d.Capabilities(); c.Semantics != engine.StickyOverrides || c.Vocabulary != engine.VocabularyMerged {
		t.Errorf("nothing told: claimed %q, %q; want its own", c.Semantics, c.Vocabulary)
	}
	if _, err := StartOffline(context.Background(), offlineForm{err: ErrUnsupported}, engine.GEP713, ""); err != ErrUnsupported {
		t.Errorf("an offline form that does not start: %v, want ErrUnsupported", err)
	}
}
