// Package scenario reads and writes admission scenarios: an
// AdmissionScenario document (scenarios/README.md, Admission scenarios)
// beside webhook configurations and CRDs, each case a request, how the
// hooks answer and the outcome a source states, checked against the
// prediction of package admission (docs/admission.md, Scenarios).
package scenario

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/admission"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// maxScenarioCases bounds the cases of one scenario document.
const maxScenarioCases = 256

// scenarioDoc is the AdmissionScenario document as written.
type scenarioDoc struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		// Citation says where the expected outcomes come from: required.
		Citation    string            `json:"citation"`
		Description string            `json:"description,omitempty"`
		Cases       []scenarioDocCase `json:"cases"`
	} `json:"spec"`
}

// scenarioDocCase is one case of an AdmissionScenario document as written.
type scenarioDocCase struct {
	Name string `json:"name"`
	// Request is one line, as gepcheck admission simulate --request
	// reads it (admission.ParseRequest).
	Request string `json:"request"`
	// Behave says how named hooks (Hook.ID or name) answer: allow,
	// patch, deny, down, slow, error.
	Behave map[string]admission.Behaviour `json:"behave,omitempty"`
	Expect Expectation                    `json:"expect"`
}

// Expectation is the outcome a scenario case states.
type Expectation struct {
	// Exempt: no webhook is considered at all.
	Exempt bool `json:"exempt,omitempty"`
	// Mutating are the mutating hooks called, in order (a hook
	// reinvoked twice); Validating the validating hooks called, in any
	// order (they are called at once). Hooks are named by Hook.ID.
	Mutating   []string `json:"mutating"`
	Validating []string `json:"validating"`
	Allowed    bool     `json:"allowed"`
	// FailureContains, when set, is part of the message the request is
	// refused with.
	FailureContains string `json:"failureContains,omitempty"`
	// Recorded says the lists are the calls a recording webhook server
	// saw (a finding of gepcheck's admission check): a hook that is down
	// cannot record its call and is left out.
	Recorded bool `json:"recorded,omitempty"`
}

// Scenario is an admission scenario read: its configurations, its CRDs
// and the resources they make with the API server's, and its cases.
type Scenario struct {
	Name, Citation, Description string
	Mutating                    []admissionv1.MutatingWebhookConfiguration
	Validating                  []admissionv1.ValidatingWebhookConfiguration
	CRDs                        []apiextensionsv1.CustomResourceDefinition
	Resources                   *admission.Snapshot
	Cases                       []Case
}

// Case is one request of a scenario, with the hooks' behaviours
// keyed by Hook.ID.
type Case struct {
	Name    string
	Request admission.Request
	Behave  map[string]admission.Behaviour
	Expect  Expectation
}

// Read reads an admission scenario: one AdmissionScenario document,
// webhook configurations (admission.Configurations) and CustomResourceDefinitions
// (admission.CRDs), served beside the resources of base. It returns nil and no
// error when docs hold no AdmissionScenario. Every problem is a
// *load.Error naming file, document, line and field.
func Read(docs []*load.Doc, base *admission.Snapshot) (*Scenario, error) {
	var sd *load.Doc
	for _, d := range docs {
		if !admission.IsScenario(d) {
			continue
		}
		if sd != nil {
			return nil, &load.Error{Source: d.Source, Object: d.Object(), Msg: fmt.Sprintf("a second %s (the first is %s)", admission.ScenarioKind, sd.Source)}
		}
		sd = d
	}
	if sd == nil {
		return nil, nil
	}
	mutating, validating, err := admission.Configurations(docs)
	if err != nil {
		return nil, err
	}
	crds, err := admission.CRDs(docs)
	if err != nil {
		return nil, err
	}
	res := base.WithCRDs(crds)
	var doc scenarioDoc
	if err := load.DecodeStrict(sd, &doc); err != nil {
		return nil, err
	}
	fail := func(field, format string, a ...any) error {
		return &load.Error{Source: sd.At(field), Object: sd.Object(), Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	switch {
	case doc.Metadata.Name == "":
		return nil, fail("metadata.name", "required")
	case doc.Spec.Citation == "":
		return nil, fail("spec.citation", "required: where the expected outcomes come from")
	case len(doc.Spec.Cases) == 0:
		return nil, fail("spec.cases", "required: at least one")
	case len(doc.Spec.Cases) > maxScenarioCases:
		return nil, fail("spec.cases", "%d cases: at most %d", len(doc.Spec.Cases), maxScenarioCases)
	}
	s := &Scenario{Name: doc.Metadata.Name, Citation: doc.Spec.Citation, Description: doc.Spec.Description, Mutating: mutating, Validating: validating, CRDs: crds, Resources: res}
	chain := admission.Chain(mutating, validating)
	all := admission.IDs(chain)
	names := map[string]bool{}
	for i, c := range doc.Spec.Cases {
		at := fmt.Sprintf("spec.cases[%d]", i)
		if c.Name == "" || names[c.Name] {
			return nil, fail(at+".name", "required, and unique in the scenario")
		}
		names[c.Name] = true
		req, err := admission.ParseRequest(c.Request, res)
		if err != nil {
			return nil, fail(at+".request", "%v", err)
		}
		behave, key, err := admission.ResolveBehaviours(chain, c.Behave)
		if err != nil {
			return nil, fail(at+".behave."+key, "%v", err)
		}
		sc := Case{Name: c.Name, Request: req, Behave: behave, Expect: c.Expect}
		for _, e := range []struct {
			field string
			ids   []string
		}{{"mutating", c.Expect.Mutating}, {"validating", c.Expect.Validating}} {
			for j, id := range e.ids {
				if !slices.Contains(all, id) {
					return nil, fail(fmt.Sprintf("%s.expect.%s[%d]", at, e.field, j), "hook %q is not in the chain: name hooks by configuration/name/n (%s)", id, strings.Join(all, ", "))
				}
			}
		}
		s.Cases = append(s.Cases, sc)
	}
	return s, nil
}

// Check lists how p, the prediction of the case, differs from what the
// case expects; empty when it does not.
func (c Case) Check(p admission.Prediction) []string {
	var diffs []string
	o, e := p.Outcome, c.Expect
	if e.Recorded {
		o = o.Recorded(c.Behave)
	}
	if (p.Exempt != "") != e.Exempt {
		diffs = append(diffs, fmt.Sprintf("exempt: expected %v, predicted %v (%s)", e.Exempt, p.Exempt != "", p.Exempt))
	}
	if !slices.Equal(o.Mutating, nonNil(e.Mutating)) {
		diffs = append(diffs, fmt.Sprintf("mutating hooks called: expected %s, predicted %s", list(e.Mutating), list(o.Mutating)))
	}
	if want := slices.Sorted(slices.Values(e.Validating)); !slices.Equal(o.Validating, nonNil(want)) {
		diffs = append(diffs, fmt.Sprintf("validating hooks called: expected %s, predicted %s", list(want), list(o.Validating)))
	}
	if o.Allowed != e.Allowed {
		diffs = append(diffs, fmt.Sprintf("allowed: expected %v, predicted %v", e.Allowed, o.Allowed))
	}
	if e.FailureContains != "" && !slices.ContainsFunc(o.Failures, func(f admission.Failure) bool { return strings.Contains(f.Message, e.FailureContains) }) {
		diffs = append(diffs, fmt.Sprintf("no failure message contains %q (predicted %v)", e.FailureContains, o.Failures))
	}
	return diffs
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// Marshal writes s as a scenario file: the AdmissionScenario document
// (header, a comment, leads it), then the configurations, in s's order
// (which the API server's does not depend on, but a broken engine may).
func (s *Scenario) Marshal(header string) ([]byte, error) {
	var doc scenarioDoc
	doc.APIVersion, doc.Kind, doc.Metadata.Name = admission.ScenarioAPIVersion, admission.ScenarioKind, s.Name
	doc.Spec.Citation, doc.Spec.Description = s.Citation, s.Description
	for _, c := range s.Cases {
		behave := map[string]admission.Behaviour{}
		for id, b := range c.Behave {
			if b != admission.Allow && b != "" {
				behave[id] = b
			}
		}
		doc.Spec.Cases = append(doc.Spec.Cases, scenarioDocCase{c.Name, admission.Describe(c.Request), behave, c.Expect})
	}
	var buf bytes.Buffer
	for _, line := range strings.Split(strings.TrimSpace(header), "\n") {
		if line != "" {
			fmt.Fprintf(&buf, "# %s\n", line)
		}
	}
	docs := []any{&doc}
	for _, c := range s.Mutating {
		c.APIVersion, c.Kind = admission.Group+"/v1", "MutatingWebhookConfiguration"
		docs = append(docs, &c)
	}
	for _, c := range s.Validating {
		c.APIVersion, c.Kind = admission.Group+"/v1", "ValidatingWebhookConfiguration"
		docs = append(docs, &c)
	}
	for _, c := range s.CRDs {
		c.APIVersion, c.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
		docs = append(docs, &c)
	}
	for i, d := range docs {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
		if err != nil {
			return nil, err
		}
		unstructured.RemoveNestedField(u, "metadata", "creationTimestamp")
		b, err := yaml.Marshal(u)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			buf.WriteString("---\n")
		}
		buf.Write(b)
	}
	return buf.Bytes(), nil
}

// list is l as Check's messages write it: "none" when empty.
func list(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}
