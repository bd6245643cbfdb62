package generators

import (
	"bytes"
	"fmt"
	"slices"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/profile"
)

// MaxDrawnSteps is the most steps Cases draws.
const MaxDrawnSteps = 8

// Step operations Cases draws: the changes over time of
// scenarios/README.md, Steps.
const (
	opDeletePolicy   = "delete-policy"   // a policy is deleted
	opRecreatePolicy = "recreate-policy" // a deleted policy is created again (newest)
	opUpdateSpec     = "update-spec"     // a policy takes another's spec (fields, strategy)
	opRetarget       = "retarget"        // a policy takes another's targetRefs (sectionName too)
	opDeleteTarget   = "delete-target"   // an object some policy targets is deleted
	opRecreateTarget = "recreate-target" // a deleted target is created again
)

// Cases draws a scenario of base and then up to maxSteps changes to its
// objects (1 at least): policies deleted and created again, given another
// policy's spec or targets, targets deleted and created again. The case
// is a value: its documents, the Scenario document's spec.steps each
// without an expected outcome (the reference computes it); Print prints
// it. Shrinking removes steps first (rapid shrinks the list), then
// objects (base shrinks).
func Cases(base *rapid.Generator[*Scenario], maxSteps int) *rapid.Generator[Case] {
	return rapid.Custom(func(t *rapid.T) Case {
		return drawCase(t, base, maxSteps)
	})
}

// drawCase is the draw of Cases.
func drawCase(t *rapid.T, base *rapid.Generator[*Scenario], maxSteps int) Case {
	if maxSteps < 1 || maxSteps > MaxDrawnSteps {
		maxSteps = MaxDrawnSteps
	}
	c, _ := drawSteps(t, base, maxSteps)
	return c
}

// drawSteps draws a scenario of base and up to maxSteps steps (none, and
// no draw of their number, for 0); the stepper holds the objects after
// them, nil for a case no step applies to (generic, or not read back).
func drawSteps(t *rapid.T, base *rapid.Generator[*Scenario], maxSteps int) (Case, *stepper) {
	s := base.Draw(t, "scenario")
	read, err := load.Read([]string{"-"}, bytes.NewReader(s.YAML()))
	if err != nil {
		return Case{Scenario: s}, nil
	}
	c := caseOf(read)
	c.Scenario, c.Steps = s, nil
	docs := c.Docs
	if s.Generic != nil || len(docs) == 0 {
		return c, nil
	}
	st := newStepper(s, docs)
	if maxSteps == 0 {
		return c, st
	}
	n := rapid.IntRange(1, maxSteps).Draw(t, "steps")
	var steps []any
	for i := 0; i < n; i++ {
		step, ok := st.draw(t, i)
		if !ok {
			break
		}
		steps = append(steps, step)
	}
	if len(steps) == 0 {
		return c, st
	}
	docs = withHeader(docs)
	docs[0]["spec"].(map[string]any)["steps"] = steps
	return Case{Scenario: s, Docs: docs, Steps: steps}, st
}

// withHeader is docs with a Scenario document first: a drawn profile (a
// PolicyProfile document) has none; the profile is found among the
// documents.
func withHeader(docs []map[string]any) []map[string]any {
	if docs[0]["kind"] == "Scenario" {
		return docs
	}
	return append([]map[string]any{{
		"apiVersion": "gepcheck.dev/v1alpha1", "kind": "Scenario", "metadata": map[string]any{"name": "generated"},
		"spec": map[string]any{"description": "Drawn by gepcheck's generators; no expected outcome.", "citation": "none",
			"expect": map[string]any{"effectivePolicies": []any{}}},
	}}, docs...)
}

// stepper draws the steps of one case: which documents are policies and
// targets, which are present, and the objects as they are now.
type stepper struct {
	docs              []map[string]any
	policies, targets []int // indexes into docs
	present           map[int]bool
	// current are the objects as they are now: a step applies a copy.
	current []map[string]any
	// withTargets are the spec fields that go with targetRefs.
	withTargets map[string]bool
	// prof is the scenario's profile (nil if it cannot be read).
	prof *profile.Profile
}

func newStepper(s *Scenario, docs []map[string]any) *stepper {
	st := &stepper{docs: docs, present: map[int]bool{}, current: slices.Clone(docs), withTargets: map[string]bool{"targetRefs": true}}
	// A spec-level merge option (the profile's strategyField, of a
	// kind without stanzas) goes with the targets: a kind's CRD may
	// allow it on route targets only (x-kubernetes-validations; the
	// test of impl names one), and a step the API server
	// refuses is no step.
	p, err := s.ParsedProfile()
	if err == nil {
		st.prof = p
	}
	if err == nil && p.Spec.Selection != nil && p.Spec.Selection.Stanzas == nil && p.Spec.Selection.StrategyField != "" {
		st.withTargets[p.Spec.Selection.StrategyField] = true
	}
	isPolicy := map[string]bool{}
	targeted := map[string]bool{}
	for _, p := range s.Policies {
		isPolicy[p.Kind+"/"+p.Namespace+"/"+p.Name] = true
		for _, tr := range p.Targets {
			ns := tr.Namespace
			if ns == "" {
				ns = p.Namespace
			}
			targeted[tr.Kind+"/"+ns+"/"+tr.Name] = true
		}
	}
	for i, d := range docs {
		switch k := docKey(d); {
		case isPolicy[k]:
			st.policies = append(st.policies, i)
		case targeted[k]:
			st.targets = append(st.targets, i)
		}
		st.present[i] = true
	}
	return st
}

// ops are the operations that apply now.
func (st *stepper) ops() []string {
	var ops []string
	live, gone := split(st.policies, st.present)
	liveT, goneT := split(st.targets, st.present)
	if len(live) > 0 {
		ops = append(ops, opDeletePolicy)
	}
	if len(gone) > 0 {
		ops = append(ops, opRecreatePolicy)
	}
	if len(live) > 0 && len(st.policies) > 1 {
		ops = append(ops, opUpdateSpec, opRetarget)
	}
	if len(liveT) > 0 {
		ops = append(ops, opDeleteTarget)
	}
	if len(goneT) > 0 {
		ops = append(ops, opRecreateTarget)
	}
	return ops
}

// draw draws step i; false when no operation applies.
func (st *stepper) draw(t *rapid.T, i int) (map[string]any, bool) {
	ops := st.ops()
	if len(ops) == 0 {
		return nil, false
	}
	op := rapid.SampledFrom(ops).Draw(t, "op")
	live, gone := split(st.policies, st.present)
	liveT, goneT := split(st.targets, st.present)
	step := map[string]any{"expect": map[string]any{"effectivePolicies": []any{}}}
	var obj int
	switch op {
	case opDeletePolicy, opDeleteTarget, opRecreatePolicy, opRecreateTarget:
		from := map[string][]int{opDeletePolicy: live, opDeleteTarget: liveT, opRecreatePolicy: gone, opRecreateTarget: goneT}[op]
		obj = rapid.SampledFrom(from).Draw(t, "object")
		deleting := op == opDeletePolicy || op == opDeleteTarget
		if deleting {
			step["delete"] = []any{docKey(st.docs[obj])}
		} else {
			step["apply"] = []any{applied(st.current[obj])}
		}
		st.present[obj] = !deleting
	case opUpdateSpec, opRetarget:
		obj = rapid.SampledFrom(live).Draw(t, "policy")
		other := rapid.SampledFrom(st.policies).Draw(t, "from")
		st.current[obj] = withSpecOf(st.current[obj], st.docs[other], op == opRetarget, st.withTargets)
		step["apply"] = []any{applied(st.current[obj])}
	}
	step["name"] = fmt.Sprintf("%d-%s-%s", i+1, op, name(st.docs[obj]))
	return step, true
}

// split divides indexes into those present and those not.
func split(idx []int, present map[int]bool) (live, gone []int) {
	for _, i := range idx {
		if present[i] {
			live = append(live, i)
		} else {
			gone = append(gone, i)
		}
	}
	return live, gone
}

// withSpecOf is policy p with the targetRefs and the fields that go with
// them, withTargets (retarget), or the rest of the spec (the spec proper
// and strategy) of policy q.
func withSpecOf(p, q map[string]any, retarget bool, withTargets map[string]bool) map[string]any {
	out := copyMap(p)
	ps, _ := p["spec"].(map[string]any)
	qs, _ := q["spec"].(map[string]any)
	spec := map[string]any{}
	for k, v := range qs {
		if withTargets[k] == retarget {
			spec[k] = v
		}
	}
	for k, v := range ps {
		if withTargets[k] != retarget {
			spec[k] = v
		}
	}
	out["spec"] = spec
	return out
}

// applied is d as a step applies it: without creationTimestamp, which the
// step sets (simulator.States).
func applied(d map[string]any) map[string]any {
	out := copyMap(d)
	if md, ok := d["metadata"].(map[string]any); ok {
		m := copyMap(md)
		delete(m, "creationTimestamp")
		out["metadata"] = m
	}
	return out
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func name(d map[string]any) string {
	md, _ := d["metadata"].(map[string]any)
	n, _ := md["name"].(string)
	return n
}

// docKey is Kind/namespace/name of d, namespace "default" when unset.
func docKey(d map[string]any) string {
	md, _ := d["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	if ns == "" {
		ns = "default"
	}
	k, _ := d["kind"].(string)
	return k + "/" + ns + "/" + name(d)
}
