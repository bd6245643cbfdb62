package admission

import (
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gepcheck/gepcheck/simulator/load"
)

// Group is the API group of webhook configurations.
const Group = "admissionregistration.k8s.io"

// Configurations reads the webhook configurations of docs
// (admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and
// ValidatingWebhookConfiguration), decoded strictly and validated as the
// API server would validate them on creation (validateWebhook). Every
// problem is a *load.Error naming the file, document, line and field; any
// other kind of document is one.
func Configurations(docs []*load.Doc) ([]admissionv1.MutatingWebhookConfiguration, []admissionv1.ValidatingWebhookConfiguration, error) {
	var errs load.Errors
	var mutating []admissionv1.MutatingWebhookConfiguration
	var validating []admissionv1.ValidatingWebhookConfiguration
	report := func(d *load.Doc, fes field.ErrorList) {
		for _, fe := range fes {
			f := fe.Field
			errs.Add(&load.Error{Source: d.At(f), Object: d.Object(), Field: f, Msg: fe.ErrorBody()})
		}
	}
	for _, d := range docs {
		switch {
		case d.Group == Group && d.Version == "v1" && d.Kind == "MutatingWebhookConfiguration":
			var c admissionv1.MutatingWebhookConfiguration
			if err := load.DecodeStrict(d, &c); err != nil {
				errs.Add(err.(*load.Error))
				continue
			}
			report(d, validateConfiguration(c.ObjectMeta, c.Webhooks, func(w admissionv1.MutatingWebhook) admissionv1.MutatingWebhook { return w }, true))
			mutating = append(mutating, c)
		case d.Group == Group && d.Version == "v1" && d.Kind == "ValidatingWebhookConfiguration":
			var c admissionv1.ValidatingWebhookConfiguration
			if err := load.DecodeStrict(d, &c); err != nil {
				errs.Add(err.(*load.Error))
				continue
			}
			report(d, validateConfiguration(c.ObjectMeta, c.Webhooks, MutatingForm, false))
			validating = append(validating, c)
		case IsScenario(d):
			// An admission scenario's expectations (ReadScenario).
		default:
			errs.Add(&load.Error{Source: d.Source, Object: d.Object(), Msg: "not a webhook configuration: want " + Group + "/v1 MutatingWebhookConfiguration or ValidatingWebhookConfiguration"})
		}
	}
	return mutating, validating, errs.Err()
}

// validateConfiguration validates a configuration of either kind, its
// webhooks given in the mutating form: a name (configurations are called
// in the order of their names), every webhook (validateWebhook), webhook
// names unique in the configuration.
func validateConfiguration[W any](meta metav1.ObjectMeta, ws []W, form func(W) admissionv1.MutatingWebhook, mutating bool) field.ErrorList {
	var fes field.ErrorList
	if meta.Name == "" {
		fes = append(fes, field.Required(field.NewPath("metadata", "name"), "a configuration needs a name: configurations are called in the order of their names"))
	}
	seen := map[string]bool{}
	for i, w := range ws {
		fes = append(fes, validateWebhook(form(w), mutating, field.NewPath("webhooks").Index(i))...)
	}
	for i, w := range ws {
		n := form(w).Name
		if n != "" && seen[n] {
			fes = append(fes, field.Duplicate(field.NewPath("webhooks").Index(i).Child("name"), n))
		}
		seen[n] = true
	}
	return fes
}

// MutatingForm is a validating webhook in the form of a mutating one: it
// has every field of one but reinvocationPolicy. ValidatingForm is the
// inverse.
func MutatingForm(w admissionv1.ValidatingWebhook) admissionv1.MutatingWebhook {
	return admissionv1.MutatingWebhook{Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules, FailurePolicy: w.FailurePolicy,
		MatchPolicy: w.MatchPolicy, NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector, SideEffects: w.SideEffects,
		TimeoutSeconds: w.TimeoutSeconds, AdmissionReviewVersions: w.AdmissionReviewVersions, MatchConditions: w.MatchConditions}
}

// ValidatingForm is the validating webhook with the fields of w (all but
// reinvocationPolicy).
func ValidatingForm(w admissionv1.MutatingWebhook) admissionv1.ValidatingWebhook {
	return admissionv1.ValidatingWebhook{Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules, FailurePolicy: w.FailurePolicy,
		MatchPolicy: w.MatchPolicy, NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector, SideEffects: w.SideEffects,
		TimeoutSeconds: w.TimeoutSeconds, AdmissionReviewVersions: w.AdmissionReviewVersions, MatchConditions: w.MatchConditions}
}
