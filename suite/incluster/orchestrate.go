package incluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/cluster/watchproxy"
	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator/fault"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Config is one conformance run in a cluster.
type Config struct {
	Impl Implementation
	// Connect returns the cluster (starting it, for a local control
	// plane); it is called once the scenarios have been read.
	Connect func(ctx context.Context) (*cluster.Cluster, error)
	// Files are scenario files and directories, read by Run; Loaded,
	// when set, are the scenario files already read
	// (scenarios.LoadPolicy, as runner.Shard keeps them), run without
	// reading them again (issue 32), and Files is then not read.
	Files  []string
	Loaded []scenarios.Loaded
	// Random more scenarios drawn from RandomProfile (default
	// DefaultRandomProfile), seeds Seed, Seed+1, … (Seed 0: from the
	// clock, logged).
	Random               int
	Seed                 int64
	RandomProfile        string
	DefaultRandomProfile string
	// RandomSteps, when set, gives each random scenario up to this many
	// changes over time (gepcheck gen --steps).
	RandomSteps int
	// Shard, when set, keeps the random cases of this shard (case k has
	// seed Seed+k; suite.Shard); it needs Seed, so that the shards draw
	// from one campaign. Files are sharded by the caller.
	Shard suite.Shard
	// Offline, when set, is the implementation's offline form: each
	// failure is replayed through it (Replay).
	Offline observe.Observer
	// ShrinkTime, when set, bounds shrinking the failed random cases in
	// the cluster, one per kind of difference (Runner.Shrink).
	ShrinkTime time.Duration

	// StartController runs the implementation's controller as a local
	// process (Implementation.Start).
	StartController bool
	Parallel        int
	StepTimeout     time.Duration
	LabelFilter     string
	JUnitReport     string
	Keep, Verbose   bool
	Log             func(string)
	// Musts, when set, also judges the MUST checks (Runner.Musts) once
	// the scenarios have run; Files may then be empty.
	Musts bool
	// Faults are the kinds of perturbation the random cases are drawn
	// with (run --faults; generators.PrintOptions.Faults; docs/faults.md).
	Faults []fault.Kind
	// Quiet is the quiet period of the stability oracle (Options.Quiet).
	Quiet time.Duration
}

// Summary is a finished run.
type Summary struct {
	Impl, Cluster string
	Plans         int
	Results       []Result
	// Passed: every spec passed or was skipped.
	Passed bool
	// Shrunk are the random cases shrunk in the cluster, one per kind of
	// difference (Config.ShrinkTime).
	Shrunk []Shrunk
	// RandomProfile is the profile of the random cases, Seed the seed of
	// the first and Random how many this run drew (its shard's).
	RandomProfile string
	Seed          int64
	Random        int
	// Musts are the MUST checks' outcomes (Config.Musts).
	Musts []MustResult
}

// Count returns how many results had outcome o.
func (s *Summary) Count(o Outcome) int {
	n := 0
	for _, r := range s.Results {
		if r.Outcome == o {
			n++
		}
	}
	return n
}

// OK says the run passed: no failure, no error.
func (s *Summary) OK() bool { return s.Passed && s.Count(Fail)+s.Count(Error) == 0 }

// RandomKinds are the kinds of difference (compare.Kinds) of every failed
// random case, after a step when first seen after a change, sorted as
// printed: what the kept findings must triage, shrunk or not.
func (s *Summary) RandomKinds() []compare.Found {
	seen := map[compare.Found]bool{}
	for _, r := range s.Results {
		if r.Outcome != Fail || !r.Plan.Random {
			continue
		}
		for _, k := range compare.Kinds(r.Diff) {
			seen[compare.Found{Kind: k, AfterStep: r.State > 0}] = true
		}
	}
	return slices.SortedFunc(maps.Keys(seen), func(a, b compare.Found) int { return strings.Compare(a.String(), b.String()) })
}

// Run reads the scenarios, connects, installs the CRDs the implementation
// needs, starts its controller if asked, runs every scenario as a Ginkgo
// spec, and removes what it created: at the end, after a failure and on
// SIGINT/SIGTERM. An error means the run could not be made (bad
// scenarios, no cluster); failing scenarios are in the Summary.
func Run(cfg Config) (*Summary, error) {
	logf := cfg.Log
	if logf == nil {
		logf = func(string) {}
	}
	loaded, randomDir, err := scenarioPaths(&cfg, logf)
	if err != nil {
		return nil, err
	}
	// Until the Ginkgo suite runs (it handles signals itself), an
	// interrupt cancels the setup and the deferred cleanup runs.
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()

	im := cfg.Impl
	run := randomID()
	plans, err := plansOf(loaded, im, run)
	if err != nil {
		return nil, err
	}
	c, err := cfg.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if c.Stop != nil {
		defer stopControlPlane(c, logf)
	}
	if err := InstallCRDs(ctx, c, im); err != nil {
		return nil, err
	}
	ok := false // keeps the controller's log and random cases when the run did not pass
	if randomDir != "" {
		defer keepUnlessOK(&ok, randomDir, "the random cases are kept in "+randomDir+" (gepcheck run --cluster … FILE replays one)", logf)
	}
	faulted := withFaults(plans)
	var ctl *Local
	var watches Watches
	if cfg.StartController {
		// A plan with a delay fault needs the controller's watches to go
		// through the watch proxy (docs/faults.md, delay).
		ctlCluster := c
		if withDelay(plans) {
			px, err := watchproxy.Start(c, logf)
			if err != nil {
				return nil, err
			}
			defer px.Close()
			ctlCluster, watches = px.Cluster(), px
		}
		var stop func()
		if ctl, stop, err = startController(ctx, ctlCluster, im, &ok, logf); err != nil {
			return nil, err
		}
		defer stop()
	}
	k, err := cluster.NewKube(c)
	if err != nil {
		return nil, err
	}
	runner := newRunner(&cfg, k, run, ctl, faulted, len(plans), logf)
	runner.Watches = watches
	sel := cluster.LabelManagedBy + "=" + cluster.ManagedBy + "," + cluster.LabelRun + "=" + run
	cleanup := cleanupOf(c, sel, cfg.Keep, logf)
	defer cleanup()
	logf(fmt.Sprintf("run %s: %d scenarios against %s on cluster %s (objects labelled %s)", run, len(plans), im.Name(), c.Name, sel))
	stopSignals() // Ginkgo handles SIGINT/SIGTERM from here: it interrupts the spec and runs the cleanup.
	s := &Suite{Runner: runner, Plans: plans, Parallel: cfg.Parallel, LabelFilter: cfg.LabelFilter, JUnitReport: cfg.JUnitReport, Verbose: cfg.Verbose, Cleanup: cleanup}
	passed := true
	if len(plans) > 0 {
		if passed, err = s.Run(fmt.Sprintf("gepcheck conformance: %s on %s", im.Name(), c.Name)); err != nil {
			return nil, err
		}
	}
	var musts []MustResult
	if cfg.Musts {
		musts = runMusts(runner, len(plans), logf)
	}
	sum := &Summary{Impl: im.Name(), Cluster: c.Name, Plans: len(plans), Results: s.Results, Passed: passed, RandomProfile: cfg.randomProfile(),
		Seed: cfg.Seed, Random: random(loaded), Musts: musts}
	if s.Interrupted && cfg.ShrinkTime > 0 && randomDir != "" {
		logf("interrupted: the failed random cases are not shrunk")
	}
	if cfg.ShrinkTime > 0 && randomDir != "" && !s.Interrupted {
		// Ginkgo no longer handles signals: an interrupt ends shrinking,
		// and the deferred cleanup runs.
		sctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		sum.Shrunk = shrinkRandom(sctx, runner, &cfg, s.Results, randomDir, logf)
		stop()
	}
	if cfg.Offline != nil {
		replayFailures(cfg.Offline, sum)
	}
	ok = sum.OK() && len(sum.MustsBroken()) == 0
	return sum, nil
}

// scenarioPaths reads the scenario files of cfg, each once (none when
// cfg.Loaded holds them read), with the random cases it asks for written
// to randomDir.
func scenarioPaths(cfg *Config, logf func(string)) (loaded []scenarios.Loaded, randomDir string, err error) {
	loaded = slices.Clone(cfg.Loaded)
	if cfg.Loaded == nil {
		if loaded, err = scenarios.LoadPolicy(cfg.Files); err != nil {
			return nil, "", err
		}
	}
	if cfg.Random > 0 {
		var drawn []scenarios.Loaded
		if drawn, randomDir, err = randomCases(cfg, logf); err != nil {
			return nil, "", err
		}
		loaded = append(loaded, drawn...)
	}
	if len(loaded) == 0 && !cfg.Musts {
		return nil, "", errors.New("no scenarios: pass files or directories, --random N or --musts")
	}
	return loaded, randomDir, nil
}

// newRunner is the run's Runner, with the controller under its control
// when the run started it; a run with faulted plans (of plans) runs them
// one at a time: a restart is the whole controller's, and a burst must
// not share the API server with other cases' waves.
func newRunner(cfg *Config, k *cluster.Kube, run string, ctl *Local, faulted, plans int, logf func(string)) *Runner {
	r := &Runner{Kube: k, Impl: cfg.Impl, Run: run, Opts: Options{StepTimeout: cfg.StepTimeout, Keep: cfg.Keep, Quiet: cfg.Quiet}}
	if ctl != nil {
		r.Controller = ctl
	}
	if faulted > 0 && cfg.Parallel != 1 {
		logf(fmt.Sprintf("%d of %d scenarios have faults (docs/faults.md): the scenarios run one at a time", faulted, plans))
		cfg.Parallel = 1
	}
	return r
}

// withDelay says whether a plan has a delay fault.
func withDelay(plans []*Plan) bool {
	return slices.ContainsFunc(plans, func(p *Plan) bool {
		return slices.ContainsFunc(p.Faults, func(f fault.Fault) bool { return f.Kind == fault.Delay })
	})
}

// withFaults counts the plans with faults (Plan.Faults).
func withFaults(plans []*Plan) int {
	n := 0
	for _, p := range plans {
		if len(p.Faults) > 0 {
			n++
		}
	}
	return n
}

// plansOf plans every scenario file for the run; an error names every
// file that cannot be planned. The run's random cases (Loaded.Random)
// are marked Random, with their seeds.
func plansOf(loaded []scenarios.Loaded, im Implementation, run string) ([]*Plan, error) {
	var plans []*Plan
	var bad []error
	for i, l := range loaded {
		plan, err := PlanOf(l, TargetFor(im, run, i))
		if err != nil {
			bad = append(bad, err)
			continue
		}
		plan.Random, plan.Seed = l.Random, l.Seed
		for _, st := range plan.Steps {
			st.State.Random = plan.Random
		}
		plans = append(plans, plan)
	}
	if len(bad) > 0 {
		// Joined, not flattened: a file that does not load stays a load
		// error, which the command reports as bad input (exit 2).
		return nil, errors.Join(bad...)
	}
	return plans, nil
}

func stopControlPlane(c *cluster.Cluster, logf func(string)) {
	if err := c.Stop(); err != nil {
		logf("stopping the control plane: " + err.Error())
	}
}

// keepUnlessOK removes dir when the run passed, and says it is kept
// otherwise.
func keepUnlessOK(ok *bool, dir, kept string, logf func(string)) {
	if *ok {
		os.RemoveAll(dir)
	} else {
		logf(kept)
	}
}

// startController starts the implementation's controller under the
// runner's control (Local); stop stops it and removes its logs unless the
// run did not pass.
func startController(ctx context.Context, c *cluster.Cluster, im Implementation, ok *bool, logf func(string)) (ctl *Local, stop func(), err error) {
	ctl, err = StartLocal(ctx, c, im, logf)
	stop = func() {
		ctl.Stop()
		keepLogsUnlessOK(ok, ctl.Logs(), logf)
	}
	if err != nil {
		stop()
		return nil, nil, err
	}
	return ctl, stop, nil
}

// keepLogsUnlessOK removes the controller's log directories when the run
// passed, and says where they are kept otherwise.
func keepLogsUnlessOK(ok *bool, dirs []string, logf func(string)) {
	if len(dirs) == 0 {
		return
	}
	if !*ok {
		logf(logsKept(dirs))
		return
	}
	for _, d := range dirs {
		os.RemoveAll(d)
	}
}

// cleanupOf removes the run's objects, selected by label, unless --keep.
func cleanupOf(c *cluster.Cluster, sel string, keep bool, logf func(string)) func() {
	return func() {
		if keep {
			logf("--keep: leaving the run's objects (gepcheck clean removes them; selector " + sel + ")")
			return
		}
		cctx, cancel := context.WithTimeout(context.Background(), cluster.Timeouts.Cleanup)
		defer cancel()
		if err := cluster.DeleteLabelled(cctx, c, sel, true); err != nil {
			logf(err.Error())
		}
	}
}

// runMusts checks the MUST statements. Ginkgo no longer handles signals:
// an interrupt ends the checks, and the deferred cleanup runs.
func runMusts(runner *Runner, plans int, logf func(string)) []MustResult {
	mctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	musts := runner.Musts(mctx, plans)
	logf(fmt.Sprintf("MUST checks: %s", time.Since(start).Round(100*time.Millisecond)))
	return musts
}

// replayFailures replays each failed case, shrunk or not, on the offline
// translator, and notes what it did.
func replayFailures(offline observe.Observer, sum *Summary) {
	replay := func(r *Result) {
		if r.Outcome != Fail {
			return
		}
		note, err := Replay(context.Background(), offline, *r)
		if err != nil {
			note = "offline replay failed: " + err.Error()
		}
		r.Offline = note
	}
	for i := range sum.Results {
		replay(&sum.Results[i])
	}
	for i := range sum.Shrunk {
		replay(&sum.Shrunk[i].Result)
	}
}

// shrinkRandom shrinks the failed random cases in the cluster, the first
// failing with each kind of difference (compare.Kinds), within
// cfg.ShrinkTime each.
func shrinkRandom(ctx context.Context, r *Runner, cfg *Config, results []Result, dir string, logf func(string)) []Shrunk {
	var out []Shrunk
	done := map[compare.Found]bool{}
	for _, res := range results {
		seed := res.Plan.Seed
		if !res.Plan.Random || res.Outcome != Fail || ctx.Err() != nil {
			continue
		}
		// A difference first seen after a change is a finding of its own
		// (a step finding), apart from the same kind seen at creation.
		var found []compare.Found
		for _, k := range compare.Kinds(res.Diff) {
			found = append(found, compare.Found{Kind: k, AfterStep: res.State > 0})
		}
		k := slices.IndexFunc(found, func(f compare.Found) bool { return !done[f] })
		if k < 0 {
			continue
		}
		done[found[k]] = true
		logf(fmt.Sprintf("shrinking %s in the cluster for %s (at most %s)", filepath.Base(res.Plan.File), found[k], cfg.ShrinkTime))
		if cfg.RandomSteps > 0 || len(cfg.Faults) > 0 { // a case with faults is read from its file, its faults with it
			sh := r.Shrink(ctx, nil, res, found[k], dir, cfg.Parallel, Budget{Time: cfg.ShrinkTime})
			sh.Seed = seed
			logf(fmt.Sprintf("  %d rounds, %d candidates applied; steps %d → %d, objects %d → %d; %s", sh.Rounds, sh.Tried, sh.StepsFrom, sh.Steps, sh.ObjectsFrom, sh.Objects, sh.Stopped))
			if len(res.casePlan().Faults) > 0 { // faults make timing part of a case: is it deterministic?
				r.Rerun(ctx, &sh, Reruns, Budget{Time: cfg.ShrinkTime})
				logf("  re-run as shrunk: " + sh.Determinism())
			}
			out = append(out, sh)
			continue
		}
		s, err := generators.Draw(generators.PrintOptions{Seed: int(seed), Profile: cfg.randomProfile()})
		if err != nil {
			logf("shrinking " + res.Plan.File + ": " + err.Error())
			continue
		}
		sh := r.Shrink(ctx, s, res, found[k], dir, cfg.Parallel, Budget{Time: cfg.ShrinkTime})
		sh.Seed = seed
		logf(fmt.Sprintf("  %d rounds, %d candidates applied; size %d → %d; %s", sh.Rounds, sh.Tried, generators.Size(s), generators.Size(sh.Scenario), sh.Stopped))
		out = append(out, sh)
	}
	return out
}

// InstallCRDs installs Gateway API's CRDs and those im needs, where
// missing.
func InstallCRDs(ctx context.Context, c *cluster.Cluster, im Implementation) error {
	crds, err := cluster.GatewayAPICRDs(ctx)
	if err != nil {
		return err
	}
	own, err := im.CRDs(ctx)
	if err != nil {
		return err
	}
	return c.InstallCRDs(ctx, append(crds, own...))
}

// randomProfile is the profile of the random cases.
func (cfg *Config) randomProfile() string {
	switch {
	case cfg.RandomProfile != "":
		return cfg.RandomProfile
	case cfg.DefaultRandomProfile != "":
		return cfg.DefaultRandomProfile
	}
	return "color-inherited"
}

// RandomDirPrefix starts the name of the temporary directory random
// cases are drawn into.
const RandomDirPrefix = "gepcheck-random-"

// randomCases draws cfg.Random scenarios (seeds cfg.Seed, cfg.Seed+1, …)
// into a new directory, each file what gepcheck gen prints for its seed,
// and reads them, each once, in path order (scenarios.Files), marked
// with their seeds.
func randomCases(cfg *Config, logf func(string)) ([]scenarios.Loaded, string, error) {
	prof := cfg.randomProfile()
	if cfg.Seed == 0 {
		if cfg.Shard.N > 0 {
			return nil, "", exitcode.Input{Err: fmt.Errorf("--shard %s with random cases needs --seed: every shard draws from the same campaign", cfg.Shard)}
		}
		cfg.Seed = time.Now().UnixNano() % 1_000_000_000
	}
	dir, err := os.MkdirTemp("", RandomDirPrefix)
	if err != nil {
		return nil, "", err
	}
	var drawn []scenarios.Loaded
	for _, i := range cfg.Shard.Indices(cfg.Random) {
		seed := cfg.Seed + int64(i)
		data, err := generators.Print(generators.PrintOptions{Seed: int(seed), Profile: prof, Steps: cfg.RandomSteps, Faults: cfg.Faults})
		if err != nil {
			return nil, "", exitcode.Input{Err: fmt.Errorf("--random-profile %s: %w", prof, err)}
		}
		name := filepath.Join(dir, fmt.Sprintf("random-%s-%d.yaml", prof, seed))
		if err := os.WriteFile(name, data, 0o644); err != nil {
			return nil, "", err
		}
		l, _ := scenarios.LoadPolicy([]string{name})
		for k := range l {
			l[k].Random, l[k].Seed = true, seed
		}
		drawn = append(drawn, l...)
	}
	slices.SortFunc(drawn, func(a, b scenarios.Loaded) int { return strings.Compare(a.File, b.File) })
	steps := ""
	if cfg.RandomSteps > 0 {
		steps = fmt.Sprintf(" --steps %d", cfg.RandomSteps)
	}
	if len(cfg.Faults) > 0 {
		steps += " --faults " + fault.Flag(cfg.Faults)
	}
	shard := ""
	if cfg.Shard.N > 0 {
		shard = fmt.Sprintf(" (shard %s: %d of them)", cfg.Shard, len(drawn))
	}
	logf(fmt.Sprintf("%d random cases%s, --seed %d --random-profile %s%s (replay: the same flags; one case: gepcheck gen --seed N --profile %s%s)", cfg.Random, shard, cfg.Seed, prof, strings.Replace(steps, "steps", "random-steps", 1), prof, steps))
	return drawn, dir, nil
}

// random counts the random cases of loaded.
func random(loaded []scenarios.Loaded) int {
	n := 0
	for _, l := range loaded {
		if l.Random {
			n++
		}
	}
	return n
}

func randomID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
