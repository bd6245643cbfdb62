package suite

import (
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/simulator/engine"
)

// mutantChecks is how many random cases a property gets to reject a
// mutant; the seed is fixed so that the verdict is the same on every run.
const (
	mutantChecks = 300
	mutantSeed   = 20261122
)

// TestMutantsAreKilled runs every property against each deliberately broken
// engine it claims to catch: a property that cannot fail proves nothing.
func TestMutantsAreKilled(t *testing.T) {
	claimed := map[engine.Mutant]bool{}
	for _, p := range Properties() {
		for _, m := range p.Kills {
			claimed[m] = true
			t.Run(p.Name+"/"+string(m), func(t *testing.T) {
				out := Run(p, m, mutantSeed, mutantChecks, Options{ShrinkTime: 200 * time.Millisecond})
				if out.Passed {
					t.Errorf("mutant %s survives %s: %d checks with seed %d found no counterexample", m, p.Name, mutantChecks, mutantSeed)
				}
			})
		}
	}
	for _, m := range engine.Mutants {
		if !claimed[m] {
			t.Errorf("mutant %s is claimed by no property", m)
		}
	}
}

// The runner used by `gepcheck fuzz` passes on the reference engine: a
// recorder that always failed would make every mutant look killed.
func TestRunnerPassesReference(t *testing.T) {
	p, ok := Lookup("ordering/rules-1-3")
	if !ok {
		t.Fatal("no property ordering/rules-1-3")
	}
	if out := Run(p, "", mutantSeed, 50, Options{}); !out.Passed {
		t.Fatalf("reference engine fails through the runner:\n%s", out.Log)
	}
}
