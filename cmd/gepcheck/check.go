package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/internal/watchdog"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/admission"
	"github.com/gepcheck/gepcheck/internal/signals"
	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

func newCheck(stdout io.Writer, exit func(code int)) *cobra.Command {
	var (
		maxCELCost int64
		bounds     watchdog.Flags
		output     string
		opts       simulator.Options // simulate's limits, for policy scenarios too
	)
	cmd := &cobra.Command{
		Use:   "check FILE|DIR...",
		Short: "Run scenario files and compare with the outcome they expect",
		Long: `check runs every scenario file (a YAML file whose first document is a
Scenario, see scenarios/README.md) through the engine under each semantics the
scenario names, in the status vocabulary its expectations are written in
(spec.statusVocabulary: merged, the default, or draft), and reports every
difference from the expected outcome: a line per file (ok, or FAIL and its
differences) and the count; -o json and -o yaml print the same as
{"passed", "failed", "files": [{"file", "passed", "differences"}]}, -o junit
as JUnit XML (a test case per file, failed with its differences). Exit 1
when a scenario fails.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output, checkFormats...); err != nil {
				return err
			}
			if maxCELCost < 1 {
				return exitcode.Input{Err: errors.New("--max-request-cel-cost must be positive")}
			}
			if err := opts.CheckLimits(); err != nil {
				return exitcode.Input{Err: err}
			}
			// Bounded as simulate is (docs/limits.md, Admission and
			// check); a signal stops an admission scenario's prediction.
			stop, err := bounds.Watch(cmd.ErrOrStderr(), exit)
			if err != nil {
				return err
			}
			defer stop()
			ctx, cancel := signals.Context()
			defer cancel()
			// Policy scenarios do not watch ctx: a signal ends them
			// after a grace the admission predictions stop within.
			defer signals.ExitAfter(ctx, cmd.ErrOrStderr(), 5*time.Second, func() { exit(exitcode.BadInput) })()
			files, err := scenarios.Files(args)
			if err != nil {
				return exitcode.Input{Err: err}
			}
			if len(files) == 0 {
				return exitcode.Input{Err: fmt.Errorf("no scenario files (.yaml, .yml) in %s", strings.Join(args, ", "))}
			}
			res, err := scenarios.CheckFiles(ctx, files, opts, admission.Bounds{MaxCELCost: maxCELCost}, func(f string, diffs []string) {
				if output != formatTable {
					return
				}
				// Names from the scenario file, escaped.
				if len(diffs) == 0 {
					fmt.Fprintf(stdout, "ok    %s\n", ref.Printable(f))
					return
				}
				fmt.Fprintf(stdout, "FAIL  %s\n", ref.Printable(f))
				for _, d := range diffs {
					fmt.Fprintf(stdout, "      %s\n", ref.Printable(d))
				}
			})
			if err != nil {
				return exitcode.Input{Err: err}
			}
			passed, failed := res.Passed, res.Failed
			switch output {
			case formatTable:
				fmt.Fprintf(stdout, "%d passed, %d failed\n", passed, failed)
			case formatJUnit:
				if err := res.JUnit(stdout); err != nil {
					return err
				}
			default:
				if err := writeData(stdout, output, res); err != nil {
					return err
				}
			}
			if failed > 0 {
				return exitcode.Failure{Msg: fmt.Sprintf("%d scenario(s) failed", failed)}
			}
			return nil
		},
	}
	// The flags the loader's and the engine's messages name (docs/limits.md).
	simulator.AddLimitFlags(cmd.Flags(), &opts)
	bounds.AddFlags(cmd.Flags())
	addOutputFlag(cmd, &output, checkFormats...)
	cmd.Flags().Int64Var(&maxCELCost, "max-request-cel-cost", admission.DefaultMaxCELCost, "most CEL cost the matchConditions of all the webhooks may spend on one request of an admission scenario")
	return cmd
}

// checkFormats are check's outputs.
var checkFormats = []string{formatTable, formatJSON, formatYAML, formatJUnit}
