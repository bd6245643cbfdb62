package incluster

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/statusrules"
)

// statusRuleDiffs judges the status of the plan's policies as stored
// (read here when stored is nil) and the Affected conditions of its
// objects, with the scenario's names.
func (r *Runner) statusRuleDiffs(ctx context.Context, p *Plan, stored []*unstructured.Unstructured) []compare.Difference {
	if stored == nil {
		var err error
		if stored, err = r.storedPolicies(ctx, p); err != nil {
			return nil // the comparison reports what cannot be read
		}
	}
	var kinds []string
	for _, u := range stored {
		if !slices.Contains(kinds, u.GetKind()) {
			kinds = append(kinds, u.GetKind())
		}
	}
	var objects []*unstructured.Unstructured
	for _, u := range p.Objects {
		got, err := r.Kube.Get(ctx, u)
		if err != nil {
			return nil
		}
		objects = append(objects, got)
	}
	caps := r.Impl.Capabilities()
	out := statusrules.Policies(stored, r.Impl.ControllerName(), caps.StrategyNames, true, p.Others, caps.StatusVocabulary())
	out = append(out, statusrules.Affected(objects, r.Impl.ControllerName(), kinds)...)
	return p.UnmapAll(out)
}
