// Package ref names the objects and sections that appear in a hierarchy of
// targetable resources (GEP-713, "Hierarchy of target kinds").
//
// A Ref prints as Kind/namespace/name for namespaced objects and Kind/name for
// cluster-scoped ones, with #section appended for a named section of an object
// (a Gateway listener, a route rule, a Service port).
package ref

import (
	"fmt"
	"strings"
)

// Ref identifies an object, or a named section of one.
type Ref struct {
	Group     string
	Kind      string
	Namespace string // empty for cluster-scoped objects
	Name      string
	Section   string // empty for the whole object
}

// String renders r as Kind/namespace/name[#section].
func (r Ref) String() string {
	var b strings.Builder
	b.WriteString(r.Kind)
	b.WriteByte('/')
	if r.Namespace != "" {
		b.WriteString(r.Namespace)
		b.WriteByte('/')
	}
	b.WriteString(r.Name)
	if r.Section != "" {
		b.WriteByte('#')
		b.WriteString(r.Section)
	}
	return b.String()
}

// Object returns r without its section.
func (r Ref) Object() Ref {
	r.Section = ""
	return r
}

// NamespacedName renders {namespace}/{name}, the key of GEP-713 conflict
// resolution rule 3.
func (r Ref) NamespacedName() string {
	return r.Namespace + "/" + r.Name
}

// Parse reads Kind/namespace/name or Kind/name, each optionally followed by
// #section. The group is left empty; callers match on kind.
func Parse(s string) (Ref, error) {
	var r Ref
	body, section, _ := strings.Cut(s, "#")
	r.Section = section
	parts := strings.Split(body, "/")
	switch len(parts) {
	case 2:
		r.Kind, r.Name = parts[0], parts[1]
	case 3:
		r.Kind, r.Namespace, r.Name = parts[0], parts[1], parts[2]
	default:
		return Ref{}, fmt.Errorf("%q is not Kind/namespace/name or Kind/name", s)
	}
	for _, p := range parts {
		if p == "" {
			return Ref{}, fmt.Errorf("%q has an empty element", s)
		}
	}
	return r, nil
}

// Matches reports whether r names the same object and section as o, ignoring
// the group when either side leaves it empty.
func (r Ref) Matches(o Ref) bool {
	if r.Group != "" && o.Group != "" && r.Group != o.Group {
		return false
	}
	return r.Kind == o.Kind && r.Namespace == o.Namespace && r.Name == o.Name && r.Section == o.Section
}
