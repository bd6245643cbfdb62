// Package features names what an implementation of policy attachment can
// do, as Gateway API's conformance suite names its features
// (sigs.k8s.io/gateway-api/pkg/features): a scenario that needs a feature
// the implementation does not declare is skipped, not failed.
package features

import (
	"slices"
	"strings"
)

// Name is a feature: a policy kind the implementation serves, or one of
// the named capabilities below.
type Name string

const (
	// ObjectFields: the implementation reads gepcheck's ObjectFields
	// documents, the objects' own values of GEP-2649 field-level policies.
	ObjectFields Name = "ObjectFields"
	// SectionName: policies may target a section (a listener, a rule)
	// with targetRefs[].sectionName (GEP-713, "Targeting a section").
	SectionName Name = "sectionName"
	// MergeType: each policy chooses its merge strategy with a field of
	// its spec (a profile's selection.strategyField, docs/profiles.md).
	MergeType Name = "mergeType"
	// WellKnownCACertificates: a BackendTLSPolicy may name the system's
	// CAs instead of CA ConfigMaps, support Gateway API calls
	// Implementation-specific (BackendTLSPolicyValidation: an
	// implementation without it sets Accepted=False/Invalid); named as
	// Gateway API's conformance suite would.
	WellKnownCACertificates Name = "BackendTLSPolicyWellKnownCACertificates"
)

// PolicyKind is the feature of serving policies of kind.
func PolicyKind(kind string) Name { return Name(kind) }

// Set is the features an implementation declares. A nil Set declares
// every feature.
type Set []Name

// All declares every feature (the reference engine).
var All Set = nil

// Has reports whether s declares f.
func (s Set) Has(f Name) bool { return s == nil || slices.Contains(s, f) }

// String lists the features, or "all".
func (s Set) String() string {
	if s == nil {
		return "all"
	}
	var out []string
	for _, f := range s {
		out = append(out, string(f))
	}
	return strings.Join(out, ", ")
}
