package runner

import (
	"fmt"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Scenarios are the scenario files of a run: the arguments, or, once a
// shard is picked, the files loaded (each parsed once, issue 32).
type Scenarios struct {
	Files  []string
	Loaded []scenarios.Loaded
	loaded bool
}

// Shard reads files (directories to their scenario files, in path order)
// and keeps shard sh's; random says random cases are drawn too, and may
// fill a shard without a file. Without a shard the files stay unread.
func Shard(files []string, sh suite.Shard, random bool) (Scenarios, error) {
	if sh.N == 0 || random && len(files) == 0 {
		return Scenarios{Files: files}, nil
	}
	all, err := scenarios.LoadPolicy(files)
	if err != nil {
		return Scenarios{}, exitcode.Input{Err: err}
	}
	out := Scenarios{loaded: true}
	for k, l := range all {
		if sh.Has(k) {
			out.Files = append(out.Files, l.File)
			out.Loaded = append(out.Loaded, l)
		}
	}
	if len(out.Files) == 0 && !random {
		return Scenarios{}, exitcode.Input{Err: fmt.Errorf("--shard %s: no scenario file of the %d falls in this shard", sh, len(all))}
	}
	return out, nil
}

// InCluster is c running s: the files a shard loaded go as read
// (incluster.Config.Loaded), not to be read again.
func (s Scenarios) InCluster(c incluster.Config) incluster.Config {
	c.Files, c.Loaded = s.Files, s.Loaded
	return c
}

// cases are s as cases of profiles (observe.LoadedCases).
func (s Scenarios) cases(profiles []string) ([]observe.Case, error) {
	if s.loaded {
		return observe.LoadedCases(s.Loaded, profiles)
	}
	return observe.ScenarioCases(s.Files, profiles)
}
