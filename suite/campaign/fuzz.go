package campaign

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/internal/shell"
	"github.com/gepcheck/gepcheck/internal/signals"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/input"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Fuzz is one gepcheck fuzz, its flags as values (Run): the named
// properties on random scenarios, or with Impl the implementation against
// the reference, as a batched campaign (Run) when it fuzzes in batches,
// else as one more property.
type Fuzz struct {
	// Profile is the profile of properties that accept any; Semantics
	// the only path semantics drawn, with Impl the one it claims, which
	// the comparison follows, as it follows Vocabulary, the status
	// vocabulary it claims ("": its own).
	Profile, Semantics, Vocabulary string
	// Checks are the cases per property, Workers the properties checked
	// at once, Steps a batched campaign's changes per case.
	Checks, Workers, Steps int
	// Seed draws the run (0: a new one, printed).
	Seed uint64
	// Properties are the properties to run (none: all but findings).
	Properties []string
	// OutDir is where counterexamples and findings go, Mutant the broken
	// engine properties run against, Kind the policy kind a batched
	// campaign fuzzes ("": the first).
	OutDir, Mutant, Kind string
	ShrinkTime           time.Duration
	// Coverage is Config.Coverage; FailOnNew has Hooks judge the kinds
	// found against the kept findings in Known, read first (ReadKnown).
	Coverage, FailOnNew bool
	Known               string
	ReadKnown           func(dir string) error
	// Shard is i/N ("": the whole run; suite.ParseShard).
	Shard string
	// Impl names the implementation ("": none), which Select selects.
	Impl   string
	Select func() (impl.Implementation, impl.Config, error)
	// Set are the flags given on the command line, in order: a replay
	// command repeats them, and those only a batched campaign reads are
	// refused without one.
	Set []Flag
	// Hooks, when set, sets a batched campaign's Known and New, given the
	// implementation and its configuration.
	Hooks func(c *Config, im impl.Implementation, cfg impl.Config)
}

// Flag is a flag given on the command line and its values.
type Flag struct {
	Name   string
	Values []string
}

// batchedFlags are the flags only a batched campaign reads.
var batchedFlags = []string{"shard", "report-dir", "report-organization", "report-project", "report-url", "report-version", "report-contact", "known", "fail-on-new", "kind"}

// Run runs f, printing to w. With Impl, a signal (SIGINT, SIGTERM) stops
// the implementation's processes (their groups are killed through the
// context) and the run, an exitcode.Input.
func (f Fuzz) Run(w io.Writer) error {
	opts, err := f.Validate()
	if err != nil {
		return err
	}
	// interrupt is the context of an implementation run by a property.
	var interrupt context.Context
	var ps []suite.Property
	if f.Impl != "" {
		ctx, stop := signals.Context()
		defer stop()
		p, err := f.differential(ctx, w)
		if err != nil || p == nil {
			return err
		}
		interrupt, ps = ctx, append(ps, *p)
	}
	if name := f.batchedOnly(); f.Impl == "" && name != "" {
		return exitcode.Input{Err: fmt.Errorf("--%s needs --impl of an implementation that fuzzes in batches", name)}
	}
	if len(ps) == 0 || len(f.Properties) > 0 {
		more, err := suite.Select(f.Properties)
		if err != nil {
			return exitcode.Input{Err: err}
		}
		ps = append(ps, more...)
	}
	return f.runProperties(w, ps, opts, interrupt)
}

// Validate checks what needs no implementation started: an exitcode.Input.
func (f Fuzz) Validate() (suite.Options, error) {
	opts := suite.Options{Profile: f.Profile, ShrinkTime: f.ShrinkTime}
	if f.Semantics != "" {
		sem, err := engine.ParseSemantics(f.Semantics)
		if err != nil {
			return opts, exitcode.Input{Err: fmt.Errorf("--semantics: %w", err)}
		}
		opts.Semantics = sem
	}
	if f.Checks < 1 {
		return opts, exitcode.Input{Err: fmt.Errorf("--checks must be at least 1")}
	}
	if f.Workers < 1 {
		return opts, exitcode.Input{Err: fmt.Errorf("--parallel %d: at least 1", f.Workers)}
	}
	// An invalid --shard is refused whatever else is given.
	if _, err := suite.ParseShard(f.Shard); err != nil {
		return opts, exitcode.Input{Err: err}
	}
	if f.Profile != "" {
		if err := (generators.Config{Profile: f.Profile}).Validate(); err != nil {
			return opts, exitcode.Input{Err: fmt.Errorf("--profile: %w", err)}
		}
	}
	if err := f.validateDifferential(); err != nil {
		return opts, exitcode.Input{Err: err}
	}
	return opts, nil
}

// validateDifferential checks the values of differential runs.
func (f Fuzz) validateDifferential() error {
	if f.Steps != 0 {
		switch {
		case f.Impl == "":
			return errors.New("--steps needs --impl: it draws cases with steps for an implementation")
		case f.Steps < 0 || f.Steps > generators.MaxDrawnSteps:
			return fmt.Errorf("--steps %d: between 1 and %d", f.Steps, generators.MaxDrawnSteps)
		case f.Coverage:
			return errors.New("--coverage counts scenarios without steps: run it without --steps")
		}
	}
	if f.Shard != "" {
		switch {
		case f.Impl == "":
			return errors.New("--shard needs --impl: only differential runs are sharded")
		case f.Seed == 0:
			return errors.New("--shard needs --seed: every shard draws from the same seed")
		}
	}
	if f.FailOnNew && f.ReadKnown != nil {
		// Read before the run: kept findings that cannot be read
		// would make every kind new.
		if err := f.ReadKnown(f.Known); err != nil {
			return fmt.Errorf("--fail-on-new: --known %s: %w", f.Known, err)
		}
	}
	if f.Vocabulary != "" && f.Impl == "" {
		return errors.New("--status-vocabulary needs --impl: it is the status vocabulary an implementation claims")
	}
	if f.Coverage && f.Impl == "" {
		return errors.New("--coverage needs --impl: it counts what a differential run drew")
	}
	return nil
}

// differential is the implementation against the reference: the batched
// campaign of an implementation that fuzzes in batches (nil property,
// done), else the property that checks it.
func (f Fuzz) differential(ctx context.Context, w io.Writer) (*suite.Property, error) {
	im, cfg, err := f.Select()
	if err != nil {
		return nil, exitcode.Input{Err: err}
	}
	sem, voc, err := f.claim(cfg)
	if err != nil {
		return nil, exitcode.Input{Err: err}
	}
	d, err := impl.StartOffline(ctx, cfg, sem, voc)
	if errors.Is(err, impl.ErrUnsupported) {
		return nil, exitcode.Input{Err: fmt.Errorf("--impl %s runs only in a cluster", im.Name())}
	}
	if err != nil {
		return nil, input.EnvironmentOr(err)
	}
	fz, batched := cfg.(differential.Fuzzer)
	if f.Steps != 0 && !batched {
		return nil, exitcode.Input{Err: fmt.Errorf("--steps: --impl %s does not fuzz in batches", im.Name())}
	}
	if batched {
		return nil, signals.StoppedOr(ctx, f.batched(ctx, w, im, cfg, fz, d))
	}
	return f.property(ctx, im, d)
}

// claim tells cfg the semantics and status vocabulary it claims
// (impl.Claim, impl.ClaimVocabulary), which the comparison follows; "" is
// the implementation's own claim.
func (f Fuzz) claim(cfg impl.Config) (sem engine.Semantics, voc engine.Vocabulary, err error) {
	if sem, err = impl.Claim(cfg, f.Semantics); err != nil {
		return "", "", err
	}
	if voc, err = impl.ClaimVocabulary(cfg, f.Vocabulary); err != nil {
		return "", "", err
	}
	return sem, voc, nil
}

// property is the differential property of an implementation that does
// not fuzz in batches.
func (f Fuzz) property(ctx context.Context, im impl.Implementation, d observe.Observer) (*suite.Property, error) {
	// A property run has no shards, reports, kept findings or kinds:
	// refused, not ignored.
	if name := f.batchedOnly(); name != "" {
		return nil, exitcode.Input{Err: fmt.Errorf("--%s: fuzz --impl %s checks one property against the reference, without shards, reports, kept findings or --kind (only implementations that fuzz in batches have them; gepcheck run --impl %s writes reports of scenario files, sharded)", name, im.Name(), im.Name())}
	}
	if f.Coverage {
		return nil, exitcode.Input{Err: fmt.Errorf("--coverage: --impl %s declares no combinations (only implementations that fuzz in batches do)", im.Name())}
	}
	if f.Profile == "" {
		return nil, exitcode.Input{Err: errors.New("--impl needs --profile: the policy kind and semantics to draw scenarios for")}
	}
	// A profile the implementation does not claim for its kind would
	// judge it by another reading (exec --exec-profile): refused, as run
	// skips such a case.
	if bs, err := profile.Builtins(); err == nil && bs[f.Profile] != nil {
		kind := bs[f.Profile].Spec.Policy.Kind
		if want := d.Capabilities().Profiles[kind]; want != "" && want != f.Profile {
			return nil, exitcode.Input{Err: fmt.Errorf("--profile %s: --impl %s claims profile %s for %s", f.Profile, im.Name(), want, kind)}
		}
	}
	p := differential.Property(ctx, d, f.Profile, generators.Scenarios(generators.Config{Profile: f.Profile}))
	p.Replay = f.replay("seed", "checks", "out", "parallel", "property", "shrink-time")
	return &p, nil
}

// runProperties checks ps and prints each outcome (report.Property).
func (f Fuzz) runProperties(w io.Writer, ps []suite.Property, opts suite.Options, interrupt context.Context) error {
	seed := f.Seed
	if seed == 0 {
		seed = newSeed()
	}
	fmt.Fprintf(w, "seed: %d\n", seed)
	failed := 0
	done := func(out suite.Outcome) {
		if !report.Property(w, out, f.Checks, f.OutDir) {
			failed++
		}
	}
	suite.RunAll(ps, engine.Mutant(f.Mutant), seed, f.Checks, opts, f.Workers, done)
	if err := signals.Stopped(interrupt); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", len(ps)-failed, failed)
	if failed > 0 {
		return exitcode.Failure{Msg: fmt.Sprintf("%d propert(ies) failed; seed %d", failed, seed)}
	}
	return nil
}

// batched is the batched campaign (Run) against an implementation that
// names policy kinds to fuzz (differential.Fuzzer).
func (f Fuzz) batched(ctx context.Context, w io.Writer, im impl.Implementation, cfg impl.Config, fz differential.Fuzzer, d observe.Observer) error {
	seed := f.Seed
	if seed == 0 {
		seed = newSeed() & 0xffffffff
	}
	shard, err := suite.ParseShard(f.Shard)
	if err != nil {
		return exitcode.Input{Err: err}
	}
	c := Config{Impl: im.Name(), Fuzzer: fz, Observer: d, Kind: f.Kind, Seed: seed, Checks: f.Checks, Steps: f.Steps,
		OutDir: f.OutDir, Shard: shard, Coverage: f.Coverage}
	if f.Hooks != nil {
		f.Hooks(&c, im, cfg)
	}
	_, failed, err := Run(ctx, c, w)
	if err != nil {
		return err
	}
	if len(failed) > 0 {
		return exitcode.Failure{Msg: strings.Join(failed, "\n")}
	}
	return nil
}

// batchedOnly names the first flag given that only a batched campaign
// reads, "" if none.
func (f Fuzz) batchedOnly() string {
	for _, name := range batchedFlags {
		if slices.ContainsFunc(f.Set, func(s Flag) bool { return s.Name == name }) {
			return name
		}
	}
	return ""
}

// replay is the flags given but those named in skip, quoted for a shell:
// the flags a replay command repeats.
func (f Fuzz) replay(skip ...string) string {
	var out []string
	for _, s := range f.Set {
		if slices.Contains(skip, s.Name) {
			continue
		}
		for _, v := range s.Values {
			out = append(out, "--"+s.Name+"="+shell.Quote(v))
		}
	}
	return strings.Join(out, " ")
}

// newSeed is a random seed, never 0.
func newSeed() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])>>1 | 1
}
