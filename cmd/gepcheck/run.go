package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/shell"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/cluster"
	"github.com/gepcheck/gepcheck/suite/cluster/providers"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

func newRun(stdout, stderr io.Writer) *cobra.Command {
	var f impl.Flags
	var cf clusterFlags
	var rf runClusterFlags
	var files, profiles []string
	var semantics, vocabulary string
	var rep reportFlags
	cmd := &cobra.Command{
		Use:   "run --impl NAME [--cluster local|kind|kubeconfig] [-f] FILE|DIR...",
		Short: "Run scenario files through an implementation (offline, or in a cluster) and compare with the reference engine",
		Long: `run runs scenario files through an implementation and compares what it does
with the reference engine.

Offline (no --cluster): the implementation's offline form (the reference
engine, a command speaking docs/exec-protocol.md, a translator).

In a cluster (--cluster local|kind|kubeconfig; docs/cluster.md): each scenario
is applied in fresh namespaces labelled gepcheck.dev/managed-by=gepcheck, the
implementation's status is awaited, the objects are read back as stored and
the expectation is computed from them. Everything created is removed at the
end, after a failure and on SIGINT/SIGTERM.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			files = append(files, args...)
			if rf.parallel < 1 {
				return inputError{fmt.Errorf("--parallel %d: at least 1", rf.parallel)}
			}
			if rf.stepTimeout <= 0 {
				return inputError{fmt.Errorf("--step-timeout %s: must be more than 0", rf.stepTimeout)}
			}
			sh, err := rep.parseShard()
			if err != nil {
				return err
			}
			// Files and random cases are sharded each by its index.
			if files, err = shardFiles(files, sh, rf.random > 0); err != nil {
				return err
			}
			if sh.N > 0 && rf.random > 0 && rf.seed == 0 {
				return inputError{fmt.Errorf("--shard %s with --random needs --seed: every shard draws from the same campaign", sh)}
			}
			rf.shard = sh
			im, cfg, err := f.Selected()
			if err != nil {
				return inputError{err}
			}
			sem, err := claim(cfg, semantics)
			if err != nil {
				return inputError{err}
			}
			voc, err := claimVocabulary(cfg, vocabulary)
			if err != nil {
				return inputError{err}
			}
			rf.vocabulary = voc
			if rf.musts && cf.cluster == "" {
				return inputError{errors.New("--musts needs --cluster: the MUST checks stage states in a cluster (docs/cluster.md, MUST checks)")}
			}
			if cf.cluster != "" {
				return runCluster(stdout, stderr, &cf, im, cfg, files, rf, sem, &rep)
			}
			// A signal stops the implementation's processes (their
			// groups are killed through the context) and the run, exit 2.
			ctx, stop := signalContext()
			defer stop()
			d, err := cfg.Offline(ctx)
			if errors.Is(err, impl.ErrUnsupported) {
				return inputError{fmt.Errorf("--impl %s runs only in a cluster (--cluster)", im.Name())}
			}
			if err != nil {
				return environmentOr(err)
			}
			d = observe.ClaimingVocabulary(observe.Claiming(d, sem), voc)
			cases, err := observe.ScenarioCases(files, profiles)
			if err != nil {
				return inputError{err}
			}
			results, err := differential.Cases(ctx, d, cases)
			if err := interrupted(ctx, err); err != nil {
				return err
			}
			failed := report.OfflineRun(stdout, results)
			if rep.dir != "" {
				res := rep.results(im, cfg, "offline", sem, d.Capabilities())
				res.Cases = report.OfflineCases(results, d.Capabilities(), func(file string) string {
					return replayRun(nil, im.Name(), cfg, profiles, res, file)
				})
				if err := rep.write(stdout, res); err != nil {
					return err
				}
			}
			if failed > 0 {
				return failedError{fmt.Sprintf("%s disagrees with the reference on %d case(s)", d.Name(), failed)}
			}
			return nil
		},
	}
	f.AddFlags(cmd.Flags())
	cf.add(cmd, true)
	rf.add(cmd)
	rep.add(cmd.Flags())
	cmd.Flags().StringVar(&rep.known, "known", "scenarios/findings", "with --report-dir: kept findings (gepcheck findings) each failure is matched with in the reports, known (its triage and upstream links) or a regression")
	cmd.Flags().StringArrayVarP(&files, "filename", "f", nil, "scenario file or directory; repeatable")
	cmd.Flags().StringArrayVar(&profiles, "profile", nil, "profile of the cases (default: each scenario's own)")
	cmd.Flags().StringVar(&semantics, "semantics", "", "the path semantics the implementation claims, which the comparison follows: sticky-overrides or gep-713 (gep713 read too; default: the implementation's own; docs/semantics.md)")
	cmd.Flags().StringVar(&vocabulary, "status-vocabulary", "", "the status vocabulary the implementation claims, which the comparison follows: merged (GEP-713 as merged: Accepted, Programmed) or draft (its draft: Accepted, Enforced) (default: the implementation's own; docs/semantics.md)")
	return cmd
}

// implFlags are the implementation's flags a replay needs: those of a
// differential.Fuzzer, or of any configuration that names them (exec's
// --exec-command).
func implFlags(cfg impl.Config) []string {
	if r, ok := cfg.(interface{ ReplayFlags() []string }); ok {
		return r.ReplayFlags()
	}
	return nil
}

// replayRun is the command that runs file again as the run whose results
// res starts did: every flag that selects what was run, the
// implementation's (its version: a replay must not run another version
// gepcheck pins when it is read), the profiles given, the semantics and
// status vocabulary compared under (docs/reports.md, Reproduce).
func replayRun(mode []string, implName string, cfg impl.Config, profiles []string, res *report.Results, file string) string {
	cmd := slices.Concat([]string{"gepcheck", "run"}, mode, []string{"--impl", implName}, implFlags(cfg))
	for _, p := range profiles {
		cmd = append(cmd, "--profile", shell.Quote(p))
	}
	cmd = append(cmd, semFlag(engine.Semantics(res.Semantics))...)
	cmd = append(cmd, vocabularyFlag(engine.Vocabulary(res.StatusVocabulary))...)
	return strings.Join(append(cmd, shell.Quote(file)), " ")
}

// semFlag is --semantics for a replay, when the run was told one.
func semFlag(sem engine.Semantics) []string {
	if sem == "" {
		return nil
	}
	return []string{"--semantics", string(sem)}
}

// vocabularyFlag is --status-vocabulary for a replay, when the run was
// told one.
func vocabularyFlag(v engine.Vocabulary) []string {
	if v == "" {
		return nil
	}
	return []string{"--status-vocabulary", string(v)}
}

// claimVocabulary parses --status-vocabulary, the status vocabulary an
// implementation claims, and tells a configuration that writes either
// (impl.VocabularyClaimer) to write it. An empty flag is the
// implementation's own claim.
func claimVocabulary(cfg impl.Config, flag string) (engine.Vocabulary, error) {
	if flag == "" {
		return "", nil
	}
	v, err := engine.ParseVocabulary(flag)
	if err != nil {
		return "", fmt.Errorf("--status-vocabulary: %w", err)
	}
	if c, ok := cfg.(impl.VocabularyClaimer); ok {
		c.ClaimVocabulary(v)
	}
	return v, nil
}

// claim parses --semantics, the semantics an implementation claims, and
// tells a configuration that runs either (impl.Claimer) to run under it.
// An empty flag is the implementation's own claim.
func claim(cfg impl.Config, flag string) (engine.Semantics, error) {
	if flag == "" {
		return "", nil
	}
	sem, err := engine.ParseSemantics(flag)
	if err != nil {
		return "", fmt.Errorf("--semantics: %w", err)
	}
	if c, ok := cfg.(impl.Claimer); ok {
		c.Claim(sem)
	}
	return sem, nil
}

// runCluster is `gepcheck run --cluster`.
func runCluster(stdout, stderr io.Writer, cf *clusterFlags, im impl.Implementation, cfg impl.Config, files []string, rf runClusterFlags, sem engine.Semantics, rep *reportFlags) error {
	ic, err := cfg.InCluster(context.Background())
	if errors.Is(err, impl.ErrUnsupported) {
		return inputError{fmt.Errorf("--impl %s does not run in a cluster", im.Name())}
	}
	if err != nil {
		return environmentOr(err)
	}
	ic = incluster.ClaimingVocabulary(incluster.Claiming(ic, sem), rf.vocabulary)
	connect, err := providers.Lookup(cf.cluster)
	if err != nil {
		return inputError{err}
	}
	logf := func(s string) { fmt.Fprintf(stderr, "gepcheck: %s\n", s) }
	// Failures are replayed offline, where the implementation has an
	// offline form: the translator's or the controller's.
	offline, err := cfg.Offline(context.Background())
	if err != nil {
		if !errors.Is(err, impl.ErrUnsupported) {
			logf("failures are not replayed offline: " + err.Error())
		}
		offline = nil
	} else {
		offline = observe.ClaimingVocabulary(observe.Claiming(offline, sem), rf.vocabulary)
	}
	defaultRandom := ""
	if fz, ok := cfg.(differential.Fuzzer); ok {
		defaultRandom = fz.FuzzKinds()[0].Profile
	}
	sum, err := incluster.Run(incluster.Config{
		Impl: ic,
		Connect: func(ctx context.Context) (*cluster.Cluster, error) {
			return connect(ctx, cf.options(logf))
		},
		Files: files, Random: rf.random, Seed: rf.seed, RandomProfile: rf.randomProfile, DefaultRandomProfile: defaultRandom, RandomSteps: rf.randomSteps, Shard: rf.shard, Offline: offline, ShrinkTime: rf.shrinkTime,
		StartController: rf.startController, Parallel: rf.parallel, StepTimeout: rf.stepTimeout,
		LabelFilter: rf.labelFilter, JUnitReport: rf.junit, Keep: rf.keep, Verbose: rf.verbose, Log: logf, Musts: rf.musts,
	})
	if err != nil {
		return environmentOr(err)
	}
	dir := rf.out
	for i, sh := range sum.Shrunk {
		if dir == "" {
			dir = filepath.Dir(sh.From) // the random cases' directory, kept
		}
		replay := fmt.Sprintf("gepcheck run --cluster %s --impl %s FILE", cf.cluster, im.Name())
		var file string
		var err error
		if sh.Scenario == nil {
			// A case with steps, shrunk as it is written.
			var data []byte
			var c generators.Case
			if data, err = load.ReadNamed(sh.File, load.DefaultLimits.MaxBytes); err == nil {
				if c, err = generators.ParseCase(data); err == nil {
					file, err = report.WriteFinding(dir, "cluster-"+sum.RandomProfile, replay, sh.Kind, "", differential.Disagreement{Case: c, State: sh.Result.State, Diff: sh.Result.Diff})
				}
			}
		} else {
			file, err = report.WriteFinding(dir, "cluster-"+sum.RandomProfile, replay, sh.Kind, "the profile "+sum.RandomProfile,
				differential.Disagreement{Case: generators.Case{Scenario: sh.Scenario}, Diff: sh.Result.Diff, Want: sh.Result.Want, Got: sh.Result.Got})
		}
		if err != nil {
			return err
		}
		sum.Shrunk[i].File = file
	}
	report.ClusterRun(stdout, sum)
	// Every kind the failed random cases show, shrunk or not (a case is
	// shrunk for one of its kinds).
	printKnown(stdout, "scenarios/findings", im.Name(), sum.RandomProfile, sum.RandomKinds())
	if rep.dir != "" {
		res := rep.results(im, cfg, "cluster-"+cf.cluster, sem, ic.Capabilities().Capabilities)
		res.Cases = report.ClusterCases(sum.Results, func(file string) string {
			return replayRun([]string{"--cluster", cf.cluster}, im.Name(), cfg, nil, res, file)
		}, ic.Capabilities().Capabilities)
		if sum.Random > 0 {
			res.Campaigns = []report.Campaign{clusterCampaign(sum, rf.random, cf.cluster, im.Name(), slices.Concat(implFlags(cfg), semFlag(engine.Semantics(res.Semantics))))}
		}
		if err := rep.write(stdout, res); err != nil {
			return err
		}
	}
	if rf.musts {
		for _, m := range sum.Musts {
			fmt.Fprintln(stdout, incluster.MustsLine(m))
		}
		fmt.Fprintln(stdout, incluster.MustsSummary(sum))
	}
	if !sum.OK() {
		return failedError{fmt.Sprintf("%d scenario(s) failed, %d error(s)", sum.Count(incluster.Fail), sum.Count(incluster.Error))}
	}
	if broken := sum.MustsBroken(); len(broken) > 0 {
		return failedError{fmt.Sprintf("MUST checks not met: %s", strings.Join(broken, ", "))}
	}
	return nil
}

type runClusterFlags struct {
	shard           suite.Shard // --shard, of files and random cases
	random          int
	seed            int64
	randomProfile   string
	randomSteps     int
	shrinkTime      time.Duration
	out             string
	startController bool
	parallel        int
	stepTimeout     time.Duration
	labelFilter     string
	junit           string
	keep, verbose   bool
	musts           bool
	vocabulary      engine.Vocabulary // --status-vocabulary, the claim
}

func (f *runClusterFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.startController, "start-controller", true, "in a cluster, start the implementation's controller as a local process against the cluster (false: it is already running there)")
	cmd.Flags().IntVar(&f.parallel, "parallel", 4, "in a cluster, scenarios applied at once (each in its own namespaces)")
	cmd.Flags().DurationVar(&f.stepTimeout, "step-timeout", cluster.Timeouts.Step, "in a cluster, time limit of each step of a scenario (apply; wait for status)")
	cmd.Flags().StringVar(&f.labelFilter, "label-filter", "", "in a cluster, Ginkgo label filter over scenario labels (e.g. 'gep-713 && !findings', 'ColorPolicy')")
	cmd.Flags().StringVar(&f.junit, "junit", "", "in a cluster, write a JUnit report to this file")
	cmd.Flags().BoolVar(&f.keep, "keep", false, "in a cluster, leave the objects of each scenario (gepcheck clean removes them)")
	cmd.Flags().BoolVar(&f.verbose, "verbose", false, "in a cluster, verbose Ginkgo output")
	cmd.Flags().IntVar(&f.random, "random", 0, "in a cluster, also run N random scenarios drawn by gepcheck gen")
	cmd.Flags().Int64Var(&f.seed, "seed", 0, "in a cluster, seed of the first random scenario (default: from the clock, printed)")
	cmd.Flags().IntVar(&f.randomSteps, "random-steps", 0, "in a cluster, give each random scenario up to N changes over time, applied one after the other (gepcheck gen --steps; scenarios/README.md, Steps)")
	cmd.Flags().DurationVar(&f.shrinkTime, "shrink-time", 2*time.Minute, "in a cluster, time to shrink each failed random case there, one per kind of difference (0: not shrunk; random cases with steps are not)")
	cmd.Flags().StringVar(&f.out, "out", "", "in a cluster, directory for the shrunk random cases, written as findings (default: the random cases' directory)")
	cmd.Flags().BoolVar(&f.musts, "musts", false, "in a cluster, also judge the MUST statements of Gateway API's API reference that need a staged state (foreign conditions, 17 ancestors, invalid CA references; docs/cluster.md, MUST checks); with no scenario files, only them")
	cmd.Flags().StringVar(&f.randomProfile, "random-profile", "", "in a cluster, profile of the random scenarios (default: color-inherited; the first policy kind an implementation fuzzes)")
}

// clusterCampaign is the random cases of a cluster run as a campaign of
// the reports: how many disagreed, and the case shrunk in the cluster for
// each kind of difference (its case numbered from the campaign's seed, so
// that shards merge as fuzz campaigns do). total is --random.
func clusterCampaign(sum *incluster.Summary, total int, clusterName, implName string, flags []string) report.Campaign {
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
