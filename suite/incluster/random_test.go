package incluster

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/features"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// The random cases of a run are read once each, in path order (as
// scenarios.Files lists the directory they are written to), each marked
// with the seed gepcheck gen prints it again from; a shard keeps its own.
func TestRandomCasesCarryTheirSeeds(t *testing.T) {
	cfg := Config{Random: 12, Seed: 5, Shard: suite.Shard{I: 1, N: 2}}
	parsed, stop := load.CountParses()
	drawn, dir, err := randomCases(&cfg, func(string) {})
	stop()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	files, err := scenarios.Files([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(drawn))
	for i, l := range drawn {
		got[i] = l.File
		if want := filepath.Join(dir, fmt.Sprintf("random-color-inherited-%d.yaml", l.Seed)); !l.Random || l.File != want || l.Err != nil || parsed[l.File] != 1 {
			t.Errorf("%s: random %v, seed %d (file %s), parsed %d times, %v", l.File, l.Random, l.Seed, want, parsed[l.File], l.Err)
		}
		if !cfg.Shard.Has(int(l.Seed - cfg.Seed)) {
			t.Errorf("%s: seed %d is not of shard %s", l.File, l.Seed, cfg.Shard)
		}
	}
	if !slices.Equal(got, files) || len(files) != 6 {
		t.Errorf("random cases %v, want the %d files of the shard written, in path order %v", got, len(files), files)
	}
	plans, err := plansOf(drawn, capsOnly{caps: Capabilities{Capabilities: observe.Capabilities{Features: features.All}}}, "r")
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range plans {
		if !p.Random || p.Seed != drawn[i].Seed {
			t.Errorf("%s: plan random %v, seed %d, want seed %d", p.File, p.Random, p.Seed, drawn[i].Seed)
		}
	}
}
