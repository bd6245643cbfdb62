package campaign

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/observe/observetest"
)

// newerWins is the reference with newer policies winning conflicts
// (engine.MutantNewerWins): a planted mistake a campaign must find; the
// reference itself without the mutant.
func newerWins(m engine.Mutant) observetest.Mutated {
	return observetest.Mutated{Named: "newer-wins", Mutant: m}
}

// colors fuzzes BackendTLSPolicy with Gateway API's profile.
type colors struct{}

func (colors) FuzzKinds() []differential.FuzzKind {
	return []differential.FuzzKind{{Kind: "BackendTLSPolicy", Profile: "backendtlspolicy-gateway-api"}}
}
func (colors) Describe() string      { return "colors" }
func (colors) ReplayFlags() []string { return nil }
func (colors) ProfileSource() string { return "the test" }

// TestRun: a campaign against an implementation that lets newer policies
// win finds it, with and without steps: each finding is written where the
// campaign says, the hooks hear of every kind found, and --fail-on-new's
// reason fails the campaign; against the reference itself nothing is
// found and every case is compared.
func TestRun(t *testing.T) {
	for _, steps := range []int{0, 2} {
		dir := t.TempDir()
		var known, judged []compare.Found
		var compared int
		c := Config{Impl: "test", Fuzzer: colors{}, Observer: newerWins(engine.MutantNewerWins), Seed: 1, Checks: 20, Steps: steps, OutDir: dir,
			Known: func(_ report.Campaign, found []compare.Found) error { known = found; return nil },
			New: func(_ report.Campaign, found []compare.Found, files map[string]string, n, _ int) (string, error) {
				judged, compared = found, n
				for k, f := range files {
					if _, err := os.Stat(f); err != nil {
						t.Errorf("steps %d: finding %s not at %s", steps, k, f)
					}
				}
				return "new kinds", nil
			}}
		var log bytes.Buffer
		camp, failed, err := Run(context.Background(), c, &log)
		if err != nil {
			t.Fatal(err)
		}
		if len(camp.Findings) == 0 || len(known) != len(camp.Findings) || len(judged) != len(known) {
			t.Fatalf("steps %d: %d findings, hooks told of %d and %d:\n%s", steps, len(camp.Findings), len(known), len(judged), log.String())
		}
		if len(failed) != 1 || failed[0] != "new kinds" || compared != 20 {
			t.Errorf("steps %d: failed %q after %d compared cases, want [new kinds] after 20", steps, failed, compared)
		}
		for _, f := range camp.Findings {
			if steps > 0 != strings.HasSuffix(f.File, "-steps.yaml") {
				t.Errorf("steps %d: finding written to %s", steps, f.File)
			}
			if _, err := os.Stat(filepath.Join(dir, f.File)); err != nil {
				t.Error(err)
			}
		}
		c.Observer, c.New = newerWins(""), nil
		if camp, failed, err := Run(context.Background(), c, &log); err != nil || len(camp.Findings) > 0 || len(failed) > 0 || camp.Checks != 20 {
			t.Errorf("steps %d: the reference against itself: %v, %d findings, failed %q, %d checks", steps, err, len(camp.Findings), failed, camp.Checks)
		}
	}
}
