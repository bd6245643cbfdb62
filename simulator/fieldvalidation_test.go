package simulator

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/crd"
)

// TestFieldValidation: what storing does with a field the policy's CRD
// does not know, under each setting of the API server's fieldValidation
// (Kubernetes API concepts, Field validation; docs/profiles.md, What is
// stored): warn prunes it with a warning naming field and line, ignore
// prunes it silently and the output names the setting, strict is bad
// input naming file, document, line and field, as kubectl apply
// --validate=strict refuses it.
func TestFieldValidation(t *testing.T) {
	docs := joinDocs(widgetCRD(t), widgetProfile, widgetTopology, widgetPolicy("  timeout: {requestTimout: 2s}\n  retry: {}\n"))
	pruned := func(out *Output) bool {
		for _, w := range out.Warnings {
			if strings.Contains(w, "field spec.timeout.requestTimout (line 6 of the document) pruned") {
				return true
			}
		}
		return false
	}
	for _, fv := range []crd.FieldValidation{"", crd.FieldValidationWarn, crd.FieldValidationIgnore} {
		out := simulate(t, docs, Options{FieldValidation: fv})
		spec := asJSON(t, out.EffectivePolicies[0].Spec)
		if strings.Contains(spec, "requestTimout") || !strings.Contains(spec, `"numRetries":2`) {
			t.Errorf("%q: effective spec %s, want the typo pruned and the default set", fv, spec)
		}
		warned := pruned(out)
		if want := fv != crd.FieldValidationIgnore; warned != want {
			t.Errorf("%q: warned %v, want %v: %q", fv, warned, want, out.Warnings)
		}
		// The reading names the setting where it is not the default.
		if want := map[crd.FieldValidation]crd.FieldValidation{crd.FieldValidationIgnore: crd.FieldValidationIgnore}[fv]; out.Reading().FieldValidation != want {
			t.Errorf("%q: reading's field validation %q, want %q", fv, out.Reading().FieldValidation, want)
		}
	}
	_, err := LoadFiles([]string{"-"}, strings.NewReader(docs), Options{FieldValidation: crd.FieldValidationStrict})
	if err == nil {
		t.Fatal("strict: no error for an unknown field")
	}
	msg := err.Error()
	// The typo's own line: the second to last of the input.
	line := strings.Count(docs, "\n") - 1
	for _, want := range []string{fmt.Sprintf("<stdin>: document 6 (line %d)", line), "WidgetPolicy default/p", "field spec.timeout.requestTimout", "unknown field", "widgetpolicies.example.com", "kubectl apply --validate=strict"} {
		if !strings.Contains(msg, want) {
			t.Errorf("strict: error %q lacks %q", msg, want)
		}
	}
	// Strict refuses only what is unknown: a policy the CRD knows every
	// field of is stored, its defaults set, as under warn.
	known := joinDocs(widgetCRD(t), widgetProfile, widgetTopology, widgetPolicy("  timeout: {requestTimeout: 2s}\n  retry: {}\n"))
	out := simulate(t, known, Options{FieldValidation: crd.FieldValidationStrict})
	if spec := asJSON(t, out.EffectivePolicies[0].Spec); !strings.Contains(spec, `"numRetries":2`) || !strings.Contains(spec, `"requestTimeout":"2s"`) {
		t.Errorf("strict, known fields: effective spec %s", spec)
	}
	if out.Reading().FieldValidation != crd.FieldValidationStrict {
		t.Errorf("strict: reading's field validation %q", out.Reading().FieldValidation)
	}
	if _, err := LoadFiles([]string{"-"}, strings.NewReader(known), Options{FieldValidation: "loose"}); err == nil || !strings.Contains(err.Error(), "one of strict, warn, ignore") {
		t.Errorf("field validation loose: %v", err)
	}
}
