package simulator

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/simulator/fault"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

// MaxSteps is the most steps a scenario may have (docs/limits.md): each
// step is a full simulation of the scenario's state, and in a cluster a
// wait for the implementation's status.
const MaxSteps = 64

// Step is one change to a scenario's objects over time (scenarios/README.md,
// Steps): the objects Delete names are deleted, then the objects of Apply
// are created, or replace the object of the same kind, namespace and name,
// as `kubectl delete` then `kubectl apply` would. Expect is the outcome
// after the step.
type Step struct {
	Name        string           `json:"name"`
	Description string           `json:"description,omitempty"`
	Delete      []string         `json:"delete,omitempty"`
	Apply       []map[string]any `json:"apply,omitempty"`
	Expect      Expect           `json:"expect"`
}

// State is a scenario's objects at one step: step 0 is the file's own
// objects, step i the state after spec.steps[i-1].
type State struct {
	Step int
	// Name is the step's name ("create" for step 0).
	Name string
	// Docs are the documents of the state, the Scenario document left
	// out; in a scenario with steps every object has a creationTimestamp
	// (see States).
	Docs []*load.Doc
	// Expect is the outcome the scenario states for the state.
	Expect *Expect
	// Deleted and Applied are what the step did (none for step 0), in
	// the order written.
	Deleted []*load.Doc
	Applied []*load.Doc
}

// stepsEpoch is the creationTimestamp of the objects a scenario with steps
// creates without one, when the file writes none (any fixed time would do).
var stepsEpoch = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// States returns the states of the scenario whose documents are docs, one
// per step, the first being the objects as written. A scenario without
// steps has one state, its documents as they are.
//
// In a scenario with steps, time passes between steps as it does in a
// cluster, so every object gets the creationTimestamp of the step that
// creates it: an object written without one is created at T0 plus one
// second per step, T0 being one second after the latest creationTimestamp
// the file writes (or 2024-01-01T00:00:00Z). The objects of step 0 without
// one keep their order among the others (GEP-713, Conflict resolution
// rule 2: newer than every written time, tied with each other), and an
// object a step creates is newer than every object before it. A step's
// objects may not write a creationTimestamp: the API server sets it.
// An object a step applies over an existing one keeps its time; one a step
// deletes and applies again is created anew.
func States(docs []*load.Doc, sc *Scenario) ([]State, error) {
	var header *load.Doc
	var objects []*load.Doc
	for _, d := range docs {
		if d.Group == GepcheckGroup && d.Kind == "Scenario" {
			header = d
			continue
		}
		objects = append(objects, d)
	}
	first := State{Name: "create", Docs: objects}
	if sc != nil {
		first.Expect = &sc.Spec.Expect
	}
	errs := faultErrors(header, sc)
	if sc == nil || len(sc.Spec.Steps) == 0 {
		return []State{first}, errs.Err()
	}
	fail := func(field, format string, a ...any) {
		errs.Add(&load.Error{Source: header.At(field), Object: header.Object(), Field: field, Msg: fmt.Sprintf(format, a...)})
	}
	if len(sc.Spec.Steps) > MaxSteps {
		fail("spec.steps", "has %d steps; at most %d (docs/limits.md)", len(sc.Spec.Steps), MaxSteps)
		return nil, errs
	}
	t0 := stepsEpoch.Add(-time.Second)
	for _, d := range objects {
		if t, ok := writtenTime(d.Raw); ok && t.After(t0) {
			t0 = t
		}
	}
	t0 = t0.Add(time.Second)
	first.Docs = make([]*load.Doc, len(objects))
	for i, d := range objects {
		first.Docs[i] = stamped(d, t0)
	}
	states := []State{first}
	names := map[string]bool{first.Name: true}
	for i, step := range sc.Spec.Steps {
		at := fmt.Sprintf("spec.steps[%d]", i)
		st := State{Step: i + 1, Name: step.Name, Expect: &sc.Spec.Steps[i].Expect}
		switch {
		case step.Name == "":
			fail(at+".name", "is required: it names the step in every report")
		case names[step.Name]:
			fail(at+".name", "%q names two steps", step.Name)
		}
		names[step.Name] = true
		prev := states[len(states)-1].Docs
		current := make([]*load.Doc, len(prev))
		copy(current, prev)
		for j, s := range step.Delete {
			field := fmt.Sprintf("%s.delete[%d]", at, j)
			r, err := ref.Parse(s)
			if err != nil {
				fail(field, "%v", err)
				continue
			}
			k := indexOf(current, r)
			if k < 0 {
				fail(field, "%s is not in the scenario at this step", s)
				continue
			}
			st.Deleted = append(st.Deleted, current[k])
			current = append(current[:k], current[k+1:]...)
		}
		when := t0.Add(time.Duration(i+1) * time.Second)
		for j, raw := range step.Apply {
			field := fmt.Sprintf("%s.apply[%d]", at, j)
			d := load.Embedded(header, field, raw, &errs)
			if d == nil {
				continue
			}
			if hasKey(raw, "metadata", "creationTimestamp") {
				fail(field+".metadata.creationTimestamp", "is set by the step that creates the object (an object a step creates is newer than every object before it); leave it out")
				continue
			}
			r := docRef(d)
			if k := indexOf(current, r); k >= 0 {
				// An update keeps the stored object's creationTimestamp.
				ts, _ := writtenTime(current[k].Raw)
				current[k] = stamped(d, ts)
			} else {
				current = append(current, stamped(d, when))
			}
			st.Applied = append(st.Applied, d)
		}
		if len(step.Delete)+len(step.Apply) == 0 {
			fail(at, "changes nothing: give it delete or apply")
		}
		st.Docs = current
		states = append(states, st)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return states, nil
}

// faultErrors are the errors of sc's spec.faults (fault.Validate), each
// naming its field in the Scenario document header.
func faultErrors(header *load.Doc, sc *Scenario) load.Errors {
	var errs load.Errors
	if sc == nil {
		return nil
	}
	for _, e := range fault.Validate(sc.Spec.Faults, 1+len(sc.Spec.Steps)) {
		errs.Add(&load.Error{Source: header.At(e.Field), Object: header.Object(), Field: e.Field, Msg: e.Msg})
	}
	return errs
}

// docRef is the ref of d's object (its namespace as written).
func docRef(d *load.Doc) ref.Ref {
	return ref.Ref{Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}
}

// indexOf finds the object r names among docs: Kind/namespace/name, or
// Kind/name for a cluster-scoped object or one in namespace default.
func indexOf(docs []*load.Doc, r ref.Ref) int {
	for i, d := range docs {
		if d.Group == GepcheckGroup || d.Kind != r.Kind || d.Name != r.Name {
			continue
		}
		ns := d.Namespace
		if ns == "" && namespaced(d) {
			ns = "default"
		}
		want := r.Namespace
		if want == "" && namespaced(d) {
			want = "default"
		}
		if ns == want {
			return i
		}
	}
	return -1
}

// stamped is d with metadata.creationTimestamp t unless it writes one (a
// zero t, and gepcheck's own documents, which have no such field, leave
// it as it is).
func stamped(d *load.Doc, t time.Time) *load.Doc {
	if _, ok := writtenTime(d.Raw); ok || t.IsZero() || d.Group == GepcheckGroup {
		return d
	}
	u := (&unstructured.Unstructured{Object: d.Raw}).DeepCopy()
	_ = unstructured.SetNestedField(u.Object, t.UTC().Format(time.RFC3339), "metadata", "creationTimestamp")
	return d.WithRaw(u.Object)
}

// writtenTime is the creationTimestamp raw writes, if it is a valid one
// (an invalid one is reported by the builder).
func writtenTime(raw map[string]any) (time.Time, bool) {
	s, _, _ := unstructured.NestedString(raw, "metadata", "creationTimestamp")
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, s)
	return t, err == nil
}

func hasKey(raw map[string]any, fields ...string) bool {
	_, found, _ := unstructured.NestedFieldNoCopy(raw, fields...)
	return found
}

// StateModels builds the model of every state of the scenario docs hold
// (States), each with the scenario's profiles: one model, of the
// documents as they are, for a file without steps.
func StateModels(docs []*load.Doc, opts Options) ([]State, []*Model, error) {
	m, err := Build(docs, opts)
	if err != nil {
		return nil, nil, err
	}
	states, err := States(docs, m.Scenario)
	if err != nil {
		return nil, nil, err
	}
	if len(states) == 1 {
		return states, []*Model{m}, nil
	}
	if len(opts.Profiles) == 0 {
		opts.Profiles = m.Scenario.Spec.Profiles
	}
	models := make([]*Model, len(states))
	for i, st := range states {
		sm, err := Build(st.Docs, opts)
		if err != nil {
			return nil, nil, fmt.Errorf("at step %d (%s): %w", st.Step, st.Name, err)
		}
		sm.Scenario = m.Scenario
		models[i] = sm
	}
	return states, models, nil
}

// Label names state st in reports: "" for a scenario without steps, else
// "step N (name)".
func (st State) Label(steps int) string {
	if steps == 0 {
		return ""
	}
	return fmt.Sprintf("step %d (%s)", st.Step, st.Name)
}
