package reference

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/cluster"
)

// CRDs are the CRDs gepcheck-reference serves: one for each policy kind it
// serves (Kinds) that Gateway API does not define (ColorPolicy, the
// GEP-2649 example kinds, Kuadrant's kinds), a namespaced kind whose spec
// and status hold anything; and gepcheck's own kinds, EffectivePolicy (the
// controller's read-only view of effective policies, one per affected
// object) and ObjectFields (the values objects hold themselves in fields
// that GEP-2649 policies default or override).
func CRDs() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, gvk := range Kinds() {
		if gvk.Group == gvkGateway.Group {
			continue
		}
		out = append(out, cluster.OpenCRD(gvk.Group, gvk.Kind, "Namespaced", gvk.Version))
	}
	return append(out,
		cluster.OpenCRD(gvkEffectivePolicy.Group, gvkEffectivePolicy.Kind, "Namespaced", gvkEffectivePolicy.Version),
		cluster.OpenCRD(gvkObjectFields.Group, gvkObjectFields.Kind, "Cluster", gvkObjectFields.Version),
	)
}
