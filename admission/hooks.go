package admission

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Chain is the hooks of every configuration in the order the API server
// considers them: mutating hooks, then validating hooks; within each
// phase, configurations sorted by name (a byte-wise, stable sort:
// configuration/mutating_webhook_manager.go, "they are sorted here to have
// a deterministic order") and each configuration's hooks in the order it
// lists them. No hook is dropped as a duplicate. The order the
// configurations are given in does not matter.
//
// The dynamic admission control proposal says the same of initializers
// ("we sort the intializers from different InitializerConfigurations by
// the name of the InitializerConfigurations; the order of the intializers
// from the same InitializerConfiguration is preserved"); for validating
// hooks it is only the order they are matched and started in: the API
// server calls them concurrently (validating/dispatcher.go).
func Chain(mutating []admissionv1.MutatingWebhookConfiguration, validating []admissionv1.ValidatingWebhookConfiguration) []*Hook {
	mutating = slices.Clone(mutating)
	validating = slices.Clone(validating)
	if mutant != MutantUnsorted {
		slices.SortStableFunc(mutating, func(a, b admissionv1.MutatingWebhookConfiguration) int { return strings.Compare(a.Name, b.Name) })
		slices.SortStableFunc(validating, func(a, b admissionv1.ValidatingWebhookConfiguration) int { return strings.Compare(a.Name, b.Name) })
	}
	var out []*Hook
	add := func(phase Phase, config string, ws []admissionv1.MutatingWebhook) {
		seen := map[string]int{}
		for i, w := range ws {
			h := &Hook{Phase: phase, Configuration: config, Index: i, Name: w.Name, Rules: slices.Clone(w.Rules),
				FailurePolicy: deref(w.FailurePolicy, admissionv1.Fail), MatchPolicy: deref(w.MatchPolicy, admissionv1.Equivalent),
				NamespaceSelector: deref(w.NamespaceSelector, metav1.LabelSelector{}), ObjectSelector: deref(w.ObjectSelector, metav1.LabelSelector{}),
				SideEffects: deref(w.SideEffects, admissionv1.SideEffectClassUnknown), TimeoutSeconds: deref(w.TimeoutSeconds, 10),
				Reinvocation: deref(w.ReinvocationPolicy, admissionv1.NeverReinvocationPolicy), MatchConditions: w.MatchConditions,
				id: fmt.Sprintf("%s/%s/%d", config, w.Name, seen[w.Name])}
			seen[w.Name]++
			for i := range h.Rules {
				if h.Rules[i].Scope == nil { // the v1 default (admissionregistration/v1 defaults.go)
					all := admissionv1.AllScopes
					h.Rules[i].Scope = &all
				}
			}
			out = append(out, h)
		}
	}
	for _, c := range mutating {
		add(Mutating, c.Name, c.Webhooks)
	}
	for _, c := range validating {
		ws := make([]admissionv1.MutatingWebhook, len(c.Webhooks))
		for i, w := range c.Webhooks {
			ws[i] = MutatingForm(w)
		}
		add(Validating, c.Name, ws)
	}
	return out
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
