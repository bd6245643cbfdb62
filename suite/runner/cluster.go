package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/cluster/providers"
	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/findings"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/input"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Cluster is `gepcheck run --cluster` (docs/cluster.md): scenario files,
// and random cases, applied in a cluster.
type Cluster struct {
	// Provider is --cluster (providers.Lookup), Options how to connect.
	Provider   string
	Options    providers.Options
	Impl       impl.Implementation
	Config     impl.Config
	Semantics  engine.Semantics
	Vocabulary engine.Vocabulary
	// InCluster is the run's own configuration (files, random cases, limits);
	// its implementation, connection and offline form are set here.
	InCluster incluster.Config
	// Out is the directory of the shrunk random cases (--out; default:
	// the random cases').
	Out     string
	Results NewResults
}

// ClusterRun is what a cluster run did: the summary, the shrunk cases
// written as findings (Summary.Shrunk[i].File), and the reports' results.
type ClusterRun struct {
	Summary *incluster.Summary
	Results *report.Results
}

// Run runs c. An error is the user's (exitcode.Input), the implementation
// or the cluster failing to start or to run (input.EnvironmentOr), or a
// finding that could not be written.
func (c Cluster) Run(ctx context.Context) (*ClusterRun, error) {
	ic, err := c.Config.InCluster(ctx)
	if errors.Is(err, impl.ErrUnsupported) {
		return nil, exitcode.Input{Err: fmt.Errorf("--impl %s does not run in a cluster", c.Impl.Name())}
	}
	if err != nil {
		return nil, input.EnvironmentOr(err)
	}
	ic = incluster.ClaimingVocabulary(incluster.Claiming(ic, c.Semantics), c.Vocabulary)
	connect, err := providers.Lookup(c.Provider)
	if err != nil {
		return nil, exitcode.Input{Err: err}
	}
	cfg := c.InCluster
	cfg.Impl = ic
	cfg.Connect = func(ctx context.Context) (*cluster.Cluster, error) { return connect(ctx, c.Options) }
	cfg.Offline = c.offline(ctx)
	if fz, ok := c.Config.(differential.Fuzzer); ok {
		cfg.DefaultRandomProfile = fz.FuzzKinds()[0].Profile
	}
	sum, err := incluster.Run(cfg)
	if err != nil {
		return nil, input.EnvironmentOr(err)
	}
	if err := c.writeShrunk(sum); err != nil {
		return nil, err
	}
	out := &ClusterRun{Summary: sum}
	if c.Results != nil {
		caps := ic.Capabilities().Capabilities
		res := c.Results("cluster-"+c.Provider, c.Semantics, caps)
		rp := Replay{Mode: slices.Concat([]string{"--cluster", c.Provider}, QuietFlag(c.InCluster.Quiet)), Impl: c.Impl.Name(), Config: c.Config,
			Semantics: engine.Semantics(res.Semantics), Vocabulary: engine.Vocabulary(res.StatusVocabulary)}
		res.Cases = report.ClusterCases(sum.Results, rp.File, caps)
		if sum.Random > 0 {
			res.Campaigns = []report.Campaign{Campaign(sum, c.InCluster.Random, c.Provider, c.Impl.Name(), slices.Concat(ImplFlags(c.Config), SemanticsFlag(rp.Semantics), c.faultFlags()))}
		}
		out.Results = res
	}
	return out, nil
}

// offline is the implementation's offline form failures are replayed in
// (the translator's or the controller's), nil when it has none.
func (c Cluster) offline(ctx context.Context) observe.Observer {
	offline, err := impl.StartOffline(ctx, c.Config, c.Semantics, c.Vocabulary)
	if err != nil {
		if !errors.Is(err, impl.ErrUnsupported) && c.InCluster.Log != nil {
			c.InCluster.Log("failures are not replayed offline: " + err.Error())
		}
		return nil
	}
	return offline
}

// writeShrunk writes each case the cluster shrank as a finding, and
// records its file in sum.
func (c Cluster) writeShrunk(sum *incluster.Summary) error {
	dir := c.Out
	for i, sh := range sum.Shrunk {
		if dir == "" {
			dir = filepath.Dir(sh.From) // the random cases' directory, kept
		}
		replay := strings.Join(slices.Concat([]string{"gepcheck", "run", "--cluster", c.Provider}, QuietFlag(c.InCluster.Quiet), []string{"--impl", c.Impl.Name()}, ImplFlags(c.Config), []string{"FILE"}), " ")
		var file string
		var err error
		if sh.Scenario == nil {
			// A case with steps, as the shrinker last held it.
			if !sh.Case.Changes() {
				return fmt.Errorf("%s: not shrunk: %s", sh.From, sh.Stopped)
			}
			file, err = report.WriteFinding(dir, findings.ClusterPrefix+sum.RandomProfile, replay, sh.Kind.String(), "", differential.Disagreement{Case: sh.Case, State: sh.Result.State, Diff: sh.Result.Diff})
		} else {
			file, err = report.WriteFinding(dir, findings.ClusterPrefix+sum.RandomProfile, replay, sh.Kind.String(), "the profile "+sum.RandomProfile,
				differential.Disagreement{Case: generators.Case{Scenario: sh.Scenario}, Diff: sh.Result.Diff, Want: sh.Result.Want, Got: sh.Result.Got})
		}
		if err != nil {
			return err
		}
		sum.Shrunk[i].File = file
	}
	return nil
}

// faultFlags are --faults and --quiet-period as the run was given them,
// for the campaign's replay: the random cases are drawn with the faults.
func (c Cluster) faultFlags() []string {
	f := FaultFlags{Kinds: c.InCluster.Faults, quiet: c.InCluster.Quiet}
	return f.ReplayFlags()
}

// Campaign is the random cases of a cluster run as a campaign of the
// reports: how many disagreed, and the case shrunk in the cluster for
// each kind of difference (its case numbered from the campaign's seed, so
// that shards merge as fuzz campaigns do). total is --random.
func Campaign(sum *incluster.Summary, total int, clusterName, implName string, flags []string) report.Campaign {
	kind := sum.RandomProfile
	if profs, err := profile.Builtins(); err == nil && profs[sum.RandomProfile] != nil {
		kind = profs[sum.RandomProfile].Spec.Policy.Kind
	}
	c := report.Campaign{Kind: kind, Profile: sum.RandomProfile, Seed: uint64(sum.Seed), Checks: sum.Random,
		Replay: strings.Join(slices.Concat([]string{"gepcheck", "run", "--cluster", clusterName, "--impl", implName}, flags,
			[]string{"--random", fmt.Sprint(total), "--seed", fmt.Sprint(sum.Seed), "--random-profile", sum.RandomProfile}), " ")}
	for _, r := range sum.Results {
		if r.Plan.Random && r.Outcome == incluster.Fail {
			c.Disagreed++
		}
	}
	for _, sh := range sum.Shrunk {
		f := report.CampaignFinding{Kind: sh.Kind, Case: int(sh.Seed - sum.Seed), Differences: compare.Strings(sh.Result.Diff), Profiles: []string{sum.RandomProfile}, File: filepath.Base(sh.File)}
		if sh.Scenario != nil {
			f.Scenario = string(sh.Scenario.YAML())
		}
		c.Findings = append(c.Findings, f)
	}
	return c
}
