package main

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/suite/campaign"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/findings"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// fuzzOpts are fuzz's flags: the run's values (campaign.Fuzz), the
// implementation, the reports.
type fuzzOpts struct {
	campaign.Fuzz
	impls impl.Flags
	rep   reportFlags
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
	f.StringVar(&o.Profile, "profile", "", "profile for properties that accept any: color-direct, color-inherited, backendtlspolicy or all-levels")
	f.StringVar(&o.Semantics, "semantics", "", "only this path semantics (default: both, drawn at random); with --impl, the semantics the implementation claims, which the comparison follows (default: its own)")
	f.StringVar(&o.Vocabulary, "status-vocabulary", "", "with --impl, the status vocabulary the implementation claims, which the comparison follows: merged (GEP-713 as merged: Accepted, Programmed) or draft (its draft: Accepted, Enforced) (default: its own; docs/semantics.md)")
	f.IntVar(&o.Checks, "checks", 100, "random cases per property")
	f.IntVar(&o.Workers, "parallel", runtime.GOMAXPROCS(0), "properties checked at once")
	f.Uint64Var(&o.Seed, "seed", 0, "random seed (default: a new one, printed)")
	f.StringArrayVar(&o.Properties, "property", nil, "property to run; repeatable (default: all but findings)")
	f.StringVar(&o.OutDir, "out", "gepcheck-counterexamples", "directory for counterexample files")
	f.DurationVar(&o.ShrinkTime, "shrink-time", 30*time.Second, "time to spend shrinking a counterexample (a slow implementation may want more)")
	f.BoolVar(&o.Coverage, "coverage", false, "with --impl of an implementation that fuzzes in batches: print how often each field, level and merge option combination was drawn and disagreed, and fail if one the implementation declares was never drawn")
	o.rep.add(f)
	f.StringVar(&o.Known, "known", "scenarios/findings", "with --impl: kept findings (gepcheck findings) to say, for each kind of difference found, how it is triaged or that it is new")
	f.BoolVar(&o.FailOnNew, "fail-on-new", false, "with --impl of an implementation that fuzzes in batches: fail (exit 1) when a kind of difference found has no kept finding in --known, when the implementation failed on a case, or when no case was compared (make ci)")
	f.IntVar(&o.Steps, "steps", 0, fmt.Sprintf("with --impl of an implementation that fuzzes in batches: give each case up to N changes over time (1 to %d; gepcheck gen --steps), each state translated and compared", generators.MaxDrawnSteps))
	f.StringVar(&o.Mutant, "mutant", "", "run against a deliberately broken engine (see suite/): to see a property fail")
	o.impls.AddFlags(f)
	f.StringVar(&o.Kind, "kind", "", "policy kind to fuzz, for an implementation that names its kinds (default: its first)")
	_ = f.MarkHidden("mutant")
}

// run is fuzz (campaign.Fuzz): the batched differential run of an
// implementation that fuzzes in batches, else the named properties (with
// --impl, the implementation against the reference as one of them).
func (o *fuzzOpts) run(cmd *cobra.Command, stdout io.Writer) error {
	f := o.Fuzz
	f.ReadKnown, f.Shard, f.Impl, f.Select, f.Set = readKnown, o.rep.shard, o.impls.Impl, o.impls.Selected, setFlags(cmd.Flags())
	f.Hooks = func(c *campaign.Config, im impl.Implementation, cfg impl.Config) { o.hooks(stdout, c, im, cfg) }
	return f.Run(stdout)
}

// readKnown reads the kept findings in dir.
func readKnown(dir string) error {
	_, err := findings.List([]string{dir})
	return err
}

// hooks sets c's triage and reports of the kinds found: the kept
// findings' triage, --report-dir and --fail-on-new.
func (o *fuzzOpts) hooks(stdout io.Writer, c *campaign.Config, im impl.Implementation, cfg impl.Config) {
	c.Known = func(camp report.Campaign, found []compare.Found) error {
		return o.finishCampaign(stdout, im, cfg, c.Observer, camp, found)
	}
	if o.FailOnNew {
		c.New = func(camp report.Campaign, found []compare.Found, files map[string]string, compared, implFailed int) (string, error) {
			err := failOnNew(stdout, o.Known, im.Name(), camp.Profile, compared, implFailed, found, files)
			if f, ok := err.(exitcode.Failure); ok {
				return f.Error(), nil
			}
			return "", err
		}
	}
}

// finishCampaign prints how the kept findings triage each kind c found
// (found, its findings' kinds), and writes c's report when --report-dir
// is set.
func (o *fuzzOpts) finishCampaign(stdout io.Writer, im impl.Implementation, cfg impl.Config, d observe.Observer, c report.Campaign, found []compare.Found) error {
	report.PrintTriage(stdout, o.Known, im.Name(), c.Profile, found)
	if o.rep.dir == "" {
		return nil
	}
	res := o.rep.results(im, cfg, "offline", "", d.Capabilities())
	o.rep.known = o.Known
	res.Campaigns = []report.Campaign{c}
	return o.rep.write(stdout, res)
}

// setFlags are the flags set on the command line (in pflag's order) and
// their values: those a replay command repeats.
func setFlags(fs *pflag.FlagSet) []campaign.Flag {
	var out []campaign.Flag
	fs.Visit(func(f *pflag.Flag) {
		values := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			values = sv.GetSlice()
		}
		out = append(out, campaign.Flag{Name: f.Name, Values: values})
	})
	return out
}
