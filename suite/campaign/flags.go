package campaign

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/findings"
)

// Flags are gepcheck fuzz's flags: the run's values (Fuzz), the
// implementation, the reports.
type Flags struct {
	Fuzz
	Impls   impl.Flags
	Reports report.Flags
}

// AddFlags adds fuzz's flags to fs.
func (o *Flags) AddFlags(f *pflag.FlagSet) {
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
	o.Reports.AddFlags(f)
	f.StringVar(&o.Known, "known", findings.Default, "with --impl: kept findings (gepcheck findings) to say, for each kind of difference found, how it is triaged or that it is new")
	f.BoolVar(&o.FailOnNew, "fail-on-new", false, "with --impl of an implementation that fuzzes in batches: fail (exit 1) when a kind of difference found has no kept finding in --known, when the implementation failed on a case, or when no case was compared (make ci)")
	f.IntVar(&o.Steps, "steps", 0, fmt.Sprintf("with --impl of an implementation that fuzzes in batches: give each case up to N changes over time (1 to %d; gepcheck gen --steps), each state translated and compared", generators.MaxDrawnSteps))
	f.StringVar(&o.Mutant, "mutant", "", "run against a deliberately broken engine (see suite/): to see a property fail")
	o.Impls.AddFlags(f)
	f.StringVar(&o.Kind, "kind", "", "policy kind to fuzz, for an implementation that names its kinds (default: its first)")
	_ = f.MarkHidden("mutant")
}

// Run is gepcheck fuzz (Fuzz.Run) with the flags set on fs, printing to
// w: a batched campaign's kinds found are triaged against the kept
// findings (--known), its report written (--report-dir) and, with
// --fail-on-new, judged.
func (o *Flags) Run(w io.Writer, fs *pflag.FlagSet) error {
	f := o.Fuzz
	f.ReadKnown, f.Shard, f.Impl, f.Select, f.Set = readKnown, o.Reports.Shard, o.Impls.Impl, o.Impls.Selected, setFlags(fs)
	f.Hooks = func(c *Config, im impl.Implementation, cfg impl.Config) { o.hooks(w, c, im, cfg) }
	return f.Run(w)
}

// readKnown reads the kept findings in dir.
func readKnown(dir string) error {
	_, err := findings.List([]string{dir})
	return err
}

// hooks sets c's triage and reports of the kinds found: the kept
// findings' triage, --report-dir and --fail-on-new, the kinds triaged
// once for both.
func (o *Flags) hooks(w io.Writer, c *Config, im impl.Implementation, cfg impl.Config) {
	var kinds *report.Kinds
	c.Known = func(camp report.Campaign, found []compare.Found) error {
		kinds = &report.Kinds{Dir: o.Known, Impl: im.Name(), Profile: camp.Profile, Found: found}
		kinds.Print(w)
		if o.Reports.Dir == "" {
			return nil
		}
		res := o.Reports.Results(im, cfg, "offline", "", c.Observer.Capabilities())
		o.Reports.Known = o.Known
		res.Campaigns = []report.Campaign{camp}
		return o.Reports.Write(w, res)
	}
	if o.FailOnNew {
		c.New = func(_ report.Campaign, _ []compare.Found, files map[string]string, compared, implFailed int) (string, error) {
			err := failOnNew(w, kinds, compared, implFailed, files)
			if f, ok := err.(exitcode.Failure); ok {
				return f.Error(), nil
			}
			return "", err
		}
	}
}

// failOnNew is fuzz --fail-on-new (report.Kinds.New): a failure is exit
// 1, kept findings that do not read are bad input.
func failOnNew(w io.Writer, kinds *report.Kinds, compared, implFailed int, files map[string]string) error {
	failure, err := kinds.New(w, compared, implFailed, files)
	if err != nil {
		return exitcode.Input{Err: fmt.Errorf("--fail-on-new: %w", err)}
	}
	if failure != "" {
		return exitcode.Failure{Msg: "--fail-on-new: " + failure}
	}
	return nil
}

// setFlags are the flags set on the command line (in pflag's order) and
// their values: those a replay command repeats.
func setFlags(fs *pflag.FlagSet) []Flag {
	var out []Flag
	fs.Visit(func(f *pflag.Flag) {
		values := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			values = sv.GetSlice()
		}
		out = append(out, Flag{Name: f.Name, Values: values})
	})
	return out
}
