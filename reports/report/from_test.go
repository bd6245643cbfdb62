package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// A random case drawn in a cluster run (Plan.Random) is named by its file
// alone: the temporary directory it was drawn into differs from run to
// run, and the same run must give the same report (cluster-test merges
// shards).
func TestClusterCasesRandomFileName(t *testing.T) {
	dir, err := os.MkdirTemp(t.TempDir(), incluster.RandomDirPrefix)
	if err != nil {
		t.Fatal(err)
	}
	random := filepath.Join(dir, "random-color-inherited-7.yaml")
	scenario := filepath.Join(t.TempDir(), "kept.yaml")
	for _, f := range []string{random, scenario} {
		if err := os.WriteFile(f, []byte("# gepcheck gen --seed 7 --profile color-inherited\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := ClusterCases([]incluster.Result{
		{Plan: &incluster.Plan{File: random, Random: true, Name: "r"}, Outcome: incluster.Pass},
		{Plan: &incluster.Plan{File: scenario, Name: "s"}, Outcome: incluster.Pass},
	}, func(f string) string { return "replay " + f }, observe.Capabilities{})
	if got[0].File != "random-color-inherited-7.yaml" || got[0].Replay != "replay random-color-inherited-7.yaml" {
		t.Errorf("random case: file %q, replay %q", got[0].File, got[0].Replay)
	}
	if got[1].File != scenario {
		t.Errorf("scenario file %q, want %q", got[1].File, scenario)
	}
}
