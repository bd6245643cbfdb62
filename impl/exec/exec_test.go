package exec

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/features"
	"github.com/gepcheck/gepcheck/suite/observe"
)

func colorDirectCase(s *generators.Scenario) observe.Case {
	return observe.Case{Name: "case", YAML: string(s.YAML()), Profiles: []string{"color-direct"}}
}

// The example implementation of docs/exec-protocol.md agrees with the
// reference engine on random GEP-713 Example 1 (Direct ColorPolicy, None)
// scenarios: the exec driver and its protocol work end to end.
func TestExecExampleAgreesWithReference(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found: the example implementation is a Python script")
	}
	// One process per case, each a Python start: a fixed sample of seeds
	// keeps this test short and its verdict stable.
	ex := &Exec{Command: []string{"../../docs/examples/colorpolicy-direct.py"}, Features: features.Set{"ColorPolicy"}, Parallelism: 2}
	gen := generators.Scenarios(generators.Config{Profile: "color-direct", MaxPolicies: 5})
	var cases []observe.Case
	for seed := 0; seed < 12; seed++ {
		cases = append(cases, colorDirectCase(gen.Example(seed)))
	}
	// The example writes merged GEP-713's status vocabulary (Programmed).
	claim := observe.Capabilities{Vocabulary: engine.VocabularyMerged}
	want := observe.Reference(cases, claim)
	got, err := ex.Observe(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	for i := range cases {
		if d := compare.Strings(compare.Diff(want[i], got[i], claim)); len(d) > 0 {
			t.Errorf("seed %d: the example implementation disagrees with the reference:\n%s\n%s", i, strings.Join(d, "\n"), cases[i].YAML)
		}
	}
}

// A broken implementation is reported per case, never as a pass and never
// as a crash (issue: Robustness). The timeouts do not race the machine's
// speed: a command that ends has a minute, and the one that must time out
// never ends (it is killed after 2 s, long before its sleep would end).
func TestExecFailures(t *testing.T) {
	c := observe.Case{Name: "c", YAML: "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"}
	for name, tc := range map[string]struct {
		cmd     []string
		timeout time.Duration
		want    string
	}{
		"exit code":   {[]string{"sh", "-c", "echo boom >&2; exit 3"}, time.Minute, "exit status 3: boom"},
		"garbage":     {[]string{"sh", "-c", "echo not json"}, time.Minute, "stdout is not an observation"},
		"wrong shape": {[]string{"sh", "-c", `echo '{"effective": [], "surprise": 1}'`}, time.Minute, "unknown field"},
		"timeout":     {[]string{"sleep", "600"}, 2 * time.Second, "timed out after 2s"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := &Exec{Command: tc.cmd, Timeout: tc.timeout}
			start := time.Now()
			obs, err := d.Observe(context.Background(), []observe.Case{c})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(obs[0].Error, tc.want) {
				t.Errorf("error %q does not mention %q", obs[0].Error, tc.want)
			}
			if d := time.Since(start); d > 5*time.Minute {
				t.Errorf("the case took %s: its command was not killed", d)
			}
			if len(compare.Diff(observe.Observation{}, obs[0], observe.Capabilities{})) == 0 {
				t.Errorf("a failed case compares equal to an empty observation")
			}
		})
	}
}

// The command gets a scenario file's objects, not its answer: the Scenario
// document with its expected outcome (and a Finding's) is not on stdin nor
// in $GEPCHECK_CASE_JSON.
func TestExecWithholdsTheAnswer(t *testing.T) {
	data, err := os.ReadFile("../../scenarios/gep-713/example-2-defaults-and-overrides.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := observe.Case{Name: "c", YAML: string(data)}
	// Fails, naming what it saw, if the answer reaches it; else reports
	// how many policies it was given.
	script := `in=$(cat); js=$(cat "$GEPCHECK_CASE_JSON")
for s in "$in" "$js"; do case "$s" in *Scenario*|*expect*) echo "saw the answer" >&2; exit 1;; esac; done
n=$(printf '%s' "$in" | grep -c '^kind: ColorPolicy'); echo "$n policies" >&2; exit 1`
	obs, err := (&Exec{Command: []string{"sh", "-c", script}}).Observe(context.Background(), []observe.Case{c})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(obs[0].Error, ": 4 policies") {
		t.Errorf("the command saw: %s", obs[0].Error)
	}
}
