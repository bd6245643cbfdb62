package generators

import (
	"bytes"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/internal/jsonmap"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// StepCase is a scenario file with steps (scenarios/README.md, Steps),
// split into its documents and the steps of its Scenario document: what
// shrinking a case with steps edits, offline and in a cluster.
type StepCase struct {
	Docs  []map[string]any
	Steps []any
}

// ParseStepCase splits a scenario file with steps.
func ParseStepCase(data []byte) (StepCase, error) {
	docs, err := load.Read([]string{"-"}, bytes.NewReader(data))
	if err != nil {
		return StepCase{}, err
	}
	var s StepCase
	for _, d := range docs {
		s.Docs = append(s.Docs, d.Raw)
		if d.Group == simulator.GepcheckGroup && d.Kind == "Scenario" {
			s.Steps, _, _ = unstructured.NestedSlice(d.Raw, "spec", "steps")
		}
	}
	return s, nil
}

// Objects counts the documents other than the Scenario's.
func (s StepCase) Objects() int {
	n := 0
	for _, d := range s.Docs {
		if d["kind"] != "Scenario" {
			n++
		}
	}
	return n
}

// Smaller lists the cases one step smaller than s that fails at step
// failing (1-based; 0 at creation), fewest steps first: the steps after
// the failing one gone, or one step before it; then each object gone with
// the steps that name it, but objects of the kinds keep. Candidates whose
// steps no longer apply (a deletion of what is not there) are left out.
//
// Candidates observed side by side in one translator call keep Namespaces
// and GatewayClasses: the frame every drawn case has, which candidates
// would otherwise borrow from each other (a GatewayClass is cluster-scoped).
func (s StepCase) Smaller(failing int, keep ...string) []StepCase {
	var out []StepCase
	add := func(c StepCase) {
		if data := c.YAML(); data != nil && stepsApply(data) {
			out = append(out, c)
		}
	}
	if failing < len(s.Steps) {
		add(StepCase{Docs: s.Docs, Steps: s.Steps[:failing]})
	}
	for i := 0; i < failing-1; i++ {
		add(StepCase{Docs: s.Docs, Steps: slices.Concat(s.Steps[:i], s.Steps[i+1:failing])})
	}
	for i, d := range s.Docs {
		if k, _ := d["kind"].(string); slices.Contains(keep, k) {
			continue
		}
		if c, ok := s.without(i); ok {
			add(c)
		}
	}
	return out
}

// without is s without document i and the steps that delete or apply
// the object it holds; false for the Scenario document.
func (s StepCase) without(i int) (StepCase, bool) {
	d := s.Docs[i]
	if d["kind"] == "Scenario" {
		return StepCase{}, false
	}
	u := &unstructured.Unstructured{Object: d}
	names := func(st map[string]any) bool {
		dels, _, _ := unstructured.NestedStringSlice(st, "delete")
		for _, r := range dels {
			if parts := strings.Split(r, "/"); parts[0] == u.GetKind() && parts[len(parts)-1] == u.GetName() {
				return true
			}
		}
		applies, _, _ := unstructured.NestedSlice(st, "apply")
		for _, a := range applies {
			o := &unstructured.Unstructured{Object: a.(map[string]any)}
			if o.GetKind() == u.GetKind() && o.GetName() == u.GetName() && o.GetNamespace() == u.GetNamespace() {
				return true
			}
		}
		return false
	}
	out := StepCase{Docs: slices.Concat(s.Docs[:i:i], s.Docs[i+1:])}
	for _, st := range s.Steps {
		if m, ok := st.(map[string]any); ok && !names(m) {
			out.Steps = append(out.Steps, st)
		}
	}
	return out, true
}

// YAML is the scenario file of s; nil if it cannot be written.
func (s StepCase) YAML() []byte {
	var b bytes.Buffer
	for _, d := range s.Docs {
		if d["kind"] == "Scenario" {
			d = jsonmap.Clone(d)
			if len(s.Steps) == 0 {
				unstructured.RemoveNestedField(d, "spec", "steps")
			} else if err := unstructured.SetNestedSlice(d, s.Steps, "spec", "steps"); err != nil {
				return nil
			}
		}
		data, err := yaml.Marshal(d)
		if err != nil {
			return nil
		}
		b.WriteString("---\n")
		b.Write(data)
	}
	return b.Bytes()
}

// InNamespace is s with namespace from renamed to: objects' namespaces,
// the Namespace object, references' namespaces and the steps' delete
// references (Kind/namespace/name), so that candidates of one case can be
// observed side by side. It is meant for drawn cases, whose objects name
// their namespace and whose Scenario has no expected outcome.
func (s StepCase) InNamespace(from, to string) StepCase {
	out := StepCase{Docs: make([]map[string]any, len(s.Docs))}
	for i, d := range s.Docs {
		out.Docs[i] = renameNamespace(jsonmap.Clone(d), from, to).(map[string]any)
	}
	for _, st := range s.Steps {
		out.Steps = append(out.Steps, renameNamespace(jsonmap.Clone(st), from, to))
	}
	return out
}

func renameNamespace(v any, from, to string) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			switch {
			case k == "namespace" && x == from:
				v[k] = to
			case k == "delete":
				refs, _ := x.([]any)
				for i, r := range refs {
					if s, ok := r.(string); ok {
						parts := strings.Split(s, "/")
						if len(parts) == 3 && parts[1] == from {
							parts[1] = to
							refs[i] = strings.Join(parts, "/")
						}
					}
				}
			default:
				v[k] = renameNamespace(x, from, to)
			}
		}
		if v["kind"] == "Namespace" {
			if md, ok := v["metadata"].(map[string]any); ok && md["name"] == from {
				md["name"] = to
			}
		}
	case []any:
		for i, x := range v {
			v[i] = renameNamespace(x, from, to)
		}
	}
	return v
}

// stepsApply says whether every step of c applies (simulator.States).
func stepsApply(c []byte) bool {
	docs, err := load.Read([]string{"-"}, bytes.NewReader(c))
	if err != nil {
		return false
	}
	m, err := simulator.Build(docs, simulator.Options{})
	if err != nil {
		return false
	}
	_, err = simulator.States(docs, m.Scenario)
	return err == nil
}

// FewerSteps orders shrink candidates: fewer steps, then fewer objects.
func FewerSteps(a, b StepCase) bool {
	return len(a.Steps) < len(b.Steps) || len(a.Steps) == len(b.Steps) && a.Objects() < b.Objects()
}
