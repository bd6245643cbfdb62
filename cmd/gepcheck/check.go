package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/admission"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

func newCheck(stdout io.Writer, exit func(code int)) *cobra.Command {
	var (
		maxCELCost int64
		bounds     runBounds
		opts       simulator.Options // simulate's limits, for policy scenarios too
	)
	cmd := &cobra.Command{
		Use:   "check FILE|DIR...",
		Short: "Run scenario files and compare with the outcome they expect",
		Long: `check runs every scenario file (a YAML file whose first document is a
Scenario, see scenarios/README.md) through the engine under each semantics the
scenario names, in the status vocabulary its expectations are written in
(spec.statusVocabulary: merged, the default, or draft), and reports every
difference from the expected outcome.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxCELCost < 1 {
				return inputError{errors.New("--max-request-cel-cost must be positive")}
			}
			if err := opts.CheckLimits(); err != nil {
				return inputError{err}
			}
			// Bounded as simulate is (docs/limits.md, Admission and
			// check); a signal stops an admission scenario's prediction.
			stop, err := bounds.watch(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer stop()
			ctx, cancel := signalContext()
			defer cancel()
			// Policy scenarios do not watch ctx: a signal ends them
			// after a grace the admission predictions stop within.
			defer exitAfterSignal(ctx, cmd.ErrOrStderr(), 5*time.Second, exit)()
			files, err := scenarios.Files(args)
			if err != nil {
				return inputError{err}
			}
			if len(files) == 0 {
				return inputError{fmt.Errorf("no scenario files (.yaml, .yml) in %s", strings.Join(args, ", "))}
			}
			failed, passed := 0, 0
			for _, f := range files {
				if err := interrupted(ctx, nil); err != nil {
					return err
				}
				diffs, err := scenarios.CheckBounded(ctx, f, opts, admission.Bounds{MaxCELCost: maxCELCost})
				if err != nil {
					if errors.As(err, new(*admission.LimitError)) {
						return inputError{fmt.Errorf("%s: %w", f, predictionError(ctx, err))}
					}
					return inputError{err}
				}
				if len(diffs) == 0 {
					passed++
					fmt.Fprintf(stdout, "ok    %s\n", ref.Printable(f))
					continue
				}
				failed++
				// Names from the scenario file, escaped.
				fmt.Fprintf(stdout, "FAIL  %s\n", ref.Printable(f))
				for _, d := range diffs {
					fmt.Fprintf(stdout, "      %s\n", ref.Printable(d))
				}
			}
			fmt.Fprintf(stdout, "%d passed, %d failed\n", passed, failed)
			if failed > 0 {
				return failedError{fmt.Sprintf("%d scenario(s) failed", failed)}
			}
			return nil
		},
	}
	// The flags the loader's and the engine's messages name (docs/limits.md).
	simulator.AddLimitFlags(cmd.Flags(), &opts)
	bounds.add(cmd.Flags(), exit)
	cmd.Flags().Int64Var(&maxCELCost, "max-request-cel-cost", admission.DefaultMaxCELCost, "most CEL cost the matchConditions of all the webhooks may spend on one request of an admission scenario")
	return cmd
}
