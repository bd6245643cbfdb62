package generators

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/simulator/fault"
)

// Limits of the perturbations FaultCases draws (docs/limits.md): at most
// maxMisops misoperations (two steps each at most), one fault of every
// other kind asked for, a restart after at most maxDrawnWrites status
// writes, a watch event held from 100 ms to maxDrawnDelay. With
// MaxDrawnSteps and a step for ties, a case has at most 13 steps and
// 7 faults (5 kinds and 2 misoperations), under simulator.MaxSteps and
// fault.MaxFaults.
const (
	maxMisops      = 2
	maxDrawnWrites = 3
	maxDrawnDelay  = 10 // hundreds of milliseconds
)

// FaultCases draws a case as Cases does, with up to maxSteps steps (none
// for 0), then the perturbations of kinds it is run under in a cluster,
// into its Scenario document's spec.faults (docs/faults.md): misoperations
// as steps of their own after the drawn ones (two when none is drawn),
// each a misop fault at its state; a restart and an API server restart at a drawn state after 0 to 3
// status writes; a burst at a drawn state; watch events delayed by a drawn
// seed, up to 100 ms to 1 s; and, for ties, a state that creates two or
// more policies (GEP-713, Conflict resolution rules 2 and 3): the objects
// as created when they hold two, else a step creating two copies of one.
// The case without its faults and added steps is the case Cases draws
// with the same seed.
func FaultCases(base *rapid.Generator[*Scenario], maxSteps int, kinds []fault.Kind) *rapid.Generator[Case] {
	return rapid.Custom(func(t *rapid.T) Case {
		return drawFaultCase(t, base, maxSteps, kinds)
	})
}

// drawFaultCase is the draw of FaultCases.
func drawFaultCase(t *rapid.T, base *rapid.Generator[*Scenario], maxSteps int, kinds []fault.Kind) Case {
	if maxSteps < 0 || maxSteps > MaxDrawnSteps {
		maxSteps = MaxDrawnSteps
	}
	c, st := drawSteps(t, base, maxSteps)
	if st == nil {
		return c
	}
	steps := slices.Clone(c.Steps)
	var misops []fault.Fault
	if slices.Contains(kinds, fault.Misop) {
		misops, steps = misopSteps(t, c.Scenario, st, steps)
	}
	tied := 0 // the state creating two policies or more; -1: none
	if slices.Contains(kinds, fault.Ties) && len(st.policies) < 2 {
		tied = -1
		if step, ok := st.tieStep(len(steps)); ok {
			steps = append(steps, step)
			tied = len(steps)
		}
	}
	var fs []fault.Fault
	for _, k := range fault.Kinds {
		switch {
		case !slices.Contains(kinds, k):
		case k == fault.Misop:
			fs = append(fs, misops...)
		case k == fault.Ties:
			if tied >= 0 {
				fs = append(fs, fault.Fault{Kind: k, State: tied, Seed: rapid.Int64Range(1, 1<<31).Draw(t, "ties seed")})
			}
		default:
			fs = append(fs, drawFault(t, k, len(steps)+1))
		}
	}
	if len(steps) == 0 && len(fs) == 0 {
		return c
	}
	c.Docs, c.Steps, c.Faults = withHeader(c.Docs), steps, fs
	return c
}

// drawFault draws a fault of kind k (restart, apiserver, burst or delay)
// at one of states states.
func drawFault(t *rapid.T, k fault.Kind, states int) fault.Fault {
	f := fault.Fault{Kind: k, State: rapid.IntRange(0, states-1).Draw(t, string(k)+" state")}
	switch k {
	case fault.Restart, fault.APIServer:
		f.AfterWrites = rapid.IntRange(0, maxDrawnWrites).Draw(t, string(k)+" after writes")
	case fault.Delay:
		d := time.Duration(rapid.IntRange(1, maxDrawnDelay).Draw(t, "max delay")) * 100 * time.Millisecond
		f.Seed, f.MaxDelay = rapid.Int64Range(1, 1<<31).Draw(t, "delay seed"), d.String()
	}
	return f
}

// misopSteps draws one or two misoperations after steps (two when there
// are none, a history of two steps at least): their faults, and steps
// with them.
func misopSteps(t *rapid.T, s *Scenario, st *stepper, steps []any) ([]fault.Fault, []any) {
	least := 1
	if len(steps) == 0 {
		least = maxMisops
	}
	n := rapid.IntRange(least, maxMisops).Draw(t, "misops")
	misops, out := drawMisops(t, st, steps, n, false)
	if len(misops) == 0 && len(steps) > 0 {
		// None applies after the drawn steps (what they name is gone):
		// before them, on the objects as created, one that leaves the
		// objects as they were, so that the drawn steps still apply.
		misops, out = drawMisops(t, newStepper(s, st.docs), nil, n, true)
		out = append(out, steps...)
	}
	return misops, out
}

// drawMisops draws up to n misoperations after steps (their faults, and
// steps with them); undoing draws only those that leave the objects as
// they were (a policy made invalid and fixed, a target re-created).
func drawMisops(t *rapid.T, st *stepper, steps []any, n int, undoing bool) ([]fault.Fault, []any) {
	var misops []fault.Fault
	for range n {
		op, more, ok := st.misop(t, len(steps), undoing)
		if !ok {
			break
		}
		misops = append(misops, fault.Fault{Kind: fault.Misop, State: len(steps) + 1, Op: op})
		steps = append(steps, more...)
	}
	return misops, steps
}

// misop draws a misoperation that applies to the objects now as steps,
// the first of them step i (0-based); undoing: one that leaves the
// objects as they were. False when none applies.
func (st *stepper) misop(t *rapid.T, i int, undoing bool) (fault.Op, []any, bool) {
	live, _ := split(st.policies, st.present)
	liveT, _ := split(st.targets, st.present)
	withRefs := slices.DeleteFunc(slices.Clone(live), func(j int) bool { return len(targetRefs(st.current[j])) == 0 })
	var movable []int
	for _, j := range withRefs {
		if len(st.moveTo(j)) > 0 {
			movable = append(movable, j)
		}
	}
	var ops []fault.Op
	if len(withRefs) > 0 {
		ops = append(ops, fault.InvalidThenFixed)
	}
	if len(liveT) > 0 {
		ops = append(ops, fault.TargetRecreated)
	}
	if len(movable) > 0 && !undoing {
		ops = append(ops, fault.TargetRefsMoved)
	}
	if len(ops) == 0 {
		return "", nil, false
	}
	op := rapid.SampledFrom(ops).Draw(t, "misop")
	step := func(n int, what string, obj int, key string, v any) map[string]any {
		return map[string]any{"name": fmt.Sprintf("%d-misop-%s-%s", i+n+1, what, name(st.docs[obj])),
			key: []any{v}, "expect": map[string]any{"effectivePolicies": []any{}}}
	}
	switch op {
	case fault.InvalidThenFixed:
		obj := rapid.SampledFrom(withRefs).Draw(t, "invalid policy")
		bad := withTargetRefs(st.current[obj], []any{st.invalidRef(st.current[obj])})
		return op, []any{step(0, "invalid", obj, "apply", applied(bad)), step(1, "fixed", obj, "apply", applied(st.current[obj]))}, true
	case fault.TargetRecreated:
		obj := rapid.SampledFrom(liveT).Draw(t, "recreated target")
		return op, []any{step(0, "delete-target", obj, "delete", docKey(st.docs[obj])), step(1, "recreate-target", obj, "apply", applied(st.current[obj]))}, true
	}
	obj := rapid.SampledFrom(movable).Draw(t, "moved policy")
	to := rapid.SampledFrom(st.moveTo(obj)).Draw(t, "moved to")
	ref := copyMap(targetRefs(st.current[obj])[0].(map[string]any))
	delete(ref, "sectionName")
	ref["name"] = name(st.docs[to])
	st.current[obj] = withTargetRefs(st.current[obj], []any{ref})
	return op, []any{step(0, "move-targetrefs", obj, "apply", applied(st.current[obj]))}, true
}

// invalidRef is a targetRef the API server stores but the reference does
// not accept (docs/profiles.md): for a kind without a built-in CRD (one
// that takes any targetRef), a kind the profile does not target (Accepted
// False, Invalid); else the first targetRef's kind with a name nothing
// has (Accepted False, TargetNotFound), which every CRD takes.
func (st *stepper) invalidRef(p map[string]any) map[string]any {
	ref := copyMap(targetRefs(p)[0].(map[string]any))
	ref["name"] = fmt.Sprint(ref["name"], "-missing")
	if st.prof == nil || st.prof.CRD != nil {
		return ref
	}
	if _, targeted := st.prof.Target("", "ConfigMap"); targeted {
		return ref
	}
	return map[string]any{"group": "", "kind": "ConfigMap", "name": ref["name"]}
}

// moveTo lists the objects present that policy j's targetRefs may move
// to: of its first targetRef's kind, in its namespace, another name.
func (st *stepper) moveTo(j int) []int {
	ref, _ := targetRefs(st.current[j])[0].(map[string]any)
	if ref == nil || ref["namespace"] != nil {
		return nil
	}
	p := st.docs[j]
	group, _ := ref["group"].(string)
	var out []int
	for k, d := range st.docs {
		if st.present[k] && d["kind"] == ref["kind"] && groupOf(d) == group && namespaceOf(d) == namespaceOf(p) && name(d) != ref["name"] {
			out = append(out, k)
		}
	}
	return out
}

// tieStep is step i creating two copies of the first policy, named
// apart ("-tie-a", "-tie-b"): policies a case creates in one step;
// false for a case without policies.
func (st *stepper) tieStep(i int) (map[string]any, bool) {
	if len(st.policies) == 0 {
		return nil, false
	}
	src := st.current[st.policies[0]]
	var apply []any
	for _, suffix := range []string{"-tie-a", "-tie-b"} {
		c := applied(src)
		md := copyMap(c["metadata"].(map[string]any))
		md["name"] = name(src) + suffix
		c["metadata"] = md
		apply = append(apply, c)
	}
	return map[string]any{"name": fmt.Sprintf("%d-ties-%s", i+1, name(src)), "apply": apply, "expect": map[string]any{"effectivePolicies": []any{}}}, true
}

// targetRefs is the spec.targetRefs of policy p.
func targetRefs(p map[string]any) []any {
	spec, _ := p["spec"].(map[string]any)
	refs, _ := spec["targetRefs"].([]any)
	return refs
}

// withTargetRefs is policy p with spec.targetRefs refs.
func withTargetRefs(p map[string]any, refs []any) map[string]any {
	out := copyMap(p)
	spec, _ := p["spec"].(map[string]any)
	s := copyMap(spec)
	s["targetRefs"] = refs
	out["spec"] = s
	return out
}

// groupOf is the API group of d ("" for the core group).
func groupOf(d map[string]any) string {
	av, _ := d["apiVersion"].(string)
	if g, _, ok := strings.Cut(av, "/"); ok {
		return g
	}
	return ""
}

// namespaceOf is d's namespace, "default" when unset.
func namespaceOf(d map[string]any) string {
	md, _ := d["metadata"].(map[string]any)
	if ns, _ := md["namespace"].(string); ns != "" {
		return ns
	}
	return "default"
}
