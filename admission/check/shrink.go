package check

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/gepcheck/gepcheck/admission"
	"github.com/gepcheck/gepcheck/admission/scenario"
)

// MaxShrinkChecks bounds the checks one Shrink sends to the API server.
const MaxShrinkChecks = 300

// Shrink makes a case on which the prediction and the API server disagree
// smaller while they still do: whole configurations, then hooks, rules,
// selectors, matchConditions and behaviours are dropped one at a time, a
// drop kept when the smaller case still disagrees (a greedy pass, again
// until nothing more can go, within MaxShrinkChecks checks). It returns
// the smallest case found and the API server's result on it.
func (c *Checker) Shrink(ctx context.Context, cs Case, r Result) (Case, Result, error) {
	checks := 0
	for progress := true; progress && checks < MaxShrinkChecks; {
		progress = false
		for _, smaller := range smallerCases(cs) {
			if checks >= MaxShrinkChecks {
				break
			}
			checks++
			sr, err := c.Check(ctx, smaller)
			if err != nil {
				return cs, r, err
			}
			if len(sr.Differences) > 0 {
				cs, r, progress = smaller, sr, true
				break
			}
		}
	}
	return cs, r, nil
}

// smallerCases are the cases one step smaller than cs, biggest steps
// first: a configuration dropped, a hook, a rule, a selector, the
// matchConditions, a behaviour.
func smallerCases(cs Case) []Case {
	var out []Case
	with := func(m []admissionv1.MutatingWebhookConfiguration, v []admissionv1.ValidatingWebhookConfiguration) {
		out = append(out, Case{Mutating: m, Validating: v, Request: cs.Request, Behave: cs.Behave, CRDs: cs.CRDs})
	}
	for i := range cs.Mutating {
		with(slices.Delete(slices.Clone(cs.Mutating), i, i+1), cs.Validating)
	}
	for i := range cs.Validating {
		with(cs.Mutating, slices.Delete(slices.Clone(cs.Validating), i, i+1))
	}
	// Every hook, as the webhooks of its configuration in the mutating
	// form (a validating one has the fields it shares with it), and how
	// to put changed webhooks back.
	type config struct {
		webhooks []admissionv1.MutatingWebhook
		put      func([]admissionv1.MutatingWebhook)
	}
	var configs []config
	for i, c := range cs.Mutating {
		configs = append(configs, config{c.Webhooks, func(ws []admissionv1.MutatingWebhook) {
			m := slices.Clone(cs.Mutating)
			m[i] = *m[i].DeepCopy()
			m[i].Webhooks = ws
			with(m, cs.Validating)
		}})
	}
	for i, c := range cs.Validating {
		ws := make([]admissionv1.MutatingWebhook, len(c.Webhooks))
		for j, w := range c.Webhooks {
			ws[j] = admission.MutatingForm(w)
		}
		configs = append(configs, config{ws, func(ws []admissionv1.MutatingWebhook) {
			v := slices.Clone(cs.Validating)
			v[i] = *v[i].DeepCopy()
			v[i].Webhooks = make([]admissionv1.ValidatingWebhook, len(ws))
			for j, w := range ws {
				v[i].Webhooks[j] = admission.ValidatingForm(w)
			}
			with(cs.Mutating, v)
		}})
	}
	changed := func(c config, j int, change func(*admissionv1.MutatingWebhook)) {
		ws := slices.Clone(c.webhooks)
		ws[j] = *ws[j].DeepCopy()
		change(&ws[j])
		c.put(ws)
	}
	for _, c := range configs {
		for j := range c.webhooks {
			if len(c.webhooks) > 1 { // else dropping the configuration does it
				c.put(slices.Delete(slices.Clone(c.webhooks), j, j+1))
			}
		}
	}
	for _, c := range configs {
		for j, w := range c.webhooks {
			for k := range w.Rules {
				if len(w.Rules) > 1 {
					changed(c, j, func(w *admissionv1.MutatingWebhook) { w.Rules = slices.Delete(w.Rules, k, k+1) })
				}
			}
			if w.NamespaceSelector != nil {
				changed(c, j, func(w *admissionv1.MutatingWebhook) { w.NamespaceSelector = nil })
			}
			if w.ObjectSelector != nil {
				changed(c, j, func(w *admissionv1.MutatingWebhook) { w.ObjectSelector = nil })
			}
			if w.MatchConditions != nil {
				changed(c, j, func(w *admissionv1.MutatingWebhook) { w.MatchConditions = nil })
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(cs.Behave)) {
		b := maps.Clone(cs.Behave)
		delete(b, id)
		out = append(out, Case{Mutating: cs.Mutating, Validating: cs.Validating, Request: cs.Request, Behave: b, CRDs: cs.CRDs})
	}
	return out
}

// Finding is a case the prediction and the API server disagree on, as an
// admission scenario whose expectation is what the API server did (the
// calls recorded: a hook down is left out), so that gepcheck check FILE
// shows the engine's disagreement and the admission check replays it.
func Finding(name, source string, cs Case, r Result) *scenario.Scenario {
	at := slices.Index(r.Observed, "|")
	chain := admission.Chain(cs.Mutating, cs.Validating)
	behave := map[string]admission.Behaviour{}
	for _, h := range chain {
		if b := admission.BehaviourOf(cs.Behave, h.ID()); b != admission.Allow {
			behave[h.ID()] = b
		}
	}
	return &scenario.Scenario{
		Name:     name,
		Citation: "kube-apiserver, observed by gepcheck's admission check (" + source + ")",
		Description: fmt.Sprintf("gepcheck predicted mutating %s, validating %s, allowed %v; the API server called (as recorded) mutating %s, validating %s, allowed %v%s",
			words(r.Predicted[:slices.Index(r.Predicted, "|")]), words(r.Predicted[slices.Index(r.Predicted, "|")+1:]), r.PredictedAllowed,
			words(r.Observed[:at]), words(r.Observed[at+1:]), r.Allowed, errorNote(r.Error)),
		Mutating: cs.Mutating, Validating: cs.Validating, CRDs: cs.CRDs,
		Cases: []scenario.Case{{Name: "disagreement", Request: cs.Request, Behave: behave,
			Expect: scenario.Expectation{Mutating: slices.Clone(r.Observed[:at]), Validating: slices.Clone(r.Observed[at+1:]), Allowed: r.Allowed, Recorded: true}}},
	}
}

func words(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, " ")
}

func errorNote(err string) string {
	if err == "" {
		return ""
	}
	return " (" + err + ")"
}
