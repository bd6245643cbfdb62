package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/shell"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/campaign"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// fuzzOpts are fuzz's flags.
type fuzzOpts struct {
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
}

func newFuzz(stdout io.Writer) *cobra.Command {
	var o fuzzOpts
	cmd := &cobra.Command{
		Use:   "fuzz [--profile P] [--semantics S] [--checks N] [--seed S] [--property NAME]...",
		Short: "Check the engine's properties on random scenarios",
		Long: `fuzz runs gepcheck's named properties (the same as go test ./suite/) on
random scenarios. It prints the seed; on failure it writes the shrunk
counterexample as a scenario file and prints the one command that replays it.

Properties marked as findings look for disagreements between specs; they are
skipped unless named with --property.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd, stdout) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func (o *fuzzOpts) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.profileName, "profile", "", "profile for properties that accept any: color-direct, color-inherited, backendtlspolicy or all-levels")
	f.StringVar(&o.semantics, "semantics", "", "only this path semantics (default: both, drawn at random); with --impl, the semantics the implementation claims, which the comparison follows (default: its own)")
	f.StringVar(&o.vocabulary, "status-vocabulary", "", "with --impl, the status vocabulary the implementation claims, which the comparison follows: merged (GEP-713 as merged: Accepted, Programmed) or draft (its draft: Accepted, Enforced) (default: its own; docs/semantics.md)")
	f.IntVar(&o.checks, "checks", 100, "random cases per property")
	f.IntVar(&o.workers, "parallel", runtime.GOMAXPROCS(0), "properties checked at once")
	f.Uint64Var(&o.seed, "seed", 0, "random seed (default: a new one, printed)")
	f.StringArrayVar(&o.properties, "property", nil, "property to run; repeatable (default: all but findings)")
	f.StringVar(&o.outDir, "out", "gepcheck-counterexamples", "directory for counterexample files")
	f.DurationVar(&o.shrinkTime, "shrink-time", 30*time.Second, "time to spend shrinking a counterexample (a slow implementation may want more)")
	f.BoolVar(&o.coverage, "coverage", false, "with --impl of an implementation that fuzzes in batches: print how often each field, level and merge option combination was drawn and disagreed, and fail if one the implementation declares was never drawn")
	o.rep.add(f)
	f.StringVar(&o.known, "known", "scenarios/findings", "with --impl: kept findings (gepcheck findings) to say, for each kind of difference found, how it is triaged or that it is new")
	f.BoolVar(&o.newFails, "fail-on-new", false, "with --impl of an implementation that fuzzes in batches: fail (exit 1) when a kind of difference found has no kept finding in --known, when the implementation failed on a case, or when no case was compared (make ci)")
	f.IntVar(&o.steps, "steps", 0, fmt.Sprintf("with --impl of an implementation that fuzzes in batches: give each case up to N changes over time (1 to %d; gepcheck gen --steps), each state translated and compared", generators.MaxDrawnSteps))
	f.StringVar(&o.mutant, "mutant", "", "run against a deliberately broken engine (see suite/): to see a property fail")
	o.impls.AddFlags(f)
	f.StringVar(&o.kind, "kind", "", "policy kind to fuzz, for an implementation that names its kinds (default: its first)")
	_ = f.MarkHidden("mutant")
}

// run is fuzz: the batched differential run of an implementation that
// fuzzes in batches, else the named properties (with --impl, the
// implementation against the reference as one of them).
func (o *fuzzOpts) run(cmd *cobra.Command, stdout io.Writer) error {
	opts, err := o.validate()
	if err != nil {
		return err
	}
	// interrupt is the context of an implementation run by a property,
	// which a signal cancels.
	var interrupt context.Context
	var ps []suite.Property
	if o.impls.Impl != "" {
		// A signal stops the implementation's processes (their groups
		// are killed through the context) and the run, exit 2.
		ctx, stop := signalContext()
		defer stop()
		p, err := o.differential(ctx, cmd, stdout)
		if err != nil || p == nil {
			return err
		}
		interrupt, ps = ctx, append(ps, *p)
	}
	if name := batchedOnly(cmd.Flags()); o.impls.Impl == "" && name != "" {
		return inputError{fmt.Errorf("--%s needs --impl of an implementation that fuzzes in batches", name)}
	}
	if len(ps) == 0 || len(o.properties) > 0 {
		more, err := suite.Select(o.properties)
		if err != nil {
			return inputError{err}
		}
		ps = append(ps, more...)
	}
	return o.runProperties(stdout, ps, opts, interrupt)
}

// validate checks the flags that need no implementation started.
func (o *fuzzOpts) validate() (suite.Options, error) {
	opts := suite.Options{Profile: o.profileName, ShrinkTime: o.shrinkTime}
	if o.semantics != "" {
		sem, err := engine.ParseSemantics(o.semantics)
		if err != nil {
			return opts, inputError{fmt.Errorf("--semantics: %w", err)}
		}
		opts.Semantics = sem
	}
	if o.checks < 1 {
		return opts, inputError{fmt.Errorf("--checks must be at least 1")}
	}
	if o.workers < 1 {
		return opts, inputError{fmt.Errorf("--parallel %d: at least 1", o.workers)}
	}
	// An invalid --shard is refused whatever else is given.
	if _, err := o.rep.parseShard(); err != nil {
		return opts, err
	}
	if o.profileName != "" {
		if err := (generators.Config{Profile: o.profileName}).Validate(); err != nil {
			return opts, inputError{fmt.Errorf("--profile: %w", err)}
		}
	}
	return opts, o.validateDifferential()
}

// validateDifferential checks the flags of differential runs.
func (o *fuzzOpts) validateDifferential() error {
	if o.steps != 0 {
		switch {
		case o.impls.Impl == "":
			return inputError{errors.New("--steps needs --impl: it draws cases with steps for an implementation")}
		case o.steps < 0 || o.steps > generators.MaxDrawnSteps:
			return inputError{fmt.Errorf("--steps %d: between 1 and %d", o.steps, generators.MaxDrawnSteps)}
		case o.coverage:
			return inputError{errors.New("--coverage counts scenarios without steps: run it without --steps")}
		}
	}
	if o.rep.shard != "" {
		switch {
		case o.impls.Impl == "":
			return inputError{errors.New("--shard needs --impl: only differential runs are sharded")}
		case o.seed == 0:
			return inputError{errors.New("--shard needs --seed: every shard draws from the same seed")}
		}
	}
	if o.newFails {
		// Read before the run: kept findings that cannot be read
		// would make every kind new.
		if _, err := readFindings([]string{o.known}); err != nil {
			return inputError{fmt.Errorf("--fail-on-new: --known %s: %w", o.known, err)}
		}
	}
	if o.vocabulary != "" && o.impls.Impl == "" {
		return inputError{errors.New("--status-vocabulary needs --impl: it is the status vocabulary an implementation claims")}
	}
	if o.coverage && o.impls.Impl == "" {
		return inputError{errors.New("--coverage needs --impl: it counts what a differential run drew")}
	}
	return nil
}

// differential is the implementation against the reference: the batched
// run of an implementation that fuzzes in batches (nil property, done),
// else the property that checks it.
func (o *fuzzOpts) differential(ctx context.Context, cmd *cobra.Command, stdout io.Writer) (*suite.Property, error) {
	im, cfg, err := o.impls.Selected()
	if err != nil {
		return nil, inputError{err}
	}
	// --semantics is the implementation's claim, which the comparison
	// follows.
	sem, err := claim(cfg, o.semantics)
	if err != nil {
		return nil, inputError{err}
	}
	voc, err := claimVocabulary(cfg, o.vocabulary)
	if err != nil {
		return nil, inputError{err}
	}
	d, err := cfg.Offline(ctx)
	if errors.Is(err, impl.ErrUnsupported) {
		return nil, inputError{fmt.Errorf("--impl %s runs only in a cluster", im.Name())}
	}
	if err != nil {
		return nil, environmentOr(err)
	}
	d = observe.ClaimingVocabulary(observe.Claiming(d, sem), voc)
	fz, batched := cfg.(differential.Fuzzer)
	if o.steps != 0 && !batched {
		return nil, inputError{fmt.Errorf("--steps: --impl %s does not fuzz in batches", im.Name())}
	}
	if batched {
		return nil, interrupted(ctx, o.fuzzBatched(ctx, stdout, im, cfg, fz, d))
	}
	return o.property(ctx, cmd, im, d)
}

// property is the differential property of an implementation that does
// not fuzz in batches.
func (o *fuzzOpts) property(ctx context.Context, cmd *cobra.Command, im impl.Implementation, d observe.Observer) (*suite.Property, error) {
	// A property run has no shards, reports, kept findings or kinds:
	// refused, not ignored.
	if name := batchedOnly(cmd.Flags()); name != "" {
		return nil, inputError{fmt.Errorf("--%s: fuzz --impl %s checks one property against the reference, without shards, reports, kept findings or --kind (only implementations that fuzz in batches have them; gepcheck run --impl %s writes reports of scenario files, sharded)", name, im.Name(), im.Name())}
	}
	if o.coverage {
		return nil, inputError{fmt.Errorf("--coverage: --impl %s declares no combinations (only implementations that fuzz in batches do)", im.Name())}
	}
	if o.profileName == "" {
		return nil, inputError{errors.New("--impl needs --profile: the policy kind and semantics to draw scenarios for")}
	}
	// A profile the implementation does not claim for its kind would
	// judge it by another reading (exec --exec-profile): refused, as run
	// skips such a case.
	if bs, err := profile.Builtins(); err == nil && bs[o.profileName] != nil {
		kind := bs[o.profileName].Spec.Policy.Kind
		if want := d.Capabilities().Profiles[kind]; want != "" && want != o.profileName {
			return nil, inputError{fmt.Errorf("--profile %s: --impl %s claims profile %s for %s", o.profileName, im.Name(), want, kind)}
		}
	}
	p := differential.Property(ctx, d, o.profileName, generators.Scenarios(generators.Config{Profile: o.profileName}))
	p.Replay = replayFlags(cmd.Flags(), "seed", "checks", "out", "parallel", "property", "shrink-time")
	return &p, nil
}

// runProperties checks ps and prints each outcome.
func (o *fuzzOpts) runProperties(stdout io.Writer, ps []suite.Property, opts suite.Options, interrupt context.Context) error {
	seed := o.seed
	if seed == 0 {
		seed = newSeed()
	}
	fmt.Fprintf(stdout, "seed: %d\n", seed)
	failed := 0
	report := func(out suite.Outcome) {
		if !report.Property(stdout, out, o.checks, o.outDir) {
			failed++
		}
	}
	suite.RunAll(ps, engine.Mutant(o.mutant), seed, o.checks, opts, o.workers, report)
	if err := interrupted(interrupt, nil); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d passed, %d failed\n", len(ps)-failed, failed)
	if failed > 0 {
		return failedError{fmt.Sprintf("%d propert(ies) failed; seed %d", failed, seed)}
	}
	return nil
}

// fuzzBatched is the batched differential campaign against an
// implementation that names policy kinds to fuzz (differential.Fuzzer).
func (o *fuzzOpts) fuzzBatched(ctx context.Context, stdout io.Writer, im impl.Implementation, cfg impl.Config, fz differential.Fuzzer, d observe.Observer) error {
	seed := o.seed
	if seed == 0 {
		seed = newSeed() & 0xffffffff
	}
	shard, err := o.rep.parseShard()
	if err != nil {
		return err
	}
	c := campaign.Config{Impl: im.Name(), Fuzzer: fz, Observer: d, Kind: o.kind, Seed: seed, Checks: o.checks, Steps: o.steps,
		OutDir: o.outDir, Shard: shard, Coverage: o.coverage,
		Known: func(c report.Campaign, found []compare.Found) error {
			return o.finishCampaign(stdout, im, cfg, d, c, found)
		}}
	if o.newFails {
		c.New = func(c report.Campaign, found []compare.Found, files map[string]string, compared, implFailed int) (string, error) {
			err := failOnNew(stdout, o.known, im.Name(), c.Profile, compared, implFailed, found, files)
			if f, ok := err.(failedError); ok {
				return f.Error(), nil
			}
			return "", err
		}
	}
	_, failed, err := campaign.Run(ctx, c, stdout)
	var in campaign.InputError
	if errors.As(err, &in) {
		return inputError{in.Err}
	}
	if err != nil {
		return err
	}
	if len(failed) > 0 {
		return failedError{strings.Join(failed, "\n")}
	}
	return nil
}

// finishCampaign prints how the kept findings triage each kind c found
// (found, its findings' kinds), and writes c's report when --report-dir
// is set.
func (o *fuzzOpts) finishCampaign(stdout io.Writer, im impl.Implementation, cfg impl.Config, d observe.Observer, c report.Campaign, found []compare.Found) error {
	printKnown(stdout, o.known, im.Name(), c.Profile, found)
	if o.rep.dir == "" {
		return nil
	}
	res := o.rep.results(im, cfg, "offline", "", d.Capabilities())
	o.rep.known = o.known
	res.Campaigns = []report.Campaign{c}
	return o.rep.write(stdout, res)
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
