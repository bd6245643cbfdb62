package simulator

import (
	"context"
	"fmt"
	"slices"

	"github.com/gepcheck/gepcheck/simulator/crd"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/profile"
)

// CRDGroup and CRDKind name a CustomResourceDefinition document.
const (
	CRDGroup = "apiextensions.k8s.io"
	CRDKind  = "CustomResourceDefinition"
)

// inputCRD compiles a CustomResourceDefinition document of the input: the
// policies of its kind are stored with it, before a cluster's and a
// built-in one (docs/profiles.md, What is stored).
func (b *builder) inputCRD(d *load.Doc) {
	schemas, err := crd.FromUnstructured(d.Raw, d.Source.String())
	if err != nil {
		b.fail(d, "spec", "%v", err)
		return
	}
	if b.crds == nil {
		b.crds = &crd.Set{}
	}
	b.crds.Add(schemas...)
}

// schemaFor returns the schema a policy document is stored with: its
// kind's CRD from the input, else from Options.CRDs (a cluster), else the
// built-in one; nil when none is known. A CRD of the kind that does not
// serve the document's version is an error, as the API server's.
func (b *builder) schemaFor(d *load.Doc, opts *crd.Set) (*crd.Schema, bool) {
	h, err := crd.Builtin(d.Group, d.Kind)
	var builtins *crd.Set
	if err == nil && h != nil {
		builtins, err = h.Set()
	}
	if err != nil {
		b.fail(nil, "", "built-in CRDs: %v", err)
		return nil, false
	}
	for _, set := range []*crd.Set{b.crds, opts, builtins} {
		if s := set.Lookup(d.Group, d.Version, d.Kind); s != nil {
			return s, true
		}
		if s := set.Preferred(d.Group, d.Kind); s != nil {
			b.fail(d, "apiVersion", "the CustomResourceDefinition %s (%s) does not serve version %s of %s", s.CRD, s.Source, d.Version, d.Kind)
			return nil, false
		}
	}
	return nil, true
}

// storePolicy stores a policy document with its kind's CRD as the API
// server does on create (simulator/crd): values the schema or a CEL rule
// refuses are errors with the CRD's message, each unknown field pruned is
// a warning naming its line. It returns the spec as written (unknown
// fields pruned), as stored, and what storing changed.
func (b *builder) storePolicy(d *load.Doc, s *crd.Schema) (written, stored map[string]any, changes *profile.StoredChanges, ok bool) {
	obj := map[string]any{}
	for k, v := range d.Raw {
		obj[k] = v
	}
	// The namespace as the API server sets it from the request.
	if meta, isMap := obj["metadata"].(map[string]any); isMap && d.Namespace != "" {
		m := map[string]any{}
		for k, v := range meta {
			m[k] = v
		}
		m["namespace"] = d.Namespace
		obj["metadata"] = m
	}
	res := s.Store(context.Background(), obj)
	if len(res.Errors) > 0 {
		for _, e := range res.Errors {
			b.fail(d, crd.FieldPath(e), "%s (the CustomResourceDefinition %s refuses it, as the API server does on create; %s)", crd.Message(e), s.CRD, s.Source)
		}
		return nil, nil, nil, false
	}
	switch b.m.FieldValidation {
	case crd.FieldValidationStrict:
		// fieldValidation=Strict: "the request fails with a BadRequest
		// error" on an unknown field (Kubernetes API concepts, Field
		// validation), as `kubectl apply --validate=strict` does.
		for _, f := range res.Unknown {
			b.fail(d, f, "unknown field (the CustomResourceDefinition %s does not know it; with field validation strict the API server refuses the request, as kubectl apply --validate=strict does: Kubernetes, Field validation; %s)", s.CRD, s.Source)
		}
		if len(res.Unknown) > 0 {
			return nil, nil, nil, false
		}
	case crd.FieldValidationIgnore:
		// fieldValidation=Ignore: pruned, without a warning.
	default:
		for _, f := range res.Unknown {
			b.crdWarnings = append(b.crdWarnings, fmt.Sprintf("%s: %s: field %s (%s) pruned: unknown to the CustomResourceDefinition %s, the API server drops it on create and the policy is read without it (Kubernetes, Field pruning; %s)", d.Source.File, d.Object(), f, lineInDoc(d, f), s.CRD, s.Source))
		}
	}
	written, stored, changes = profile.StoredFromCRD(res)
	return written, stored, changes, true
}

// sortedCRDWarnings returns the warnings of storePolicy, sorted.
func (b *builder) sortedCRDWarnings() []string {
	slices.Sort(b.crdWarnings)
	return b.crdWarnings
}

// lineInDoc names the line of field within its object's document ("line 6
// of the document"): unlike the line in the file and the document's
// number, it does not change with the order of the documents, so that the
// output does not either (cmd/gepcheck TestOutputDeterministic).
func lineInDoc(d *load.Doc, field string) string {
	at := d.At(field)
	if at.Line < d.Source.Line || d.Source.Line == 0 {
		return "its document"
	}
	return fmt.Sprintf("line %d of the document", at.Line-d.Source.Line+1)
}
