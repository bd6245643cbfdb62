package simulator

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// BuildPair's models are what Build gives for each state alone: on every
// step of the step scenarios (documents shared between states, stamped
// ones, replaced ones) the two outputs are byte for byte the separate
// builds' outputs.
func TestBuildPairIsBuild(t *testing.T) {
	files := []string{"../scenarios/gep-713/steps-inherited-over-time.yaml", "../scenarios/gep-713/steps-direct-conflict-over-time.yaml", "../scenarios/gateway-api/backendtlspolicy-conformance-backendtlspolicy.yaml"}
	states := func(f string) ([]State, Options) {
		docs, err := load.Read([]string{f}, nil)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Build(docs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		sts, err := States(docs, m.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		return sts, Options{Profiles: m.Scenario.Spec.Profiles}
	}
	out := func(m *Model) string {
		b, err := json.Marshal(m.Run(engine.StickyOverrides, nil))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	pairs := 0
	for _, f := range files {
		n, _ := states(f)
		for i := 1; i < len(n); i++ {
			sep, opts := states(f)
			var want [2]string
			for j, st := range []State{sep[i-1], sep[i]} {
				m, err := Build(st.Docs, opts)
				if err != nil {
					t.Fatal(err)
				}
				want[j] = out(m)
			}
			pair, _ := states(f)
			a, b, err := BuildPair(pair[i-1].Docs, pair[i].Docs, opts)
			if err != nil {
				t.Fatalf("%s step %d: %#v", f, i, err)
			}
			if got := out(a); got != want[0] {
				t.Errorf("%s step %d, before: BuildPair gives\n%s\nBuild\n%s", f, i, got, want[0])
			}
			if got := out(b); got != want[1] {
				t.Errorf("%s step %d, after: BuildPair gives\n%s\nBuild\n%s", f, i, got, want[1])
			}
			pairs++
		}
	}
	if pairs < 8 {
		t.Errorf("%d pairs, want at least 8", pairs)
	}
}

// A duplicate keeps its own place in each state: BuildPair's warnings (a
// duplicate of a kind gepcheck ignores) and errors (a duplicate of a kind
// it uses) are Build's, word for word, also when after holds the duplicate
// and before does not (docs/input.md, Duplicates). Both states are read
// as one file name, so that a shared document (named by before's file,
// BuildPair) reads as Build names it.
func TestBuildPairDuplicates(t *testing.T) {
	read := func(name, text string) []*load.Doc {
		docs, err := load.ReadBytes(name, []byte(text), load.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return docs
	}
	const base = `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p, namespace: default}
spec: {targetRef: {group: "", kind: Service, name: b}, color: red}
`
	const deployment = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: default}\n"
	const policy = "---\napiVersion: policies.controller.io/v1\nkind: ColorPolicy\nmetadata: {name: q, namespace: default}\nspec: {targetRef: {group: \"\", kind: Service, name: b}, color: blue}\n"
	opts := Options{Profiles: []string{"color-direct"}}
	for _, c := range []struct{ name, before, after string }{
		{"ignored kind, both states", base + deployment + deployment, base + deployment + deployment},
		{"ignored kind, after only", base + deployment, base + deployment + deployment},
		{"used kind, after only", base + policy, base + policy + policy},
	} {
		want := [2]string{}
		for i, text := range []string{c.before, c.after} {
			m, err := Build(read("state.yaml", text), opts)
			if err != nil {
				want[i] = "error: " + err.Error()
			} else {
				want[i] = strings.Join(m.Warnings, "\n")
			}
		}
		a, b, err := BuildPair(read("state.yaml", c.before), read("state.yaml", c.after), opts)
		var got [2]string
		if err != nil {
			got[1] = "error: " + err.Error()
			if !strings.HasPrefix(want[0], "error: ") {
				got[0] = want[0]
			}
		} else {
			got = [2]string{strings.Join(a.Warnings, "\n"), strings.Join(b.Warnings, "\n")}
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s, %s: BuildPair\n%s\nBuild\n%s", c.name, []string{"before", "after"}[i], got[i], want[i])
			}
		}
	}
}
