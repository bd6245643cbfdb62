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

// RunAll's workers (gepcheck fuzz --parallel) give each property the
// verdict one worker gives, and report each once through done; go test
// -race in make ci runs this for the workers' goroutines.
func TestRunAllWorkers(t *testing.T) {
	ps := Properties()
	const checks = 30
	opts := Options{ShrinkTime: 100 * time.Millisecond}
	one := RunAll(ps, engine.MutantNewerWins, mutantSeed, checks, opts, 1, nil)
	done := map[string]int{}
	two := RunAll(ps, engine.MutantNewerWins, mutantSeed, checks, opts, 2, func(o Outcome) { done[o.Property]++ })
	failed := 0
	for i, p := range ps {
		if one[i].Property != p.Name || two[i].Property != p.Name || one[i].Passed != two[i].Passed {
			t.Errorf("%s: one worker %s passed=%v, two %s passed=%v", p.Name, one[i].Property, one[i].Passed, two[i].Property, two[i].Passed)
		}
		if done[p.Name] != 1 {
			t.Errorf("%s reported %d times through done", p.Name, done[p.Name])
		}
		if !one[i].Passed {
			failed++
		}
	}
	if failed == 0 {
		t.Errorf("no property failed against %s in %d checks: the comparison shows nothing", engine.MutantNewerWins, checks)
	}
}
