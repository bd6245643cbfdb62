// Package crd stores a custom resource as kube-apiserver does on create,
// with apiextensions-apiserver's own structural-schema code (Kubernetes,
// "Specifying a structural schema", "Field pruning", "Defaulting"): unknown
// fields pruned, non-nullable nulls pruned, defaults applied; then the
// OpenAPI schema validation and the CRD's x-kubernetes-validations CEL
// rules, within the API server's cost limits (docs/profiles.md, What is
// stored; docs/limits.md).
package crd

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/simulator/load"
)

// The API server's CEL limits for a custom resource (k8s.io/apiserver,
// pkg/apis/cel/config.go): each rule evaluation within PerCallLimit, all
// the rules of one object within RuntimeCELCostBudget.
const (
	PerCallLimit = celconfig.PerCallLimit
	CostBudget   = celconfig.RuntimeCELCostBudget
)

// Schema is one served version of a CustomResourceDefinition, compiled as
// kube-apiserver compiles it to serve the version.
type Schema struct {
	Group, Version, Kind string
	// CRD names the definition (metadata.name) and Source where it came
	// from (a file's document, a cluster, builtin:…).
	CRD, Source string
	// Storage: this is the CRD's storage version.
	Storage bool

	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	cel        *cel.Validator
	preserve   bool // spec.preserveUnknownFields
	// mutant, set only by tests, leaves a step out (Mutant).
	mutant Mutant
}

// Mutant names a step of storing left out, so that tests show the checks
// against a real API server catch it (docs/properties.md, Mutants).
type Mutant int

// Mutants of storing.
const (
	MutantNone Mutant = iota
	// MutantSkipPruning keeps unknown fields.
	MutantSkipPruning
	// MutantSkipDefaulting applies no default.
	MutantSkipDefaulting
)

// WithMutant returns a copy of s that leaves a step out (tests only).
func (s *Schema) WithMutant(m Mutant) *Schema {
	c := *s
	c.mutant = m
	return &c
}

// Parse reads a CustomResourceDefinition document (YAML or JSON) and
// compiles every served version.
func Parse(data []byte, source string) ([]*Schema, error) {
	var c apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return Compile(&c, source)
}

// FromUnstructured converts a decoded CustomResourceDefinition object
// (e.g. a document's Raw, or one read from a cluster) and compiles it.
func FromUnstructured(obj map[string]any, source string) ([]*Schema, error) {
	var c apiextensionsv1.CustomResourceDefinition
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(obj, &c, true); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return Compile(&c, source)
}

// Compile compiles every served version of c: its structural schema
// (defaults pruned as the API server prunes them), the OpenAPI validator
// and the CEL validator of its x-kubernetes-validations rules.
func Compile(c *apiextensionsv1.CustomResourceDefinition, source string) ([]*Schema, error) {
	if c.Spec.Group == "" || c.Spec.Names.Kind == "" {
		return nil, fmt.Errorf("%s: CustomResourceDefinition %s: spec.group and spec.names.kind are required", source, c.Name)
	}
	var out []*Schema
	for i, v := range c.Spec.Versions {
		if !v.Served {
			continue
		}
		where := fmt.Sprintf("%s: CustomResourceDefinition %s: spec.versions[%d] (%s)", source, c.Name, i, v.Name)
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			return nil, fmt.Errorf("%s: no schema.openAPIV3Schema (a structural schema is required, Kubernetes, Specifying a structural schema)", where)
		}
		var internal apiextensions.CustomResourceValidation
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, &internal, nil); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		ss, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
		if err != nil {
			return nil, fmt.Errorf("%s: not a structural schema: %w", where, err)
		}
		if errs := structuralschema.ValidateStructural(nil, ss); len(errs) > 0 {
			return nil, fmt.Errorf("%s: not a structural schema: %v", where, errs.ToAggregate())
		}
		ss = ss.DeepCopy()
		if err := structuraldefaulting.PruneDefaults(ss); err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		val, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		out = append(out, &Schema{
			Group: c.Spec.Group, Version: v.Name, Kind: c.Spec.Names.Kind,
			CRD: c.Name, Source: source, Storage: v.Storage,
			structural: ss, validator: val,
			cel:      cel.NewValidator(ss, true, PerCallLimit),
			preserve: c.Spec.PreserveUnknownFields,
		})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: CustomResourceDefinition %s serves no version", source, c.Name)
	}
	return out, nil
}

// Result is what storing an object did.
type Result struct {
	// Object is the object as stored: numbers as float64, as gepcheck
	// reads YAML.
	Object map[string]any
	// Known is the object with only its unknown fields pruned: as its
	// author wrote it, in the fields the schema knows.
	Known map[string]any
	// Unknown are the fields pruned because the schema does not know
	// them, as the API server names them (e.g.
	// spec.timeout.http.requestTimout), sorted.
	Unknown []string
	// Defaulted are the fields a default set, as keys from the object's
	// root, sorted; a default of an object counts once, for the object.
	// Fields inside lists are not recorded.
	Defaulted [][]string
	// PrunedNulls are the object fields whose non-nullable null was
	// pruned (no list holds them), sorted.
	PrunedNulls [][]string
	// Errors are what validation refuses, the CRD's messages; the object
	// is not stored when there is any.
	Errors field.ErrorList
}

// Store stores obj (apiVersion, kind, metadata, spec; status is left out
// as a create resets it) as kube-apiserver does on create with
// fieldValidation Warn, its default: obj is not changed.
func (s *Schema) Store(ctx context.Context, obj map[string]any) Result {
	u := load.ToAPI(obj).(map[string]any)
	delete(u, "status")
	var r Result
	if !s.preserve && s.mutant != MutantSkipPruning {
		r.Unknown = structuralpruning.PruneWithOptions(u, s.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
		r.Known = load.FromAPI(u).(map[string]any)
		before := runtime.DeepCopyJSON(u)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u, s.structural)
		gone(before, u, nil, &r.PrunedNulls)
	}
	if r.Known == nil {
		r.Known = load.FromAPI(u).(map[string]any)
	}
	if s.mutant != MutantSkipDefaulting {
		before := runtime.DeepCopyJSON(u)
		structuraldefaulting.Default(u, s.structural)
		added(before, u, nil, &r.Defaulted)
	}
	r.Errors = append(r.Errors, apiservervalidation.ValidateCustomResource(nil, u, s.validator)...)
	r.Errors = append(r.Errors, structurallisttype.ValidateListSetsAndMaps(nil, s.structural, u)...)
	if s.cel != nil {
		if blocking(r.Errors) {
			r.Errors = append(r.Errors, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
		} else {
			errs, _ := s.cel.Validate(ctx, nil, s.structural, u, nil, CostBudget)
			r.Errors = append(r.Errors, errs...)
		}
	}
	byPath := func(a, b []string) int { return slices.Compare(a, b) }
	slices.SortFunc(r.Defaulted, byPath)
	slices.SortFunc(r.PrunedNulls, byPath)
	r.Object = load.FromAPI(u).(map[string]any)
	return r
}

// blocking is the API server's hasBlockingErr: errors after which the CEL
// rules are not evaluated.
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

// added appends the fields of after that before lacks (or holds null),
// the outermost only, into out; lists are not entered.
func added(before, after any, at []string, out *[][]string) {
	b, _ := before.(map[string]any)
	a, ok := after.(map[string]any)
	if !ok {
		return
	}
	for _, k := range slices.Sorted(maps.Keys(a)) {
		path := append(slices.Clip(at), k)
		if v, had := b[k]; !had || v == nil {
			*out = append(*out, path)
			continue
		}
		added(b[k], a[k], path, out)
	}
}

// gone appends the fields whose null before held and after lacks; lists
// are not entered.
func gone(before, after any, at []string, out *[][]string) {
	b, ok := before.(map[string]any)
	if !ok {
		return
	}
	a, _ := after.(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(b)) {
		path := append(slices.Clip(at), k)
		v, has := a[k]
		if b[k] == nil && !has {
			*out = append(*out, path)
			continue
		}
		if has {
			gone(b[k], v, path, out)
		}
	}
}

// FieldPath is the dotted field of a field.Error, without a leading dot
// ("spec.timeout.http.requestTimeout", "spec.targetRefs[0].kind").
// An error of the whole object ("<nil>", the API server's note that some
// rules were not checked) has no field.
func FieldPath(e *field.Error) string {
	if e.Field == "<nil>" {
		return ""
	}
	return strings.TrimPrefix(e.Field, ".")
}

// Message words e as the API server does, without its field (FieldPath
// names it): "Invalid value: \"soon\": … should match …", or the detail
// alone for an error of the whole object.
func Message(e *field.Error) string {
	if FieldPath(e) == "" {
		return e.Detail
	}
	return e.ErrorBody()
}

// Knows reports whether the schema knows the field at path, keys from the
// object's root (the items of a list are entered without a key:
// ["spec", "targetRefs", "namespace"]): a field it does not know is
// pruned on create (Kubernetes, Field pruning). A schema that keeps
// unknown fields there (x-kubernetes-preserve-unknown-fields, additional
// properties) knows every field below.
func (s *Schema) Knows(path ...string) bool {
	if s.preserve {
		return true
	}
	at := s.structural
	for _, k := range path {
		for at != nil && at.Items != nil {
			at = at.Items
		}
		if at == nil {
			return false
		}
		if at.XPreserveUnknownFields || at.AdditionalProperties != nil {
			return true
		}
		next, ok := at.Properties[k]
		if !ok {
			return false
		}
		at = &next
	}
	return at != nil
}
