package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/cluster/providers"
	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/internal/signals"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/findings"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Flags are gepcheck run's flags (Run): the implementation, the cluster,
// the in-cluster run, the reports.
type Flags struct {
	Impls   impl.Flags
	Cluster providers.Flags
	Reports report.Flags
	Faults  FaultFlags
	// Files are -f's scenario files, Profiles --profile.
	Files, Profiles       []string
	Semantics, Vocabulary string

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

// AddFlags adds run's flags to fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	f.Impls.AddFlags(fs)
	f.Cluster.AddFlags(fs, true)
	f.addClusterFlags(fs)
	f.Faults.AddFlags(fs)
	f.Reports.AddFlags(fs)
	fs.StringVar(&f.Reports.Known, "known", findings.Default, "with --report-dir: kept findings (gepcheck findings) each failure is matched with in the reports, known (its triage and upstream links) or a regression")
	fs.StringArrayVarP(&f.Files, "filename", "f", nil, "scenario file or directory; repeatable")
	fs.StringArrayVar(&f.Profiles, "profile", nil, "profile of the cases (default: each scenario's own)")
	fs.StringVar(&f.Semantics, "semantics", "", "the path semantics the implementation claims, which the comparison follows: sticky-overrides or gep-713 (gep713 read too; default: the implementation's own; docs/semantics.md)")
	fs.StringVar(&f.Vocabulary, "status-vocabulary", "", "the status vocabulary the implementation claims, which the comparison follows: merged (GEP-713 as merged: Accepted, Programmed) or draft (its draft: Accepted, Enforced) (default: the implementation's own; docs/semantics.md)")
}

func (f *Flags) addClusterFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&f.startController, "start-controller", true, "in a cluster, start the implementation's controller as a local process against the cluster (false: it is already running there)")
	fs.IntVar(&f.parallel, "parallel", 4, "in a cluster, scenarios applied at once (each in its own namespaces)")
	fs.DurationVar(&f.stepTimeout, "step-timeout", cluster.Timeouts.Step, "in a cluster, time limit of each step of a scenario (apply; wait for status)")
	fs.StringVar(&f.labelFilter, "label-filter", "", "in a cluster, Ginkgo label filter over scenario labels (e.g. 'gep-713 && !findings', 'ColorPolicy')")
	fs.StringVar(&f.junit, "junit", "", "in a cluster, write a JUnit report to this file")
	fs.BoolVar(&f.keep, "keep", false, "in a cluster, leave the objects of each scenario (gepcheck clean removes them)")
	fs.BoolVar(&f.verbose, "verbose", false, "in a cluster, verbose Ginkgo output")
	fs.IntVar(&f.random, "random", 0, "in a cluster, also run N random scenarios drawn by gepcheck gen")
	fs.Int64Var(&f.seed, "seed", 0, "in a cluster, seed of the first random scenario (default: from the clock, printed)")
	fs.IntVar(&f.randomSteps, "random-steps", 0, "in a cluster, give each random scenario up to N changes over time, applied one after the other (gepcheck gen --steps; scenarios/README.md, Steps)")
	fs.DurationVar(&f.shrinkTime, "shrink-time", 2*time.Minute, "in a cluster, time to shrink each failed random case there, one per kind of difference (0: not shrunk; random cases with steps are not)")
	fs.StringVar(&f.out, "out", "", "in a cluster, directory for the shrunk random cases, written as findings (default: the random cases' directory)")
	fs.BoolVar(&f.musts, "musts", false, "in a cluster, also judge the MUST statements of Gateway API's API reference that need a staged state (foreign conditions, 17 ancestors, invalid CA references; docs/cluster.md, MUST checks); with no scenario files, only them")
	fs.StringVar(&f.randomProfile, "random-profile", "", "in a cluster, profile of the random scenarios (default: color-inherited; the first policy kind an implementation fuzzes)")
}

// Printer is a run's outcome: Print prints it, writes its reports
// (--report-dir) and returns its verdict (exitcode.Failure when the
// implementation disagrees).
type Printer interface {
	Print(w io.Writer) error
}

// Run validates the flags (exitcode.Input, naming the flag) and runs the
// scenario files (-f and files) offline, or in a cluster with --cluster,
// logging to logf. Offline, a signal (SIGINT, SIGTERM) stops the
// implementation's processes (their groups are killed through the
// context) and the run: signals.Stopped, exit 2.
func (f *Flags) Run(files []string, logf func(string)) (Printer, error) {
	if f.parallel < 1 {
		return nil, exitcode.Input{Err: fmt.Errorf("--parallel %d: at least 1", f.parallel)}
	}
	if f.stepTimeout <= 0 {
		return nil, exitcode.Input{Err: fmt.Errorf("--step-timeout %s: must be more than 0", f.stepTimeout)}
	}
	sh, err := f.Reports.ParseShard()
	if err != nil {
		return nil, err
	}
	// Files and random cases are sharded each by its index.
	scens, err := Shard(append(f.Files, files...), sh, f.random > 0)
	if err != nil {
		return nil, err
	}
	if sh.N > 0 && f.random > 0 && f.seed == 0 {
		return nil, exitcode.Input{Err: fmt.Errorf("--shard %s with --random needs --seed: every shard draws from the same campaign", sh)}
	}
	f.shard = sh
	im, cfg, err := f.Impls.Selected()
	if err != nil {
		return nil, exitcode.Input{Err: err}
	}
	sem, err := impl.Claim(cfg, f.Semantics)
	if err != nil {
		return nil, exitcode.Input{Err: err}
	}
	voc, err := impl.ClaimVocabulary(cfg, f.Vocabulary)
	if err != nil {
		return nil, exitcode.Input{Err: err}
	}
	if err := f.Faults.Validate(f.Cluster.Provider); err != nil {
		return nil, err
	}
	if f.musts && f.Cluster.Provider == "" {
		return nil, exitcode.Input{Err: errors.New("--musts needs --cluster: the MUST checks stage states in a cluster (docs/cluster.md, MUST checks)")}
	}
	var results NewResults
	if f.Reports.Dir != "" {
		results = func(mode string, sem engine.Semantics, caps observe.Capabilities) *report.Results {
			return f.Reports.Results(im, cfg, mode, sem, caps)
		}
	}
	if f.Cluster.Provider != "" {
		c := Cluster{Provider: f.Cluster.Provider, Options: f.Cluster.Options(logf), Impl: im, Config: cfg, Semantics: sem, Vocabulary: voc,
			InCluster: f.config(scens, logf), Out: f.out, Results: results}
		out, err := c.Run(context.Background())
		if err != nil {
			return nil, err
		}
		return clusterPrinter{out, c, &f.Reports}, nil
	}
	ctx, stop := signals.Context()
	defer stop()
	out, err := Offline{Impl: im, Config: cfg, Semantics: sem, Vocabulary: voc, Scenarios: scens, Profiles: f.Profiles, Results: results}.Run(ctx)
	if err != nil {
		if exitcode.Of(err) == exitcode.BadInput {
			return nil, err // bad input, or the environment's
		}
		return nil, signals.StoppedOr(ctx, err) // what ran after a signal is no verdict
	}
	if err := signals.Stopped(ctx); err != nil {
		return nil, err // cases run after a signal are no verdict
	}
	return offlinePrinter{out, &f.Reports}, nil
}

// config is the in-cluster run of s the flags ask for: the files already
// loaded (a shard's) are not read again.
func (f *Flags) config(s Scenarios, logf func(string)) incluster.Config {
	return s.InCluster(incluster.Config{Random: f.random, Seed: f.seed, RandomProfile: f.randomProfile, RandomSteps: f.randomSteps, Shard: f.shard, ShrinkTime: f.shrinkTime,
		StartController: f.startController, Parallel: f.parallel, StepTimeout: f.stepTimeout,
		LabelFilter: f.labelFilter, JUnitReport: f.junit, Keep: f.keep, Verbose: f.verbose, Log: logf, Musts: f.musts,
		Faults: f.Faults.Kinds, Quiet: f.Faults.quiet})
}

// offlinePrinter is an offline run as gepcheck run prints it.
type offlinePrinter struct {
	out     *OfflineRun
	reports *report.Flags
}

// Print prints each case's outcome and writes the reports.
func (p offlinePrinter) Print(w io.Writer) error {
	failed := report.OfflineRun(w, p.out.Cases)
	if err := p.reports.Write(w, p.out.Results); err != nil {
		return err
	}
	if failed > 0 {
		return exitcode.Failure{Msg: fmt.Sprintf("%s disagrees with the reference on %d case(s)", p.out.Name, failed)}
	}
	return nil
}

// clusterPrinter is a cluster run as gepcheck run --cluster prints it.
type clusterPrinter struct {
	out     *ClusterRun
	c       Cluster
	reports *report.Flags
}

// Print prints the summary with the triage of the kinds its random cases
// found, writes the reports, and prints the MUST checks.
func (p clusterPrinter) Print(w io.Writer) error {
	sum := p.out.Summary
	report.ClusterRun(w, sum)
	// Every kind the failed random cases show, shrunk or not (a case is
	// shrunk for one of its kinds).
	report.PrintTriage(w, findings.Default, p.c.Impl.Name(), sum.RandomProfile, sum.RandomKinds())
	if err := p.reports.Write(w, p.out.Results); err != nil {
		return err
	}
	if p.c.InCluster.Musts {
		for _, m := range sum.Musts {
			fmt.Fprintln(w, incluster.MustsLine(m))
		}
		fmt.Fprintln(w, incluster.MustsSummary(sum))
	}
	if !sum.OK() {
		return exitcode.Failure{Msg: fmt.Sprintf("%d scenario(s) failed, %d error(s)", sum.Count(incluster.Fail), sum.Count(incluster.Error))}
	}
	if broken := sum.MustsBroken(); len(broken) > 0 {
		return exitcode.Failure{Msg: fmt.Sprintf("MUST checks not met: %s", strings.Join(broken, ", "))}
	}
	return nil
}
