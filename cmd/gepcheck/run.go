package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/internal/signals"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/cluster"
	"github.com/gepcheck/gepcheck/suite/cluster/providers"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
	"github.com/gepcheck/gepcheck/suite/runner"
)

func newRun(stdout, stderr io.Writer) *cobra.Command {
	var f impl.Flags
	var cf providers.Flags
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
				return exitcode.Input{Err: fmt.Errorf("--parallel %d: at least 1", rf.parallel)}
			}
			if rf.stepTimeout <= 0 {
				return exitcode.Input{Err: fmt.Errorf("--step-timeout %s: must be more than 0", rf.stepTimeout)}
			}
			sh, err := rep.parseShard()
			if err != nil {
				return err
			}
			// Files and random cases are sharded each by its index.
			scens, err := runner.Shard(files, sh, rf.random > 0)
			if err != nil {
				return err
			}
			if sh.N > 0 && rf.random > 0 && rf.seed == 0 {
				return exitcode.Input{Err: fmt.Errorf("--shard %s with --random needs --seed: every shard draws from the same campaign", sh)}
			}
			rf.shard = sh
			im, cfg, err := f.Selected()
			if err != nil {
				return exitcode.Input{Err: err}
			}
			sem, err := impl.Claim(cfg, semantics)
			if err != nil {
				return exitcode.Input{Err: err}
			}
			voc, err := impl.ClaimVocabulary(cfg, vocabulary)
			if err != nil {
				return exitcode.Input{Err: err}
			}
			if rf.musts && cf.Provider == "" {
				return exitcode.Input{Err: errors.New("--musts needs --cluster: the MUST checks stage states in a cluster (docs/cluster.md, MUST checks)")}
			}
			var results runner.NewResults
			if rep.dir != "" {
				results = func(mode string, sem engine.Semantics, caps observe.Capabilities) *report.Results {
					return rep.results(im, cfg, mode, sem, caps)
				}
			}
			if cf.Provider != "" {
				logf := func(s string) { fmt.Fprintf(stderr, "gepcheck: %s\n", s) }
				return runCluster(stdout, runner.Cluster{Provider: cf.Provider, Options: cf.Options(logf), Impl: im, Config: cfg, Semantics: sem, Vocabulary: voc,
					InCluster: rf.config(scens.Files, logf), Out: rf.out, Results: results}, &rep)
			}
			// A signal stops the implementation's processes (their
			// groups are killed through the context) and the run, exit 2.
			ctx, stop := signals.Context()
			defer stop()
			out, err := runner.Offline{Impl: im, Config: cfg, Semantics: sem, Vocabulary: voc, Scenarios: scens, Profiles: profiles, Results: results}.Run(ctx)
			if err != nil {
				if exitcode.Of(err) == exitcode.BadInput {
					return err // runExit's exit: bad input, or the environment's
				}
				return interrupted(ctx, err) // what ran after a signal is no verdict
			}
			if err := interrupted(ctx, nil); err != nil {
				return err // cases run after a signal are no verdict
			}
			failed := report.OfflineRun(stdout, out.Cases)
			if err := rep.write(stdout, out.Results); err != nil {
				return err
			}
			if failed > 0 {
				return exitcode.Failure{Msg: fmt.Sprintf("%s disagrees with the reference on %d case(s)", out.Name, failed)}
			}
			return nil
		},
	}
	f.AddFlags(cmd.Flags())
	cf.AddFlags(cmd.Flags(), true)
	rf.add(cmd)
	rep.add(cmd.Flags())
	cmd.Flags().StringVar(&rep.known, "known", "scenarios/findings", "with --report-dir: kept findings (gepcheck findings) each failure is matched with in the reports, known (its triage and upstream links) or a regression")
	cmd.Flags().StringArrayVarP(&files, "filename", "f", nil, "scenario file or directory; repeatable")
	cmd.Flags().StringArrayVar(&profiles, "profile", nil, "profile of the cases (default: each scenario's own)")
	cmd.Flags().StringVar(&semantics, "semantics", "", "the path semantics the implementation claims, which the comparison follows: sticky-overrides or gep-713 (gep713 read too; default: the implementation's own; docs/semantics.md)")
	cmd.Flags().StringVar(&vocabulary, "status-vocabulary", "", "the status vocabulary the implementation claims, which the comparison follows: merged (GEP-713 as merged: Accepted, Programmed) or draft (its draft: Accepted, Enforced) (default: the implementation's own; docs/semantics.md)")
	return cmd
}

// runCluster is `gepcheck run --cluster`: c run, its summary printed with
// the triage of the kinds its random cases found, its reports written.
func runCluster(stdout io.Writer, c runner.Cluster, rep *reportFlags) error {
	out, err := c.Run(context.Background())
	if err != nil {
		return err
	}
	sum := out.Summary
	report.ClusterRun(stdout, sum)
	// Every kind the failed random cases show, shrunk or not (a case is
	// shrunk for one of its kinds).
	report.PrintTriage(stdout, "scenarios/findings", c.Impl.Name(), sum.RandomProfile, sum.RandomKinds())
	if err := rep.write(stdout, out.Results); err != nil {
		return err
	}
	if c.InCluster.Musts {
		for _, m := range sum.Musts {
			fmt.Fprintln(stdout, incluster.MustsLine(m))
		}
		fmt.Fprintln(stdout, incluster.MustsSummary(sum))
	}
	if !sum.OK() {
		return exitcode.Failure{Msg: fmt.Sprintf("%d scenario(s) failed, %d error(s)", sum.Count(incluster.Fail), sum.Count(incluster.Error))}
	}
	if broken := sum.MustsBroken(); len(broken) > 0 {
		return exitcode.Failure{Msg: fmt.Sprintf("MUST checks not met: %s", strings.Join(broken, ", "))}
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
}

// config is the in-cluster run of files the flags ask for.
func (f *runClusterFlags) config(files []string, logf func(string)) incluster.Config {
	return incluster.Config{Files: files, Random: f.random, Seed: f.seed, RandomProfile: f.randomProfile, RandomSteps: f.randomSteps, Shard: f.shard, ShrinkTime: f.shrinkTime,
		StartController: f.startController, Parallel: f.parallel, StepTimeout: f.stepTimeout,
		LabelFilter: f.labelFilter, JUnitReport: f.junit, Keep: f.keep, Verbose: f.verbose, Log: logf, Musts: f.musts}
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
