package admission

import (
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gepcheck/gepcheck/simulator/load"
)

// Group is the API group of webhook configurations.
const Group = "admissionregistration.k8s.io"

// ScenarioKind is the kind of the document that makes a file of webhook
// configurations an admission scenario (apiVersion ScenarioAPIVersion;
// scenarios/admission/README.md, read by admission/scenario): requests,
// how the hooks answer, and the outcome a source states. Configurations
// passes over it.
const ScenarioKind = "AdmissionScenario"

// ScenarioAPIVersion is the apiVersion of an AdmissionScenario.
const ScenarioAPIVersion = "gepcheck.dev/v1alpha1"

// IsScenario says whether d is an AdmissionScenario document.
func IsScenario(d *load.Doc) bool {
	return d.APIVersion == ScenarioAPIVersion && d.Kind == ScenarioKind
}

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
	// The API server keeps one object of a kind per name: two of one
	// name are two versions of one configuration, whose hooks would have
	// the same IDs.
	first := map[[2]string]*load.Doc{}
	unique := func(d *load.Doc, name string) bool {
		k := [2]string{d.Kind, name}
		if f, ok := first[k]; ok && name != "" {
			errs.Add(&load.Error{Source: d.At("metadata.name"), Object: d.Object(), Field: "metadata.name",
				Msg: fmt.Sprintf("a second %s named %q (the first: %s): the API server keeps one object of a name; give each configuration once", d.Kind, name, f.Source)})
			return false
		}
		first[k] = d
		return true
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
			if unique(d, c.Name) {
				mutating = append(mutating, c)
			}
		case d.Group == Group && d.Version == "v1" && d.Kind == "ValidatingWebhookConfiguration":
			var c admissionv1.ValidatingWebhookConfiguration
			if err := load.DecodeStrict(d, &c); err != nil {
				errs.Add(err.(*load.Error))
				continue
			}
			report(d, validateConfiguration(c.ObjectMeta, c.Webhooks, MutatingForm, false))
			if unique(d, c.Name) {
				validating = append(validating, c)
			}
		case IsScenario(d), isCRD(d):
			// An admission scenario's expectations (scenario.Read); the
			// resources of a CRD (CRDs).
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

func isCRD(d *load.Doc) bool {
	return d.Group == "apiextensions.k8s.io" && d.Version == "v1" && d.Kind == "CustomResourceDefinition"
}

// CRDs reads the CustomResourceDefinitions of docs (apiextensions.k8s.io/v1),
// whose resources a request may be made on and a rule may name
// (Snapshot.WithCRDs): decoded strictly, with the fields that make their
// resources checked (group, names.plural, names.kind, scope, versions).
func CRDs(docs []*load.Doc) ([]apiextensionsv1.CustomResourceDefinition, error) {
	var errs load.Errors
	var out []apiextensionsv1.CustomResourceDefinition
	for _, d := range docs {
		if !isCRD(d) {
			continue
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := load.DecodeStrict(d, &crd); err != nil {
			errs.Add(err.(*load.Error))
			continue
		}
		bad := func(field, msg string) {
			errs.Add(&load.Error{Source: d.At(field), Object: d.Object(), Field: field, Msg: msg})
		}
		// As apiextensions validation (ValidateCustomResourceDefinition
		// and its Names) requires: a group with a dot, names that are
		// DNS-1035 labels (the kinds once lowercased), and the CRD named
		// plural.group.
		n := crd.Spec.Names
		for _, f := range []struct {
			field, value string
			required     bool
		}{{"spec.names.plural", n.Plural, true}, {"spec.names.singular", n.Singular, false}, {"spec.names.kind", n.Kind, true}, {"spec.names.listKind", n.ListKind, false}} {
			switch {
			case f.value == "" && f.required:
				bad(f.field, "required")
			case f.value == "":
			default:
				if msgs := validation.IsDNS1035Label(strings.ToLower(f.value)); len(msgs) > 0 {
					bad(f.field, fmt.Sprintf("%q: %s", f.value, msgs[0]))
				}
			}
		}
		switch g := crd.Spec.Group; {
		case g == "":
			bad("spec.group", "required")
		case len(validation.IsDNS1123Subdomain(g)) > 0:
			bad("spec.group", fmt.Sprintf("%q: %s", g, validation.IsDNS1123Subdomain(g)[0]))
		case !strings.Contains(g, "."):
			bad("spec.group", fmt.Sprintf("%q: should be a domain with at least one dot", g))
		}
		if want := n.Plural + "." + crd.Spec.Group; n.Plural != "" && crd.Spec.Group != "" && crd.Name != want {
			bad("metadata.name", fmt.Sprintf("must be spec.names.plural+\".\"+spec.group: %q", want))
		}
		if crd.Spec.Scope != apiextensionsv1.NamespaceScoped && crd.Spec.Scope != apiextensionsv1.ClusterScoped {
			errs.Add(&load.Error{Source: d.At("spec.scope"), Object: d.Object(), Field: "spec.scope", Msg: "want Namespaced or Cluster"})
		}
		if len(crd.Spec.Versions) == 0 {
			errs.Add(&load.Error{Source: d.At("spec.versions"), Object: d.Object(), Field: "spec.versions", Msg: "required"})
		}
		out = append(out, crd)
	}
	return out, errs.Err()
}
