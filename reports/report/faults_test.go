package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/fault"
	"github.com/gepcheck/gepcheck/suite/incluster"
)

// A case with faults prints what they and the oracles did under its line;
// a case without prints as before (docs/faults.md).
func TestClusterRunFaults(t *testing.T) {
	plan := &incluster.Plan{Name: "c", File: "c.yaml"}
	plain := incluster.Result{Plan: plan, Outcome: incluster.Pass}
	faulted := plain
	faulted.Faults = []fault.Fault{{Kind: fault.Restart, AfterWrites: 1}, {Kind: fault.Ties, State: 1, Seed: 5}}
	faulted.Oracles = []incluster.Oracle{{Name: incluster.OracleStability, Compared: 8}, {Name: incluster.OracleConvergence, Compared: 10}}
	faulted.Restarts, faulted.QuietWrites, faulted.Flips = 2, 1, 0
	if got := faultLines(plain); got != nil {
		t.Errorf("a case without faults prints %q", got)
	}
	want := []string{"faults: restart at state 0 after 1 status writes; ties at state 1 (seed 5)",
		"oracles: stability (8 compared), convergence (10 compared); quiet period: 1 status writes, 0 flipping; 2 controller restarts"}
	if got := faultLines(faulted); !slices.Equal(got, want) {
		t.Errorf("faultLines\n%q, want\n%q", got, want)
	}
	var b bytes.Buffer
	ClusterRun(&b, &incluster.Summary{Results: []incluster.Result{plain}, Plans: 1})
	if strings.Contains(b.String(), "faults:") || strings.Count(b.String(), "\n") != 4 {
		t.Errorf("a run without faults printed:\n%s", b.String())
	}
}
