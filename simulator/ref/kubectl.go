package ref

import (
	"fmt"
	"strings"
)

// shortNames are kubectl's short names of the kinds a hierarchy holds
// (Kubernetes and Gateway API CRDs' shortNames).
var shortNames = map[string]string{
	"gc":  "GatewayClass",
	"gtw": "Gateway",
	"svc": "Service",
	"ns":  "Namespace",
	"cm":  "ConfigMap",
}

// Plural is the resource name of kind, as the API server derives it
// (lower case; -y after a consonant to -ies; -s, -x, -ch, -sh to -es).
func Plural(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(k, "y") && len(k) > 1 && !strings.ContainsRune("aeiou", rune(k[len(k)-2])):
		return k[:len(k)-1] + "ies"
	case strings.HasSuffix(k, "s"), strings.HasSuffix(k, "x"), strings.HasSuffix(k, "ch"), strings.HasSuffix(k, "sh"):
		return k + "es"
	}
	return k + "s"
}

// Kubectl reads a reference as explain's --target and --policy take
// it: KIND/NAMESPACE/NAME, or kubectl's KIND/NAME with -n NAMESPACE, each
// optionally #SECTION. KIND is matched without regard to case, and may be
// the kind's plural or short name (kubectl's: httproutes, gtw, svc),
// among the kinds of known. KIND/NAME without -n names a cluster-scoped
// object when known has one, else the object in namespace default, as
// kubectl reads it.
func Kubectl(s, namespace string, known []Ref) (Ref, error) {
	r, err := Parse(s)
	if err != nil {
		return r, fmt.Errorf("want KIND/NAMESPACE/NAME, or KIND/NAME with -n NAMESPACE: %w", err)
	}
	if r.Namespace != "" && namespace != "" && r.Namespace != namespace {
		return r, fmt.Errorf("%q names namespace %s, -n %s", s, r.Namespace, namespace)
	}
	r.Kind = canonicalKind(r.Kind, known)
	if r.Namespace == "" {
		switch {
		case namespace != "":
			r.Namespace = namespace
		case !clusterScoped(r, known):
			r.Namespace = "default"
		}
	}
	return r, nil
}

// canonicalKind is the kind of known that kind names: itself, in another
// case, its plural or its short name; kind itself when none is.
func canonicalKind(kind string, known []Ref) string {
	k := strings.ToLower(kind)
	if s, ok := shortNames[k]; ok {
		k = strings.ToLower(s)
	}
	for _, r := range known {
		if strings.ToLower(r.Kind) == k || Plural(r.Kind) == k {
			return r.Kind
		}
	}
	return kind
}

// clusterScoped reports whether known has r's kind and name without a
// namespace.
func clusterScoped(r Ref, known []Ref) bool {
	for _, o := range known {
		if o.Kind == r.Kind && o.Name == r.Name && o.Namespace == "" {
			return true
		}
	}
	return false
}
