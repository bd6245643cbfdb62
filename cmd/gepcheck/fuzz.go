package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/shell"
	"github.com/gepcheck/gepcheck/reports"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/observe"
)

func newFuzz(stdout io.Writer) *cobra.Command {
	var (
		profileName, semantics, outDir, mutant string
		vocabulary                             string
		checks, workers, steps                 int
		impls                                  impl.Flags
		kind                                   string
		seed                                   uint64
		properties                             []string
		shrinkTime                             time.Duration
		coverage, newFails                     bool
		known                                  string
		rep                                    reportFlags
	)
	cmd := &cobra.Command{
		Use:   "fuzz [--profile P] [--semantics S] [--checks N] [--seed S] [--property NAME]...",
		Short: "Check the engine's properties on random scenarios",
		Long: `fuzz runs gepcheck's named properties (the same as go test ./suite/) on
random scenarios. It prints the seed; on failure it writes the shrunk
counterexample as a scenario file and prints the one command that replays it.

Properties marked as findings look for disagreements between specs; they are
skipped unless named with --property.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// interrupt is the context of an implementation run by a
			// property, which a signal cancels.
			var interrupt context.Context
			opts := suite.Options{Profile: profileName, ShrinkTime: shrinkTime}
			if semantics != "" {
				sem, err := engine.ParseSemantics(semantics)
				if err != nil {
					return inputError{fmt.Errorf("--semantics: %w", err)}
				}
				opts.Semantics = sem
			}
			if checks < 1 {
				return inputError{fmt.Errorf("--checks must be at least 1")}
			}
			if workers < 1 {
				return inputError{fmt.Errorf("--parallel %d: at least 1", workers)}
			}
			// An invalid --shard is refused whatever else is given.
			if _, err := rep.parseShard(); err != nil {
				return err
			}
			if profileName != "" {
				if err := (generators.Config{Profile: profileName}).Validate(); err != nil {
					return inputError{fmt.Errorf("--profile: %w", err)}
				}
			}
			var ps []suite.Property
			if steps != 0 {
				switch {
				case impls.Impl == "":
					return inputError{errors.New("--steps needs --impl: it draws cases with steps for an implementation")}
				case steps < 0 || steps > generators.MaxDrawnSteps:
					return inputError{fmt.Errorf("--steps %d: between 1 and %d", steps, generators.MaxDrawnSteps)}
				case coverage:
					return inputError{errors.New("--coverage counts scenarios without steps: run it without --steps")}
				}
			}
			if rep.shard != "" {
				switch {
				case impls.Impl == "":
					return inputError{errors.New("--shard needs --impl: only differential runs are sharded")}
				case seed == 0:
					return inputError{errors.New("--shard needs --seed: every shard draws from the same seed")}
				}
			}
			if newFails {
				// Read before the run: kept findings that cannot be
				// read would make every kind new.
				if _, err := readFindings([]string{known}); err != nil {
					return inputError{fmt.Errorf("--fail-on-new: --known %s: %w", known, err)}
				}
			}
			if vocabulary != "" && impls.Impl == "" {
				return inputError{errors.New("--status-vocabulary needs --impl: it is the status vocabulary an implementation claims")}
			}
			if coverage && impls.Impl == "" {
				return inputError{errors.New("--coverage needs --impl: it counts what a differential run drew")}
			}
			if impls.Impl != "" {
				// Differential: the implementation against the reference.
				im, cfg, err := impls.Selected()
				if err != nil {
					return inputError{err}
				}
				// --semantics is the implementation's claim, which
				// the comparison follows.
				sem, err := claim(cfg, semantics)
				if err != nil {
					return inputError{err}
				}
				voc, err := claimVocabulary(cfg, vocabulary)
				if err != nil {
					return inputError{err}
				}
				// A signal stops the implementation's processes
				// (their groups are killed through the context) and
				// the run, exit 2.
				ctx, stop := signalContext()
				defer stop()
				d, err := cfg.Offline(ctx)
				if errors.Is(err, impl.ErrUnsupported) {
					return inputError{fmt.Errorf("--impl %s runs only in a cluster", im.Name())}
				}
				if err != nil {
					return environmentOr(err)
				}
				d = observe.ClaimingVocabulary(observe.Claiming(d, sem), voc)
				fz, batched := cfg.(differential.Fuzzer)
				if steps != 0 {
					if !batched {
						return inputError{fmt.Errorf("--steps: --impl %s does not fuzz in batches", im.Name())}
					}
					return interrupted(ctx, fuzzSteps(ctx, stdout, im, cfg, fz, d, batchedFlags{seed, checks, outDir, kind, coverage, newFails, known, &rep}, steps))
				}
				if batched {
					return interrupted(ctx, fuzzBatched(ctx, stdout, im, cfg, fz, d, batchedFlags{seed, checks, outDir, kind, coverage, newFails, known, &rep}))
				}
				// A property run has no shards, reports, kept findings
				// or kinds: refused, not ignored.
				if name := batchedOnly(cmd.Flags()); name != "" {
					return inputError{fmt.Errorf("--%s: fuzz --impl %s checks one property against the reference, without shards, reports, kept findings or --kind (only implementations that fuzz in batches have them; gepcheck run --impl %s writes reports of scenario files, sharded)", name, im.Name(), im.Name())}
				}
				if coverage {
					return inputError{fmt.Errorf("--coverage: --impl %s declares no combinations (only implementations that fuzz in batches do)", im.Name())}
				}
				if profileName == "" {
					return inputError{errors.New("--impl needs --profile: the policy kind and semantics to draw scenarios for")}
				}
				// A profile the implementation does not claim for its
				// kind would judge it by another reading (exec
				// --exec-profile): refused, as run skips such a case.
				if bs, err := profile.Builtins(); err == nil && bs[profileName] != nil {
					kind := bs[profileName].Spec.Policy.Kind
					if want := d.Capabilities().Profiles[kind]; want != "" && want != profileName {
						return inputError{fmt.Errorf("--profile %s: --impl %s claims profile %s for %s", profileName, im.Name(), want, kind)}
					}
				}
				p := differential.Property(ctx, d, profileName, generators.Scenarios(generators.Config{Profile: profileName}))
				interrupt = ctx
				p.Replay = replayFlags(cmd.Flags(), "seed", "checks", "out", "parallel", "property", "shrink-time")
				ps = append(ps, p)
			}
			if name := batchedOnly(cmd.Flags()); impls.Impl == "" && name != "" {
				return inputError{fmt.Errorf("--%s needs --impl of an implementation that fuzzes in batches", name)}
			}
			if len(ps) == 0 || len(properties) > 0 {
				more, err := suite.Select(properties)
				if err != nil {
					return inputError{err}
				}
				ps = append(ps, more...)
			}
			if seed == 0 {
				seed = newSeed()
			}
			fmt.Fprintf(stdout, "seed: %d\n", seed)
			failed := 0
			report := func(out suite.Outcome) {
				if !reports.Property(stdout, out, checks, outDir) {
					failed++
				}
			}
			suite.RunAll(ps, engine.Mutant(mutant), seed, checks, opts, workers, report)
			if err := interrupted(interrupt, nil); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%d passed, %d failed\n", len(ps)-failed, failed)
			if failed > 0 {
				return failedError{fmt.Sprintf("%d propert(ies) failed; seed %d", failed, seed)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&profileName, "profile", "", "profile for properties that accept any: color-direct, color-inherited, backendtlspolicy or all-levels")
	f.StringVar(&semantics, "semantics", "", "only this path semantics (default: both, drawn at random); with --impl, the semantics the implementation claims, which the comparison follows (default: its own)")
	f.StringVar(&vocabulary, "status-vocabulary", "", "with --impl, the status vocabulary the implementation claims, which the comparison follows: merged (GEP-713 as merged: Accepted, Programmed) or draft (its draft: Accepted, Enforced) (default: its own; docs/semantics.md)")
	f.IntVar(&checks, "checks", 100, "random cases per property")
	f.IntVar(&workers, "parallel", runtime.GOMAXPROCS(0), "properties checked at once")
	f.Uint64Var(&seed, "seed", 0, "random seed (default: a new one, printed)")
	f.StringArrayVar(&properties, "property", nil, "property to run; repeatable (default: all but findings)")
	f.StringVar(&outDir, "out", "gepcheck-counterexamples", "directory for counterexample files")
	f.DurationVar(&shrinkTime, "shrink-time", 30*time.Second, "time to spend shrinking a counterexample (a slow implementation may want more)")
	f.BoolVar(&coverage, "coverage", false, "with --impl of an implementation that fuzzes in batches: print how often each field, level and merge option combination was drawn and disagreed, and fail if one the implementation declares was never drawn")
	rep.add(f)
	f.StringVar(&known, "known", "scenarios/findings", "with --impl: kept findings (gepcheck findings) to say, for each kind of difference found, how it is triaged or that it is new")
	f.BoolVar(&newFails, "fail-on-new", false, "with --impl of an implementation that fuzzes in batches: fail (exit 1) when a kind of difference found has no kept finding in --known, when the implementation failed on a case, or when no case was compared (make ci)")
	f.IntVar(&steps, "steps", 0, fmt.Sprintf("with --impl of an implementation that fuzzes in batches: give each case up to N changes over time (1 to %d; gepcheck gen --steps), each state translated and compared", generators.MaxDrawnSteps))
	f.StringVar(&mutant, "mutant", "", "run against a deliberately broken engine (see suite/): to see a property fail")
	impls.AddFlags(f)
	f.StringVar(&kind, "kind", "", "policy kind to fuzz, for an implementation that names its kinds (default: its first)")
	_ = f.MarkHidden("mutant")
	return cmd
}

// batchedFlags are fuzz's flags that a batched run reads.
type batchedFlags struct {
	seed      uint64
	checks    int
	outDir    string
	kind      string
	coverage  bool
	failOnNew bool
	known     string
	rep       *reportFlags
}

// fuzzBatched is the batched differential run against an implementation
// that names policy kinds to fuzz (differential.Fuzzer).
func fuzzBatched(ctx context.Context, stdout io.Writer, im impl.Implementation, cfg impl.Config, fz differential.Fuzzer, d observe.Observer, f batchedFlags) error {
	seed, checks, outDir := f.seed, f.checks, f.outDir
	if seed == 0 {
		seed = newSeed() & 0xffffffff
	}
	r, err := differential.FuzzRun(im.Name(), fz, d, f.kind, seed, checks)
	if err != nil {
		return inputError{err}
	}
	if r.Shard, err = f.rep.parseShard(); err != nil {
		return err
	}
	r.Write = func(r differential.Run, kind string, dis differential.Disagreement) (string, error) {
		return reports.WriteFinding(outDir, r.Profile, r.Replay, kind, r.ProfileSource, dis)
	}
	fmt.Fprintf(stdout, "seed: %d\nimplementation: %s, profile %s\n", seed, fz.Describe(), r.Profile)
	sum, err := differential.Fuzz(ctx, r, stdout)
	if err != nil {
		return err
	}
	reports.Fuzz(stdout, im.Name(), sum)
	c := reports.Campaign{Kind: kindOf(fz, f.kind), Profile: r.Profile, Seed: seed, Checks: sum.Checks, Disagreed: len(sum.Disagree), Replay: r.Replay}
	var found []compare.Found
	for _, fd := range sum.Findings {
		c.Findings = append(c.Findings, reports.CampaignFinding{Kind: fd.Kind, Case: fd.Case, Differences: compare.Strings(fd.Small.Diff),
			Scenario: string(fd.Small.Scenario.YAML()), Profiles: []string{r.Profile}, File: filepath.Base(fd.File)})
		found = append(found, compare.Found{Kind: fd.Kind})
	}
	if err := finishCampaign(stdout, f, im, cfg, d, c, found); err != nil {
		return err
	}
	var failed []string
	if f.coverage {
		reports.Coverage(stdout, sum.Coverage)
		if missing := sum.Coverage.Missing(); len(missing) > 0 {
			failed = append(failed, fmt.Sprintf("%d declared combination(s) never drawn in %d scenarios: %s", len(missing), checks, strings.Join(missing, "; ")))
		}
	}
	failedOn := implFailed(sum.Disagree, func(d differential.Disagreement) string { return d.Got.Error })
	if err := checkNew(stdout, f, im, c, found, sum.Checks-failedOn, failedOn); err != nil {
		if _, ok := err.(failedError); !ok {
			return err
		}
		failed = append(failed, err.Error())
	}
	if len(failed) > 0 {
		return failedError{strings.Join(failed, "\n")}
	}
	return nil
}

// fuzzSteps is the batched differential run of cases with steps.
func fuzzSteps(ctx context.Context, stdout io.Writer, im impl.Implementation, cfg impl.Config, fz differential.Fuzzer, d observe.Observer, f batchedFlags, steps int) error {
	seed := f.seed
	if seed == 0 {
		seed = newSeed() & 0xffffffff
	}
	r, replay, err := differential.FuzzStepsRun(im.Name(), fz, d, f.kind, seed, f.checks, steps)
	if err != nil {
		return inputError{err}
	}
	if r.Shard, err = f.rep.parseShard(); err != nil {
		return err
	}
	r.Write = func(kind compare.Found, dis differential.StepDisagreement) (string, error) {
		return reports.WriteStepsFinding(f.outDir, r.Profile, replay, kind.String(), dis.Case.YAML(), dis.Step, compare.Strings(dis.Diff))
	}
	fmt.Fprintf(stdout, "seed: %d\nimplementation: %s, profile %s, up to %d steps\n", seed, fz.Describe(), r.Profile, steps)
	sum, err := differential.FuzzSteps(ctx, r, stdout)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d agree, %d disagree (findings are evidence, not failures)\n", sum.Checks-len(sum.Disagree), len(sum.Disagree))
	c := reports.Campaign{Kind: kindOf(fz, f.kind), Profile: r.Profile, Seed: seed, Checks: sum.Checks, Steps: steps, Disagreed: len(sum.Disagree), Replay: replay}
	var found []compare.Found
	for _, fd := range sum.Findings {
		c.Findings = append(c.Findings, reports.CampaignFinding{Kind: fd.Kind.String(), Case: fd.Case, Differences: compare.Strings(fd.Small.Diff),
			Scenario: string(fd.Small.Case.YAML()), Profiles: []string{r.Profile}, File: filepath.Base(fd.File)})
		found = append(found, fd.Kind)
	}
	if err := finishCampaign(stdout, f, im, cfg, d, c, found); err != nil {
		return err
	}
	failedOn := implFailed(sum.Disagree, func(d differential.StepDisagreement) string { return d.Got.Error })
	return checkNew(stdout, f, im, c, found, sum.Checks-failedOn, failedOn)
}

// implFailed counts the cases of ds on which the implementation failed
// (errOf is its error).
func implFailed[D any](ds []D, errOf func(D) string) int {
	n := 0
	for _, d := range ds {
		if errOf(d) != "" {
			n++
		}
	}
	return n
}

// checkNew is --fail-on-new on campaign c, whose findings are of the
// kinds found, which compared cases and on which the implementation
// failed implFailed times (nil without the flag).
func checkNew(stdout io.Writer, f batchedFlags, im impl.Implementation, c reports.Campaign, found []compare.Found, compared, implFailed int) error {
	if !f.failOnNew {
		return nil
	}
	files := map[string]string{}
	for _, fd := range c.Findings {
		files[fd.Kind] = filepath.Join(f.outDir, fd.File)
	}
	return failOnNew(stdout, f.known, im.Name(), c.Profile, compared, implFailed, found, files)
}

// finishCampaign prints how the kept findings triage each kind c found
// (found, its findings' kinds), and writes c's report when --report-dir
// is set.
func finishCampaign(stdout io.Writer, f batchedFlags, im impl.Implementation, cfg impl.Config, d observe.Observer, c reports.Campaign, found []compare.Found) error {
	printKnown(stdout, f.known, im.Name(), c.Profile, found)
	if f.rep.dir == "" {
		return nil
	}
	res := f.rep.results(im, cfg, "offline", "", d.Capabilities())
	f.rep.known = f.known
	res.Campaigns = []reports.Campaign{c}
	return f.rep.write(stdout, res)
}

// batchedOnly names the first flag given that only a batched differential
// run reads, "" if none.
func batchedOnly(fs *pflag.FlagSet) string {
	for _, name := range []string{"shard", "report-dir", "report-organization", "report-project", "report-url", "report-version", "report-contact", "known", "fail-on-new", "kind"} {
		if f := fs.Lookup(name); f != nil && f.Changed {
			return name
		}
	}
	return ""
}

// kindOf is the policy kind a fuzz run draws: --kind, or the first the
// implementation names.
func kindOf(fz differential.Fuzzer, kind string) string {
	if kind == "" {
		return fz.FuzzKinds()[0].Kind
	}
	return kind
}

// newSeed is a random seed, never 0.
func newSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])>>1 | 1
}

// replayFlags are the flags set on the command line but those named in
// skip, quoted for a shell: the flags a replay command repeats.
func replayFlags(fs *pflag.FlagSet, skip ...string) string {
	var out []string
	fs.Visit(func(f *pflag.Flag) {
		for _, s := range skip {
			if f.Name == s {
				return
			}
		}
		values := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			values = sv.GetSlice()
		}
		for _, v := range values {
			out = append(out, "--"+f.Name+"="+shell.Quote(v))
		}
	})
	return strings.Join(out, " ")
}
