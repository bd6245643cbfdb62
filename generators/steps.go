package generators

import (
	"bytes"
	"fmt"
	"strings"

	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"
)

// MaxDrawnSteps is the most steps Stepped draws.
const MaxDrawnSteps = 8

// Step operations Stepped draws: the changes over time of
// scenarios/README.md, Steps.
const (
	opDeletePolicy   = "delete-policy"   // a policy is deleted
	opRecreatePolicy = "recreate-policy" // a deleted policy is created again (newest)
	opUpdateSpec     = "update-spec"     // a policy takes another's spec (fields, strategy)
	opRetarget       = "retarget"        // a policy takes another's targetRefs (sectionName too)
	opDeleteTarget   = "delete-target"   // an object some policy targets is deleted
	opRecreateTarget = "recreate-target" // a deleted target is created again
)

// Stepped draws a scenario of base and then up to maxSteps changes to its
// objects (1 at least): policies deleted and created again, given
// another policy's spec or targets, targets deleted and created again. The
// result is scenario YAML with spec.steps, each step without an expected
// outcome (the reference computes it). Shrinking removes steps first
// (rapid shrinks the list), then objects (base shrinks).
func Stepped(base *rapid.Generator[*Scenario], maxSteps int) *rapid.Generator[[]byte] {
	return rapid.Custom(func(t *rapid.T) []byte {
		_, file := drawSteps(t, base, maxSteps)
		return file
	})
}

// SteppedCase draws what Stepped draws, for the same seed the same case,
// as a StepCase value: its documents and steps, not a file to read back.
func SteppedCase(base *rapid.Generator[*Scenario], maxSteps int) *rapid.Generator[StepCase] {
	return rapid.Custom(func(t *rapid.T) StepCase {
		c, _ := drawSteps(t, base, maxSteps)
		return c
	})
}

// drawSteps is the draw of Stepped: the case and its file.
func drawSteps(t *rapid.T, base *rapid.Generator[*Scenario], maxSteps int) (StepCase, []byte) {
	if maxSteps < 1 || maxSteps > MaxDrawnSteps {
		maxSteps = MaxDrawnSteps
	}
	s := base.Draw(t, "scenario")
	docs, err := parseDocs(s.YAML())
	if err != nil || s.Generic != nil || len(docs) == 0 {
		return StepCase{Docs: docs}, s.YAML()
	}
	// A spec-level merge option (the profile's strategyField, of a
	// kind without stanzas) goes with the targets: a kind's CRD may
	// allow it on route targets only (x-kubernetes-validations; the
	// test of impl names one), and a step the API server
	// refuses is no step.
	withTargets := map[string]bool{"targetRefs": true}
	if p, err := s.ParsedProfile(); err == nil && p.Spec.Selection != nil && p.Spec.Selection.Stanzas == nil && p.Spec.Selection.StrategyField != "" {
		withTargets[p.Spec.Selection.StrategyField] = true
	}
	var policies, targets []int // indexes into docs
	isPolicy := map[string]bool{}
	for _, p := range s.Policies {
		isPolicy[p.Kind+"/"+p.Namespace+"/"+p.Name] = true
	}
	targeted := map[string]bool{}
	for _, p := range s.Policies {
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
			policies = append(policies, i)
		case targeted[k]:
			targets = append(targets, i)
		}
	}
	present := map[int]bool{}
	for i := range docs {
		present[i] = true
	}
	// The objects as they are now: a step applies a copy.
	current := make([]map[string]any, len(docs))
	copy(current, docs)
	n := rapid.IntRange(1, maxSteps).Draw(t, "steps")
	var steps []any
	for i := 0; i < n; i++ {
		var ops []string
		live, gone := split(policies, present)
		liveT, goneT := split(targets, present)
		if len(live) > 0 {
			ops = append(ops, opDeletePolicy)
		}
		if len(gone) > 0 {
			ops = append(ops, opRecreatePolicy)
		}
		if len(live) > 0 && len(policies) > 1 {
			ops = append(ops, opUpdateSpec, opRetarget)
		}
		if len(liveT) > 0 {
			ops = append(ops, opDeleteTarget)
		}
		if len(goneT) > 0 {
			ops = append(ops, opRecreateTarget)
		}
		if len(ops) == 0 {
			break
		}
		op := rapid.SampledFrom(ops).Draw(t, "op")
		step := map[string]any{"expect": map[string]any{"effectivePolicies": []any{}}}
		var obj int
		switch op {
		case opDeletePolicy, opDeleteTarget, opRecreatePolicy, opRecreateTarget:
			from := map[string][]int{opDeletePolicy: live, opDeleteTarget: liveT, opRecreatePolicy: gone, opRecreateTarget: goneT}[op]
			obj = rapid.SampledFrom(from).Draw(t, "object")
			deleting := op == opDeletePolicy || op == opDeleteTarget
			if deleting {
				step["delete"] = []any{docKey(docs[obj])}
			} else {
				step["apply"] = []any{applied(current[obj])}
			}
			present[obj] = !deleting
		case opUpdateSpec, opRetarget:
			obj = rapid.SampledFrom(live).Draw(t, "policy")
			other := rapid.SampledFrom(policies).Draw(t, "from")
			current[obj] = withSpecOf(current[obj], docs[other], op == opRetarget, withTargets)
			step["apply"] = []any{applied(current[obj])}
		}
		step["name"] = fmt.Sprintf("%d-%s-%s", i+1, op, name(docs[obj]))
		steps = append(steps, step)
	}
	if len(steps) == 0 {
		return StepCase{Docs: docs}, renderDocs(docs)
	}
	if docs[0]["kind"] != "Scenario" {
		// A drawn profile (a PolicyProfile document) has no header;
		// the profile is found among the documents.
		docs = append([]map[string]any{{
			"apiVersion": "gepcheck.dev/v1alpha1", "kind": "Scenario", "metadata": map[string]any{"name": "generated"},
			"spec": map[string]any{"description": "Drawn by gepcheck's generators; no expected outcome.", "citation": "none",
				"expect": map[string]any{"effectivePolicies": []any{}}},
		}}, docs...)
	}
	docs[0]["spec"].(map[string]any)["steps"] = steps
	return StepCase{Docs: docs, Steps: steps}, renderDocs(docs)
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

func parseDocs(data []byte) ([]map[string]any, error) {
	var out []map[string]any
	for _, part := range bytes.Split(data, []byte("\n---\n")) {
		part = bytes.TrimPrefix(part, []byte("---\n"))
		if len(bytes.TrimSpace(part)) == 0 {
			continue
		}
		var m map[string]any
		if err := yaml.Unmarshal(part, &m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func renderDocs(docs []map[string]any) []byte {
	var b strings.Builder
	for i, d := range docs {
		out, err := yaml.Marshal(d)
		if err != nil {
			continue
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(out)
	}
	return []byte(b.String())
}
