package generators

import (
	"bytes"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/internal/jsonmap"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/fault"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// Case is a drawn case, one value whatever its shape; its states are a
// list (States). A case drawn without steps is its Scenario, one state. A
// case with steps (scenarios/README.md, Steps) is a scenario file split
// into its documents and the steps of its Scenario document (Docs,
// Steps): its states are the objects as created and after each step.
// Shrinking edits the scenario (policies, fields, objects; Smaller) or the
// documents and steps (steps, then objects), offline and in a cluster.
type Case struct {
	// Scenario is the drawn scenario: the whole case without steps, the
	// objects as created with them (nil once shrinking edits Docs).
	Scenario *Scenario
	Docs     []map[string]any
	Steps    []any
	// Faults are the perturbations the case is run under in a cluster
	// (the Scenario document's spec.faults; docs/faults.md), each at one
	// of the case's states: shrinking keeps them at the states they
	// perturb (Smaller).
	Faults []fault.Fault
	// File is the scenario file c was read from (ParseCase), which YAML
	// writes back as it is, comments and all; a case shrinking makes is
	// written from Docs and Steps.
	File []byte
}

// Changes says whether c is read from its documents and steps (a case
// that changes over time), not from Scenario alone.
func (c Case) Changes() bool { return c.Docs != nil }

// ParseCase reads a scenario file with steps (simulator/load).
func ParseCase(data []byte) (Case, error) {
	docs, err := load.Read([]string{"-"}, bytes.NewReader(data))
	if err != nil {
		return Case{}, err
	}
	c := caseOf(docs)
	c.File = data
	return c, nil
}

// caseOf is the case of read documents.
func caseOf(docs []*load.Doc) Case {
	s := Case{Docs: []map[string]any{}}
	for _, d := range docs {
		s.Docs = append(s.Docs, d.Raw)
		if d.Group == simulator.GepcheckGroup && d.Kind == "Scenario" {
			s.Steps, _, _ = unstructured.NestedSlice(d.Raw, "spec", "steps")
			s.Faults = faultsOf(d.Raw)
		}
	}
	return s
}

// A State is one state of a case: its label in reports (Case.StateLabel)
// and its objects as a file.
type State struct {
	Label, YAML string
}

// States lists c's states under profile: the scenario for a case without
// steps; else the objects as created and after each step, labelled
// "creation" when every step is shrunk away. An error says c cannot be
// read or its steps do not apply.
func (c Case) States(profile string) ([]State, error) {
	if !c.Changes() {
		return []State{{YAML: string(c.Scenario.YAML())}}, nil
	}
	docs, err := load.Read([]string{"-"}, bytes.NewReader(c.YAML()))
	if err != nil {
		return nil, err
	}
	sts, _, err := simulator.StateModels(docs, simulator.Options{Profiles: []string{profile}})
	if err != nil {
		return nil, err
	}
	out := make([]State, len(sts))
	for i, st := range sts {
		y, err := load.Marshal(st.Docs)
		if err != nil {
			return nil, err
		}
		out[i] = State{Label: c.StateLabel(st.Step), YAML: y}
	}
	return out, nil
}

// StateLabel names state i of c in reports (States): "" for a case
// without steps, "creation" for one whose steps are all shrunk away, else
// "step N (name)" (simulator.State.Label; state 0 is "create").
func (c Case) StateLabel(i int) string {
	switch {
	case !c.Changes():
		return ""
	case len(c.Steps) == 0:
		return "creation"
	}
	st := simulator.State{Step: i, Name: "create"}
	if i > 0 && i <= len(c.Steps) {
		m, _ := c.Steps[i-1].(map[string]any)
		st.Name, _ = m["name"].(string)
	}
	return st.Label(len(c.Steps))
}

// Namespace is the namespace of a drawn case: its scenario's first, or
// its first Namespace document's.
func (c Case) Namespace() string {
	if !c.Changes() {
		return c.Scenario.Namespaces[0]
	}
	for _, d := range c.Docs {
		if d["kind"] == "Namespace" {
			if md, ok := d["metadata"].(map[string]any); ok {
				if n, ok := md["name"].(string); ok {
					return n
				}
			}
		}
	}
	return ""
}

// Policies counts c's policies, for a case without steps.
func (c Case) Policies() int {
	if c.Scenario == nil {
		return 0
	}
	return len(c.Scenario.Policies)
}

// Objects counts the documents other than the Scenario's.
func (s Case) Objects() int {
	n := 0
	for _, d := range s.Docs {
		if d["kind"] != "Scenario" {
			n++
		}
	}
	return n
}

// Smaller lists the cases one step smaller than s: for a case without
// steps, the scenarios one policy, spec field, object, section or
// reference smaller (Smaller); else, for a case that fails at step
// failing (1-based; 0 at creation), fewest steps first: the steps after
// the failing one gone, or one step before it; then each object gone with
// the steps that name it, but objects of the kinds keep; then each fault
// gone but the misoperations (fewest perturbations; docs/faults.md). Each
// candidate keeps its faults at the states they perturb (keptFaults).
// Candidates whose steps no longer apply (a deletion of what is not
// there) are left out.
//
// Candidates observed side by side in one translator call keep Namespaces
// and GatewayClasses: the frame every drawn case has, which candidates
// would otherwise borrow from each other (a GatewayClass is cluster-scoped).
func (s Case) Smaller(failing int, keep ...string) []Case {
	var out []Case
	if !s.Changes() {
		for _, c := range Smaller(s.Scenario) {
			out = append(out, Case{Scenario: c})
		}
		return out
	}
	add := func(c Case) {
		if data := c.YAML(); data != nil && stepsApply(data) {
			out = append(out, c)
		}
	}
	if failing < len(s.Steps) {
		add(s.withSteps(upTo(failing)))
	}
	for i := 0; i < failing-1; i++ {
		add(s.withSteps(slices.Delete(upTo(failing), i, i+1)))
	}
	for i, d := range s.Docs {
		if k, _ := d["kind"].(string); slices.Contains(keep, k) {
			continue
		}
		if c, ok := s.without(i); ok {
			add(c)
		}
	}
	// Each perturbation gone but the misoperations, which go with their
	// steps (docs/faults.md).
	for i, f := range s.Faults {
		if f.Kind != fault.Misop {
			add(Case{Docs: s.Docs, Steps: s.Steps, Faults: slices.Delete(slices.Clone(s.Faults), i, i+1)})
		}
	}
	return out
}

// upTo lists the step indexes 0 to n-1.
func upTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// withSteps is s with only the steps kept (indexes into s.Steps, in
// order) and its faults moved with them (keptFaults).
func (s Case) withSteps(kept []int) Case {
	out := Case{Docs: s.Docs, Faults: keptFaults(s.Faults, kept)}
	for _, i := range kept {
		out.Steps = append(out.Steps, s.Steps[i])
	}
	return out
}

// keptFaults are the faults of a case whose steps kept (indexes, in
// order) remain: a fault at the state after a kept step moves with it; a
// misoperation whose step is gone is gone (it is that step); any other
// fault at the state after a step gone moves to the state before it,
// which the case now holds instead.
func keptFaults(fs []fault.Fault, kept []int) []fault.Fault {
	var out []fault.Fault
	for _, f := range fs {
		if f.State == 0 {
			out = append(out, f)
			continue
		}
		at, found := slices.BinarySearch(kept, f.State-1)
		switch {
		case found:
			f.State = at + 1
		case f.Kind == fault.Misop:
			continue
		default:
			f.State = at // the kept steps before the one gone
		}
		out = append(out, f)
	}
	return out
}

// without is s without document i and the steps that delete or apply
// the object it holds; false for the Scenario document.
func (s Case) without(i int) (Case, bool) {
	d := s.Docs[i]
	if d["kind"] == "Scenario" {
		return Case{}, false
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
	var kept []int
	for j, st := range s.Steps {
		if m, ok := st.(map[string]any); ok && !names(m) {
			kept = append(kept, j)
		}
	}
	out := s.withSteps(kept)
	out.Docs = slices.Concat(s.Docs[:i:i], s.Docs[i+1:])
	return out, true
}

// YAML is the scenario file of s; nil if it cannot be written.
func (s Case) YAML() []byte {
	if s.File != nil {
		return s.File
	}
	if !s.Changes() {
		return s.Scenario.YAML()
	}
	var b bytes.Buffer
	for _, d := range s.Docs {
		if d["kind"] == "Scenario" {
			d = jsonmap.Clone(d)
			if len(s.Steps) == 0 {
				unstructured.RemoveNestedField(d, "spec", "steps")
			} else if err := unstructured.SetNestedSlice(d, s.Steps, "spec", "steps"); err != nil {
				return nil
			}
			if err := setFaults(d, s.Faults); err != nil {
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
func (s Case) InNamespace(from, to string) Case {
	if !s.Changes() {
		return Case{Scenario: s.Scenario.InNamespace(to)}
	}
	out := Case{Docs: make([]map[string]any, len(s.Docs)), Faults: s.Faults}
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

// Less orders shrink candidates: for cases without steps the smaller
// scenario (Size); else fewer steps, then fewer objects, then fewer
// perturbations.
func (a Case) Less(b Case) bool {
	if !a.Changes() {
		return Size(a.Scenario) < Size(b.Scenario)
	}
	if len(a.Steps) != len(b.Steps) {
		return len(a.Steps) < len(b.Steps)
	}
	if a.Objects() != b.Objects() {
		return a.Objects() < b.Objects()
	}
	return len(a.Faults) < len(b.Faults)
}

// faultsOf reads a Scenario document's spec.faults; nil when it has none
// or they are not faults (simulator.States reports those).
func faultsOf(raw map[string]any) []fault.Fault {
	spec, _, _ := unstructured.NestedMap(raw, "spec")
	var held struct {
		Faults []fault.Fault `json:"faults"`
	}
	if runtime.DefaultUnstructuredConverter.FromUnstructured(spec, &held) != nil {
		return nil
	}
	return held.Faults
}

// setFaults writes fs as the Scenario document d's spec.faults (removes
// it when fs is empty).
func setFaults(d map[string]any, fs []fault.Fault) error {
	if len(fs) == 0 {
		unstructured.RemoveNestedField(d, "spec", "faults")
		return nil
	}
	held, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&struct {
		Faults []fault.Fault `json:"faults"`
	}{fs})
	if err != nil {
		return err
	}
	return unstructured.SetNestedField(d, held["faults"], "spec", "faults")
}
