package generators

import (
	"context"
	"fmt"

	"github.com/gepcheck/gepcheck/simulator/crd"
)

// CRDRefusals stores every policy of s whose kind has a built-in
// CustomResourceDefinition (crd.Builtin: Gateway API's own, and those of
// the implementations linked in) as the API server does on create with
// fieldValidation Strict (`kubectl apply --validate=strict`), and returns
// what it refuses, one line per field: a value the schema or a CEL rule
// refuses, an unknown field (which fieldValidation Warn would prune
// instead), a version the CRD does not serve. A policy of a kind without
// a built-in CRD is not checked. The property
// generators/crd-accepts-drawn-policies (TestCRDAcceptsDrawnPolicies)
// wants none for every drawn scenario.
func (s *Scenario) CRDRefusals() ([]string, error) {
	var out []string
	for _, p := range s.Policies {
		h, err := crd.Builtin(p.Group, p.Kind)
		if err != nil {
			return nil, err
		}
		if h == nil {
			continue
		}
		set, err := h.Set()
		if err != nil {
			return nil, err
		}
		o := p.Object()
		version := policyAPIVersion(p.Group, p.Kind)
		if i := len(p.Group) + 1; len(version) > i {
			version = version[i:]
		}
		schema := set.Lookup(p.Group, version, p.Kind)
		name := fmt.Sprintf("%s %s/%s", p.Kind, namespaceOr(p.Namespace), p.Name)
		if schema == nil {
			out = append(out, fmt.Sprintf("%s: apiVersion %s/%s: not served by its CRD", name, p.Group, version))
			continue
		}
		if p.Namespace == "" {
			o["metadata"].(map[string]any)["namespace"] = namespaceOr("")
		}
		r := schema.Store(context.Background(), o)
		for _, f := range r.Unknown {
			out = append(out, fmt.Sprintf("%s: field %s: unknown to %s (%s)", name, f, schema.CRD, schema.Source))
		}
		for _, e := range r.Errors {
			out = append(out, fmt.Sprintf("%s: field %s: %s (%s)", name, crd.FieldPath(e), crd.Message(e), schema.CRD))
		}
	}
	return out, nil
}
