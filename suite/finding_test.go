package suite

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/gepcheck/gepcheck/simulator"
)

var updateFindings = flag.Bool("update-findings", false, "rewrite scenarios/findings/ from the finding properties")

const (
	findingsDir   = "../scenarios/findings"
	findingSeed   = 713
	findingChecks = 2000
)

// TestFindings: each finding property still finds its disagreement on the
// reference engine, and the kept, shrunk counterexample still shows it.
// `go test ./suite/ -run TestFindings -update-findings` rewrites the files.
func TestFindings(t *testing.T) {
	for _, p := range Properties() {
		if !p.Finding {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			name := filepath.Base(p.Name)
			file := filepath.Join(findingsDir, name+".yaml")
			if *updateFindings {
				out := Run(p, "", findingSeed, findingChecks, Options{})
				if out.Passed {
					t.Fatalf("%s found no disagreement in %d checks (seed %d)", p.Name, findingChecks, findingSeed)
				}
				if _, err := WriteFinding(findingsDir, name, out); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := os.Stat(file); err != nil {
				t.Fatalf("no finding kept for %s: run go test ./suite/ -run TestFindings -update-findings", p.Name)
			}
			m, err := simulator.LoadFiles([]string{file}, nil, simulator.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if m.Finding == "" {
				t.Errorf("%s has no Finding document", file)
			}
			if len(Disagreements(m)) == 0 {
				t.Errorf("%s: gep713 and sticky-overrides no longer disagree on the kept scenario", file)
			}
		})
	}
}
