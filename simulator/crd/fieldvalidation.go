package crd

import "fmt"

// FieldValidation is what is done with a field the schema does not know,
// as the API server's fieldValidation parameter and kubectl's
// --validate say (Kubernetes API concepts, Field validation): the
// request's unknown fields are pruned with a warning (Warn, the API
// server's default), pruned silently (Ignore), or refuse the request
// (Strict, kubectl apply's default --validate=strict).
type FieldValidation string

// The fieldValidation settings, named as kubectl's --validate names them.
const (
	FieldValidationWarn   FieldValidation = "warn"
	FieldValidationStrict FieldValidation = "strict"
	FieldValidationIgnore FieldValidation = "ignore"
)

// ParseFieldValidation reads a setting: strict, warn or ignore ("" is
// warn, the API server's default).
func ParseFieldValidation(s string) (FieldValidation, error) {
	switch v := FieldValidation(s); v {
	case "":
		return FieldValidationWarn, nil
	case FieldValidationWarn, FieldValidationStrict, FieldValidationIgnore:
		return v, nil
	}
	return "", fmt.Errorf("field validation %q: one of strict, warn, ignore (the API server's fieldValidation, kubectl's --validate)", s)
}
