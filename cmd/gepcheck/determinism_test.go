package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/admission"
	"github.com/gepcheck/gepcheck/admission/scenario"
	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// The same input gives byte-identical output, whatever the document order:
// for every scenario file and for generated scenarios, simulate, explain
// --target (every object on a path or reported on) and explain --policy
// (every policy), in table and JSON, print the same bytes, the same errors
// and the same exit code on repeated runs and on permutations of the input
// documents.
func TestOutputDeterministic(t *testing.T) {
	type input struct {
		name string
		yaml string
		// cmds, for an admission scenario, are gepcheck admission
		// simulate and explain on each case's request.
		cmds [][]string
	}
	var inputs []input
	var files []string
	for _, g := range []string{"../../scenarios/*/*.yaml", "../../scenarios/findings/*/*.yaml", "../../simulator/testdata/*.yaml"} {
		fs, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	for _, f := range files {
		if cmds := admissionCommands(t, f); cmds != nil {
			data, err := readFile(f)
			if err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, input{strings.TrimPrefix(f, "../../"), data, cmds})
			continue
		}
		m, err := simulator.LoadFiles([]string{f}, nil, simulator.Options{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if m.FindingImplementation != "" {
			continue // evidence about an implementation, not gepcheck's answer
		}
		data, err := readFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{strings.TrimPrefix(f, "../../"), data, nil})
	}
	if len(inputs) < 30 {
		t.Fatalf("only %d scenario files", len(inputs))
	}
	gen := map[string]func(seed int) *generators.Scenario{
		"gateway-api": func(seed int) *generators.Scenario {
			return generators.Scenarios(generators.Config{MaxObjects: 10, MaxPolicies: 5}).Example(seed)
		},
		"patch-flat": func(seed int) *generators.Scenario {
			return generators.Scenarios(generators.Config{MaxObjects: 8, MaxPolicies: 5, FlatSpecs: true, Profile: "color-inherited"}).Example(seed)
		},
		"generic": func(seed int) *generators.Scenario {
			return generators.GenericScenarios(generators.Config{MaxObjects: 6, MaxPolicies: 4}).Example(seed)
		},
		"field-level": func(seed int) *generators.Scenario {
			return generators.FieldLevelScenarios(generators.InheritedConfig{MaxPolicies: 4}).Example(seed)
		},
		"kuadrant": func(seed int) *generators.Scenario {
			return generators.KuadrantScenarios(generators.InheritedConfig{MaxPolicies: 4}).Example(seed)
		},
	}
	for _, name := range []string{"gateway-api", "patch-flat", "generic", "field-level", "kuadrant"} {
		for seed := 0; seed < 2; seed++ {
			inputs = append(inputs, input{fmt.Sprintf("generated %s seed %d", name, seed), string(gen[name](seed).YAML()), nil})
		}
	}
	for i, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			checkDeterministic(t, in.yaml, int64(i), in.cmds)
		})
	}
}

const (
	repeats      = 5 // runs of the input as it is
	permutations = 2 // runs of shuffled inputs, one each
	// At most this many objects and policies are explained per input (3
	// and 2 in inputs of more than 40 documents), spread over the sorted
	// list, to keep the test under 20 s.
	maxTargets, maxPolicies = 6, 4
)

// spread picks at most n elements of s, evenly spaced, first and last
// included.
func spread(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, s[i*(len(s)-1)/(n-1)])
	}
	return out
}

func checkDeterministic(t *testing.T, yaml string, seed int64, cmds [][]string) {
	t.Helper()
	inputs := []string{}
	for i := 0; i < repeats; i++ {
		inputs = append(inputs, yaml)
	}
	rng := rand.New(rand.NewSource(seed))
	head, docs := splitDocs(yaml)
	if len(docs) < 2 && cmds == nil {
		t.Fatalf("%d documents to shuffle", len(docs))
	}
	for i := 0; i < permutations && len(docs) > 1; i++ {
		p := slices.Clone(docs)
		for try := 0; slices.Equal(p, docs); try++ {
			if try == 100 {
				t.Fatal("no permutation of the documents differs from the input")
			}
			rng.Shuffle(len(p), func(a, b int) { p[a], p[b] = p[b], p[a] })
		}
		inputs = append(inputs, strings.Join(append(head, p...), "\n---\n")+"\n")
	}

	if cmds != nil {
		runDeterministic(t, cmds, inputs)
		return
	}
	// The commands: simulate, then explain every object and every policy
	// the simulation names.
	var sim simulator.Output
	if code, stdout, stderr := gepcheck([]string{"simulate", "-f", "-", "-o", "json"}, yaml); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	} else if err := json.Unmarshal([]byte(stdout), &sim); err != nil {
		t.Fatal(err)
	}
	var targets, policies []string
	for _, e := range sim.EffectivePolicies {
		targets = append(targets, e.Path...)
	}
	for _, ts := range sim.Targets {
		targets = append(targets, ts.Ref)
	}
	for _, p := range sim.Policies {
		policies = append(policies, p.Ref)
		for _, pt := range p.Targets {
			targets = append(targets, pt.Ref)
		}
	}
	slices.Sort(targets)
	targets = slices.Compact(targets)
	slices.Sort(policies)
	policies = slices.Compact(policies)
	nt, np := maxTargets, maxPolicies
	if len(docs) > 40 {
		nt, np = 3, 2
	}
	targets, policies = spread(targets, nt), spread(policies, np)
	// simulate --impl reference: both answers and their differences
	// (suite/sidebyside), deterministic too.
	cmds = [][]string{{"simulate"}, {"simulate", "--semantics", "gep-713"}, {"simulate", "--impl", "reference"}}
	for _, x := range targets {
		cmds = append(cmds, []string{"explain", "--target", x})
	}
	for _, p := range policies {
		cmds = append(cmds, []string{"explain", "--policy", p})
	}
	if len(policies) > 0 && seed%10 == 0 {
		// explain --impl --policy: the implementation's answer field by
		// field beside the reference's (suite/sidebyside), one policy,
		// on one input in ten (on every input it costs 50 s).
		cmds = append(cmds, []string{"explain", "--impl", "reference", "--policy", policies[0]})
	}
	runDeterministic(t, cmds, inputs)
}

// runDeterministic runs each command on every input, in table and JSON
// (-o), and fails where an output differs from the first.
func runDeterministic(t *testing.T, cmds [][]string, inputs []string) {
	t.Helper()
	for _, cmd := range cmds {
		for _, format := range []string{"table", "json"} {
			args := append(slices.Clone(cmd), "-f", "-", "-o", format)
			if cmd[0] == "admission" && cmd[1] == "explain" {
				if format == "json" {
					continue // explain prints a table only
				}
				args = append(slices.Clone(cmd), "-f", "-")
			}
			var first string
			for i, in := range inputs {
				code, stdout, stderr := gepcheck(args, in)
				got := fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
				if i == 0 {
					if code != 0 && cmd[0] == "admission" {
						t.Fatalf("gepcheck %s: exit %d: %s", strings.Join(args, " "), code, stderr)
					}
					first = got
					continue
				}
				if got != first {
					what := fmt.Sprintf("run %d of the input as it is", i+1)
					if i >= repeats {
						what = fmt.Sprintf("permutation %d of the documents", i-repeats+1)
					}
					t.Fatalf("gepcheck %s: %s differs from the first run:\n%s\n\nfirst run:\n%s\n\ninput:\n%s", strings.Join(args, " "), what, firstDiff(first, got), first, in)
				}
			}
		}
	}
}

// admissionCommands are, for an admission scenario file, gepcheck
// admission simulate on each case's request with its behaviours, and
// explain of the first hook the case expects called; nil for another file.
func admissionCommands(t *testing.T, file string) [][]string {
	docs, err := load.Read([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Read(docs, admission.Builtin())
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if s == nil {
		return nil
	}
	flags := map[admission.Behaviour]string{admission.Down: "--down", admission.Slow: "--slow", admission.Error: "--failing", admission.Deny: "--deny", admission.Patch: "--patch"}
	var cmds [][]string
	for _, c := range s.Cases {
		args := []string{"--request", admission.Describe(c.Request)}
		for _, id := range slices.Sorted(maps.Keys(c.Behave)) {
			if f, ok := flags[c.Behave[id]]; ok {
				args = append(args, f, id)
			}
		}
		cmds = append(cmds, append([]string{"admission", "simulate"}, args...))
		if called := append(slices.Clone(c.Expect.Mutating), c.Expect.Validating...); len(called) > 0 {
			cmds = append(cmds, append(append([]string{"admission", "explain"}, args...), called[0]))
		}
	}
	return cmds
}

// splitDocs splits multi-document YAML into a head that stays in front (a
// leading Scenario document, comments before the first document) and the
// documents to shuffle.
func splitDocs(yaml string) (head, docs []string) {
	var cur []string
	flush := func() {
		d := strings.TrimSpace(strings.Join(cur, "\n"))
		cur = nil
		if d == "" || onlyComments(d) {
			return
		}
		docs = append(docs, d)
	}
	for _, l := range strings.Split(yaml, "\n") {
		if strings.TrimRight(l, " ") == "---" {
			flush()
			continue
		}
		cur = append(cur, l)
	}
	flush()
	if len(docs) > 0 && isScenario(docs[0]) {
		return docs[:1], docs[1:]
	}
	return nil, docs
}

func onlyComments(d string) bool {
	for _, l := range strings.Split(d, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return false
		}
	}
	return true
}

func isScenario(d string) bool {
	for _, l := range strings.Split(d, "\n") {
		if strings.TrimSpace(l) == "kind: Scenario" && !strings.HasPrefix(l, " ") {
			return true
		}
	}
	return false
}

func gepcheck(args []string, stdin string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  first: %s\n  this:  %s", i+1, x, y)
		}
	}
	return "(no line differs)"
}
