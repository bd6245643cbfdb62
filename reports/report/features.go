package report

import (
	"maps"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// The features of gepcheck's conformance profile for Policy Attachment
// (docs/reports.md), named as Gateway API's conformance suite names its
// features. A case exercises a feature when its objects or its expected
// outcome use it (FeaturesOf).
const (
	// Core: GEP-713's target resolution (targetRefs to objects that exist
	// or not: TargetNotFound), its Conflict resolution rules, the None
	// merge strategy, and the Accepted condition with the Go spec's
	// reasons (Accepted, Conflicted, Invalid, TargetNotFound).
	FeatureTargetRefs         = "PolicyTargetRefs"
	FeatureConflictResolution = "PolicyConflictResolution"
	FeatureMergeStrategyNone  = "PolicyMergeStrategyNone"
	FeatureAcceptedCondition  = "PolicyAcceptedCondition"
	FeatureAtomicDefaults     = "PolicyMergeStrategyAtomicDefaults"
	FeaturePatchDefaults      = "PolicyMergeStrategyPatchDefaults"
	FeatureAtomicOverrides    = "PolicyMergeStrategyAtomicOverrides"
	FeaturePatchOverrides     = "PolicyMergeStrategyPatchOverrides"
	FeatureSectionName        = "PolicySectionName"
	FeatureCrossNamespace     = "PolicyCrossNamespace"
	FeatureAffectedCondition  = "PolicyAffectedCondition"
	FeatureEnforcedCondition  = "PolicyEnforcedCondition"
	FeatureFieldLevel         = "PolicyFieldLevelInheritance"
	FeatureKuadrantMerge      = "PolicyKuadrantMerge"
	FeatureKuadrantWhen       = "PolicyKuadrantWhen"
	FeatureKuadrantUnset      = "PolicyKuadrantUnset"
	FeatureChangesOverTime    = "PolicyChangesOverTime"
)

// CoreFeatures are the core profile's features, ExtendedFeatures the
// extended ones, in report order.
var (
	CoreFeatures     = []string{FeatureTargetRefs, FeatureConflictResolution, FeatureMergeStrategyNone, FeatureAcceptedCondition}
	ExtendedFeatures = []string{FeatureAtomicDefaults, FeaturePatchDefaults, FeatureAtomicOverrides, FeaturePatchOverrides,
		FeatureSectionName, FeatureCrossNamespace, FeatureAffectedCondition, FeatureEnforcedCondition,
		FeatureFieldLevel, FeatureKuadrantMerge, FeatureKuadrantWhen, FeatureKuadrantUnset, FeatureChangesOverTime}
)

// strategyFeatures maps GEP-713's strategies to their features.
var strategyFeatures = map[profile.Strategy]string{
	profile.None: FeatureMergeStrategyNone, profile.AtomicDefaults: FeatureAtomicDefaults, profile.PatchDefaults: FeaturePatchDefaults,
	profile.AtomicOverrides: FeatureAtomicOverrides, profile.PatchOverrides: FeaturePatchOverrides,
}

// FeaturesOf lists the features a case exercises, sorted: its model (the
// scenario's objects read by the simulator), the reference's expected
// observation as far as the comparison reads it (the condition types
// compared, nil: all; target conditions only when the implementation
// reports them), and whether it is a step of a scenario with steps. A case
// the simulator cannot read exercises target resolution only.
func FeaturesOf(c observe.Case, want *observe.Observation, compared []string, targets, step bool) []string {
	set := map[string]bool{FeatureTargetRefs: true, FeatureAcceptedCondition: true}
	if step {
		set[FeatureChangesOverTime] = true
	}
	if m, err := c.Model(simulator.Options{Profiles: c.Profiles}); err == nil {
		for _, k := range m.Kinds {
			kindFeatures(k, set)
		}
	}
	if want != nil {
		expectedFeatures(want, compared, targets, set)
	}
	out := slices.Collect(maps.Keys(set))
	slices.Sort(out)
	return out
}

// kindFeatures adds to set the features the policies of k exercise.
func kindFeatures(k *simulator.Kind, set map[string]bool) {
	if len(k.Policies) > 1 {
		set[FeatureConflictResolution] = true
	}
	switch {
	case k.Profile.Spec.FieldLevel != nil:
		set[FeatureFieldLevel] = true
	case k.Profile.Spec.Kuadrant != nil:
		for i := range k.Policies {
			kuadrantFeatures(&k.Policies[i], set)
		}
	}
	for _, p := range k.Policies {
		if f, ok := strategyFeatures[p.Intent.Strategy]; ok && p.Intent.Invalid == "" && k.Profile.Spec.FieldLevel == nil && k.Profile.Spec.Kuadrant == nil {
			set[f] = true
		}
		for _, t := range p.TargetRefs {
			if t.SectionName != "" {
				set[FeatureSectionName] = true
			}
			if t.Namespace != "" && t.Namespace != p.Ref.Namespace {
				set[FeatureCrossNamespace] = true
			}
		}
	}
}

// kuadrantFeatures adds to set the features of Kuadrant's merge a policy
// uses.
func kuadrantFeatures(p *engine.Policy, set map[string]bool) {
	for _, b := range p.Intent.Blocks {
		if b.Merge {
			set[FeatureKuadrantMerge] = true
		}
		if b.When != "" {
			set[FeatureKuadrantWhen] = true
		}
	}
	if len(p.Intent.Unset) > 0 {
		set[FeatureKuadrantUnset] = true
	}
}

// expectedFeatures adds to set the conditions of want the comparison
// reads (compared, nil: all; target conditions only with targets).
func expectedFeatures(want *observe.Observation, compared []string, targets bool, set map[string]bool) {
	// The condition in either status vocabulary: merged GEP-713's
	// Programmed or its draft's Enforced (docs/semantics.md).
	if compared == nil || slices.Contains(compared, "Enforced") || slices.Contains(compared, "Programmed") {
		for _, p := range want.Policies {
			for _, c := range p.Conditions {
				if c.Type == "Enforced" || c.Type == "Programmed" {
					set[FeatureEnforcedCondition] = true
				}
			}
		}
	}
	if targets {
		for _, t := range want.Targets {
			for _, c := range t.Conditions {
				if strings.HasSuffix(c.Type, "Affected") {
					set[FeatureAffectedCondition] = true
				}
			}
		}
	}
}

// IsCore says whether f is a core feature.
func IsCore(f string) bool { return slices.Contains(CoreFeatures, f) }

// FeatureCount is how the cases that exercise a feature came out.
type FeatureCount struct {
	Name, Profile           string // Profile: core or extended
	Passed, Failed, Skipped int
}

// FeatureCounts counts r's cases per feature, core features first, in
// report order; an error counts as failed.
func FeatureCounts(r *Results) []FeatureCount {
	var out []FeatureCount
	for _, f := range slices.Concat(CoreFeatures, ExtendedFeatures) {
		fc := FeatureCount{Name: f, Profile: "extended"}
		if IsCore(f) {
			fc.Profile = "core"
		}
		for _, c := range r.Cases {
			if !slices.Contains(c.Features, f) {
				continue
			}
			switch c.Outcome {
			case Passed:
				fc.Passed++
			case Skipped:
				fc.Skipped++
			default:
				fc.Failed++
			}
		}
		out = append(out, fc)
	}
	return out
}
