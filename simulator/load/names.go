package load

import "github.com/gepcheck/gepcheck/simulator/ref"

// checkNames reports a metadata.name or metadata.namespace that the API
// server would refuse (ref.NameErrors): such a name could never be in a
// cluster, and gepcheck's refs and paths could not name it.
func checkNames(d *Doc, report func(field, msg string)) {
	if d.Name != "" {
		if p := ref.NameErrors(d.Group, d.Kind, d.Name); p != nil {
			report("metadata.name", ref.Invalid(d.Name, p))
		}
	}
	if d.Namespace != "" {
		if p := ref.NamespaceErrors(d.Namespace); p != nil {
			report("metadata.namespace", ref.Invalid(d.Namespace, p))
		}
	}
}
