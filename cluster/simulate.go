package cluster

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// SimulatorYAML renders stored objects as the multi-document YAML the
// simulator reads: without status and server-owned metadata; gepcheck's
// own kinds (ObjectFields) keep only their name, as they are written.
func SimulatorYAML(objs []*unstructured.Unstructured) (string, error) {
	var b strings.Builder
	for _, u := range objs {
		data, err := yaml.Marshal(SimulatorObject(u))
		if err != nil {
			return "", err
		}
		b.WriteString("---\n")
		b.Write(data)
	}
	return b.String(), nil
}

// SimulatorObject is a copy of u as SimulatorYAML writes it, for
// simulator.FromObjects.
func SimulatorObject(u *unstructured.Unstructured) map[string]any {
	c := u.DeepCopy()
	delete(c.Object, "status")
	unstructured.RemoveNestedField(c.Object, "metadata", "managedFields")
	switch {
	case c.GetKind() == "Namespace":
		delete(c.Object, "spec")
	case c.GroupVersionKind().Group == "gepcheck.dev":
		c.Object["metadata"] = map[string]any{"name": c.GetName()}
	}
	return c.Object
}
