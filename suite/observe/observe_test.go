package observe

import (
	"context"
	"os"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/features"
)

// A case is skipped for an implementation that does not declare a
// feature it needs, and run otherwise: the policy kind, and the system CAs
// of a BackendTLSPolicy (Implementation-specific support, Gateway API v1
// BackendTLSPolicyValidation.WellKnownCACertificates).
func TestUnsupported(t *testing.T) {
	read := func(file string) Case {
		data, err := os.ReadFile("../../scenarios/gateway-api/" + file)
		if err != nil {
			t.Fatal(err)
		}
		return Case{Name: file, YAML: string(data)}
	}
	wellKnown, configMap := read("backendtlspolicy-well-known-cas.yaml"), read("backendtlspolicy-missing-ca.yaml")
	for _, tc := range []struct {
		fs   features.Set
		c    Case
		want string
	}{
		{features.Set{"BackendTLSPolicy"}, wellKnown, string(features.WellKnownCACertificates)},
		{features.Set{"BackendTLSPolicy", features.WellKnownCACertificates}, wellKnown, ""},
		{features.Set{"BackendTLSPolicy"}, configMap, ""},
		{features.Set{"SecurityPolicy"}, configMap, "BackendTLSPolicy"},
		{features.All, wellKnown, ""},
	} {
		caps := Capabilities{Features: tc.fs}
		m, err := ReferenceModel(tc.c, caps)
		if err != nil {
			t.Fatal(err)
		}
		if got := caps.Unsupported(m); got != tc.want {
			t.Errorf("features %s, %s: Unsupported = %q, want %q", tc.fs, tc.c.Name, got, tc.want)
		}
	}
}

// The status vocabulary an implementation claims (GEP-713 as merged
// upstream, "Status reporting", Status conditions, or its draft's Policy
// status) is the one the reference's model writes: the expectation
// follows the claim, and no claim is merged GEP-713's; run --status-
// vocabulary (ClaimingVocabulary) replaces the claim, and nothing else.
func TestReferenceFollowsTheVocabularyClaim(t *testing.T) {
	data, err := os.ReadFile("../../scenarios/gep-713/example-1-direct.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := Case{Name: "example-1", YAML: string(data)}
	for _, tc := range []struct {
		claim, want engine.Vocabulary
	}{
		{engine.VocabularyDraft, engine.VocabularyDraft},
		{engine.VocabularyMerged, engine.VocabularyMerged},
		{"", engine.VocabularyMerged},
	} {
		m, err := ReferenceModel(c, Capabilities{Vocabulary: tc.claim})
		if err != nil {
			t.Fatal(err)
		}
		if m.Vocabulary != tc.want {
			t.Errorf("claim %q: the reference's model writes %q, want %q", tc.claim, m.Vocabulary, tc.want)
		}
	}
	d := fixed{caps: Capabilities{Vocabulary: engine.VocabularyDraft, Semantics: engine.GEP713, Features: features.Set{"ColorPolicy"}}}
	got := ClaimingVocabulary(d, engine.VocabularyMerged).Capabilities()
	if got.Vocabulary != engine.VocabularyMerged || got.Semantics != engine.GEP713 || len(got.Features) != 1 {
		t.Errorf("claiming merged: %+v", got)
	}
	if got := ClaimingVocabulary(d, "").Capabilities(); got.Vocabulary != engine.VocabularyDraft {
		t.Errorf("claiming nothing replaced the claim: %q", got.Vocabulary)
	}
}

// fixed is an observer with fixed capabilities that observes nothing.
type fixed struct{ caps Capabilities }

func (fixed) Name() string                                           { return "fixed" }
func (f fixed) Capabilities() Capabilities                           { return f.caps }
func (fixed) Observe(context.Context, []Case) ([]Observation, error) { return nil, nil }
