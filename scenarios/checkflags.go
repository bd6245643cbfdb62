package scenarios

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/admission"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/internal/signals"
	"github.com/gepcheck/gepcheck/internal/watchdog"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/render"
)

// CheckFormats are gepcheck check's outputs (-o), the first the default.
var CheckFormats = []string{"table", "json", "yaml", "junit"}

// CheckFlags are gepcheck check's flags: simulate's limits (for policy
// scenarios too), the run's bounds (docs/limits.md, Admission and check),
// -o and the CEL budget of an admission scenario's request.
type CheckFlags struct {
	Opts       simulator.Options
	Bounds     watchdog.Flags
	Output     string // -o, one of CheckFormats (the command adds it)
	MaxCELCost int64
}

// AddFlags adds the limits, the bounds and --max-request-cel-cost to fs.
func (f *CheckFlags) AddFlags(fs *pflag.FlagSet) {
	// The flags the loader's and the engine's messages name (docs/limits.md).
	simulator.AddLimitFlags(fs, &f.Opts)
	f.Bounds.AddFlags(fs)
	fs.Int64Var(&f.MaxCELCost, "max-request-cel-cost", admission.DefaultMaxCELCost, "most CEL cost the matchConditions of all the webhooks may spend on one request of an admission scenario")
}

// validate checks the flags: an exitcode.Input naming the flag.
func (f *CheckFlags) validate() error {
	if !slices.Contains(CheckFormats, f.Output) {
		return exitcode.Input{Err: fmt.Errorf("--output %q: one of %s", f.Output, strings.Join(CheckFormats, ", "))}
	}
	if f.MaxCELCost < 1 {
		return exitcode.Input{Err: errors.New("--max-request-cel-cost must be positive")}
	}
	if err := f.Opts.CheckLimits(); err != nil {
		return exitcode.Input{Err: err}
	}
	return nil
}

// Run is gepcheck check of args (files and folders): every scenario file
// checked (CheckFiles) within the bounds, written to stdout as f.Output;
// an exitcode.Failure when a scenario fails.
func (f *CheckFlags) Run(args []string, stdout, stderr io.Writer, exit func(code int)) error {
	if err := f.validate(); err != nil {
		return err
	}
	// Bounded as simulate is; a signal stops an admission scenario's
	// prediction.
	stop, err := f.Bounds.Watch(stderr, exit)
	if err != nil {
		return err
	}
	defer stop()
	ctx, cancel := signals.Context()
	defer cancel()
	// Policy scenarios do not watch ctx: a signal ends them after a grace
	// the admission predictions stop within.
	defer signals.ExitAfter(ctx, stderr, 5*time.Second, func() { exit(exitcode.BadInput) })()
	files, err := Files(args)
	if err != nil {
		return exitcode.Input{Err: err}
	}
	if len(files) == 0 {
		return exitcode.Input{Err: fmt.Errorf("no scenario files (.yaml, .yml) in %s", strings.Join(args, ", "))}
	}
	res, err := CheckFiles(ctx, files, f.Opts, admission.Bounds{MaxCELCost: f.MaxCELCost}, func(file string, diffs []string) {
		if f.Output == "table" {
			writeCheckLine(stdout, file, diffs)
		}
	})
	if err != nil {
		return exitcode.Input{Err: err}
	}
	if err := res.Write(stdout, f.Output); err != nil {
		return err
	}
	if res.Failed > 0 {
		return exitcode.Failure{Msg: fmt.Sprintf("%d scenario(s) failed", res.Failed)}
	}
	return nil
}

// writeCheckLine writes a file's line of the table, as it is checked: ok,
// or FAIL and its differences (names from the scenario file, escaped).
func writeCheckLine(w io.Writer, file string, diffs []string) {
	if len(diffs) == 0 {
		fmt.Fprintf(w, "ok    %s\n", ref.Printable(file))
		return
	}
	fmt.Fprintf(w, "FAIL  %s\n", ref.Printable(file))
	for _, d := range diffs {
		fmt.Fprintf(w, "      %s\n", ref.Printable(d))
	}
}

// Write writes r as format, one of CheckFormats: for the table, the count
// that follows the files' lines.
func (r *CheckResults) Write(w io.Writer, format string) error {
	switch format {
	case "table":
		_, err := fmt.Fprintf(w, "%d passed, %d failed\n", r.Passed, r.Failed)
		return err
	case "junit":
		return r.JUnit(w)
	}
	return render.Document(w, format, r)
}
