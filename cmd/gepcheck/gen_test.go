package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

func gen(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd := newGen(&out)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SilenceUsage = true
	cmd.SilenceErrors = true
	err := cmd.Execute()
	return out.String(), err
}

// The same flags print the same bytes, and the first line reproduces them.
func TestGenReproducible(t *testing.T) {
	for _, args := range [][]string{
		{"--seed", "7"},
		{"--seed", "7", "--profile", "color-inherited"},
		{"--seed", "42", "--generic"},
		{"--seed", "3", "--max-objects", "8", "--max-policies", "2"},
	} {
		a, err := gen(t, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		b, err := gen(t, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if a != b {
			t.Fatalf("%v: two runs differ", args)
		}
		first, _, _ := strings.Cut(a, "\n")
		if !strings.HasPrefix(first, "# gepcheck gen --seed ") {
			t.Fatalf("%v: first line %q", args, first)
		}
		// Running the command of the first line prints the same scenario.
		again, err := gen(t, strings.Fields(strings.TrimPrefix(first, "# gepcheck gen "))...)
		if err != nil {
			t.Fatalf("%s: %v", first, err)
		}
		if again != a {
			t.Fatalf("%v: %q does not reproduce the output", args, first)
		}
	}
	if a, _ := gen(t, "--seed", "1"); a == mustGen(t, "--seed", "2") {
		t.Fatalf("seeds 1 and 2 print the same scenario")
	}
}

func mustGen(t *testing.T, args ...string) string {
	t.Helper()
	out, err := gen(t, args...)
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return out
}

// Every output loads and runs: 50 seeds of every profile, and generic.
func TestGenLoads(t *testing.T) {
	variants := [][]string{{"--generic"}, {}}
	for _, p := range generators.ProfileNames {
		variants = append(variants, []string{"--profile", p})
	}
	for _, v := range variants {
		for seed := 0; seed < 50; seed++ {
			args := append([]string{"--seed", fmt.Sprint(seed)}, v...)
			out := mustGen(t, args...)
			m, err := simulator.LoadFiles([]string{"-"}, strings.NewReader(out), simulator.Options{})
			if err != nil {
				t.Fatalf("gen %v does not load: %v\n%s", args, err, out)
			}
			if len(m.Kinds) != 1 || len(m.Kinds[0].Policies) == 0 {
				t.Fatalf("gen %v: %d policy kinds", args, len(m.Kinds))
			}
			m.Run(engine.StickyOverrides, nil)
		}
	}
	// Through the CLI, as a user would pipe it.
	out := mustGen(t, "--seed", "5", "--profile", "color-direct")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"simulate", "-f", "-", "-o", "json"}, strings.NewReader(out), &stdout, &stderr); code != exitcode.OK {
		t.Fatalf("simulate exit %d: %s", code, stderr.String())
	}
}

func TestGenBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--seed", "1", "--profile", "no-such-profile"},
		{"--seed", "1", "--generic", "--profile", "all-levels"},
		{"--seed", "1", "--max-objects", "2"},
		{"--seed", "1", "--max-policies", "-1"},
		{"extra-argument"},
	} {
		if _, err := gen(t, args...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
	_, err := gen(t, "--profile", "nope")
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown profile: error %v does not name it", err)
	}
}

// gen draws the inherited-semantics and Envoy Gateway profiles too; each
// output simulates with at least one effective policy for most seeds.
func TestGenInheritedAndEnvoyGatewayProfiles(t *testing.T) {
	for _, p := range []string{"kuadrant-ratelimitpolicy", "field-level", "envoy-gateway-backendtrafficpolicy", "envoy-gateway-clienttrafficpolicy", "envoy-gateway-securitypolicy"} {
		var out, errb bytes.Buffer
		if code := run([]string{"gen", "--seed", "5", "--profile", p}, nil, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", p, code, errb.String())
		}
		var sim bytes.Buffer
		if code := run([]string{"simulate", "-f", "-", "-o", "json"}, &out, &sim, &errb); code != 0 {
			t.Errorf("%s: generated YAML does not simulate: %s", p, errb.String())
		}
	}
}

// TestGenAbsurdFlags: sizes past the documented limits are refused with
// the limit named, exit 2, before anything is drawn (docs/limits.md).
func TestGenAbsurdFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"gen", "--seed", "1", "--max-objects", "100000000"}, "--max-objects 100000000: from 1 to 2000"},
		{[]string{"gen", "--seed", "1", "--max-objects", "-1"}, "--max-objects -1"},
		{[]string{"gen", "--seed", "1", "--max-policies", "1000000"}, "--max-policies 1000000: from 1 to 1000"},
		{[]string{"gen", "--workload-routes", "-1"}, "--workload-routes -1: from 1 to 100000"},
		{[]string{"gen", "--workload-routes", "0"}, "--workload-routes 0"},
		{[]string{"gen", "--workload-routes", "100000000"}, "--workload-routes 100000000"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(c.args, strings.NewReader(""), &stdout, &stderr); code != exitcode.BadInput || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr.String(), exitcode.BadInput, c.want)
		}
	}
}
