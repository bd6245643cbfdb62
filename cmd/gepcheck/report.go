package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/observe"
	"github.com/gepcheck/gepcheck/suite/runner"
)

// reportFlags are run's and fuzz's flags for the reports people publish
// (docs/reports.md).
type reportFlags struct {
	dir   string
	who   impl.Who // --report-*, over the implementation's own
	shard string
	// known is the directory of kept findings the failures are matched
	// with (markKnown): run's and report's --known, fuzz's own --known.
	known string
}

func (f *reportFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.dir, "report-dir", "", "write the run's reports (ConformanceReport YAML, JUnit, Markdown, HTML, and the results they come from) into DIR/<implementation>/<version>/")
	fs.StringVar(&f.who.Organization, "report-organization", "", "the implementation's organization in reports (default: the implementation's own)")
	fs.StringVar(&f.who.Project, "report-project", "", "the implementation's project in reports (default: the implementation's own)")
	fs.StringVar(&f.who.URL, "report-url", "", "the implementation's URL in reports (default: the implementation's own)")
	fs.StringVar(&f.who.Version, "report-version", "", "the implementation's version in reports (default: the implementation's own)")
	fs.StringArrayVar(&f.who.Contact, "report-contact", nil, "the implementation's contact in reports; repeatable (default: the implementation's own)")
	fs.StringVar(&f.shard, "shard", "", "run only shard i of N (i/N): scenario files in path order, random cases by index, case k in shard k mod N + 1; gepcheck report merge puts the shards' results together (docs/reports.md)")
}

// parseShard reads --shard.
func (f *reportFlags) parseShard() (suite.Shard, error) {
	sh, err := suite.ParseShard(f.shard)
	if err != nil {
		return sh, exitcode.Input{Err: err}
	}
	return sh, nil
}

// results starts the results of a run of im in mode under sem.
func (f *reportFlags) results(im impl.Implementation, cfg impl.Config, mode string, sem engine.Semantics, caps observe.Capabilities) *report.Results {
	r := report.NewResults(runner.Reported(im, cfg, f.who), mode, sem, caps)
	if f.shard != "" {
		r.Shards = []string{f.shard}
	}
	return r
}

// write writes r's reports when --report-dir is set (report.Publish), and
// says where.
func (f *reportFlags) write(w io.Writer, r *report.Results) error {
	if f.dir == "" || r == nil {
		return nil
	}
	dir, err := report.Publish(f.dir, f.known, r)
	var de report.DirError
	var ke report.KnownError
	var missing *report.MissingError
	switch {
	case errors.As(err, &de):
		return exitcode.Input{Err: fmt.Errorf("--report-dir: %w (--report-version sets the version)", de.Err)}
	case errors.As(err, &ke):
		return exitcode.Input{Err: fmt.Errorf("--known %s: %w", f.known, ke.Err)}
	case errors.As(err, &missing):
		return exitcode.Input{Err: fmt.Errorf("--report-dir: %w: pass --report-organization, --report-project, --report-url, --report-version, --report-contact", err)}
	case err != nil:
		return exitcode.Input{Err: fmt.Errorf("--report-dir: %w", err)}
	}
	fmt.Fprintf(w, "reports written to %s\n", ref.Printable(dir))
	return nil
}

func newReport(stdout io.Writer) *cobra.Command {
	var out, known string
	write := func(r *report.Results) error {
		if err := report.MarkKnown(r, known); err != nil {
			return exitcode.Input{Err: fmt.Errorf("--known %s: %w", known, err)}
		}
		dir, err := report.Write(out, r)
		var missing *report.MissingError
		if errors.As(err, &missing) {
			return exitcode.Input{Err: fmt.Errorf("%w: the results file's implementation block must have them (a run sets them with its --report-* flags)", err)}
		}
		if err != nil {
			return exitcode.Input{Err: err}
		}
		fmt.Fprintf(stdout, "reports written to %s\n", ref.Printable(dir))
		return nil
	}
	cmd := &cobra.Command{
		Use:   "report RESULTS [--out DIR]",
		Short: "Write the reports people publish from a run's results (ConformanceReport YAML, JUnit, Markdown, HTML)",
		Long: `report writes, from the results file a run with --report-dir keeps
(results-MODE.json), the ConformanceReport YAML (Gateway API's own types; it must
decode strictly with them), JUnit XML, a README in the layout of Gateway API's
conformance/reports directory and a self-contained HTML page with a diagram of
every scenario, into DIR/<implementation>/<version>/ (docs/reports.md). The
same results give the same bytes but for the date.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := report.ReadResults(args[0])
			if err != nil {
				return exitcode.Input{Err: err}
			}
			return write(r)
		},
	}
	cmd.PersistentFlags().StringVar(&out, "out", "reports", "directory the reports are written under")
	cmd.PersistentFlags().StringVar(&known, "known", "scenarios/findings", "kept findings (gepcheck findings) each failure is matched with: known (its triage and upstream links) or a regression; a directory that does not exist matches nothing")
	merge := &cobra.Command{
		Use:   "merge RESULTS... [--out DIR]",
		Short: "Merge the results of the shards of one run (--shard i/N) and write their reports",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			parts, err := report.ReadAll(args)
			if err != nil {
				return exitcode.Input{Err: err}
			}
			r, err := report.Merge(parts)
			if err != nil {
				return exitcode.Input{Err: err}
			}
			return write(r)
		},
	}
	matrix := &cobra.Command{
		Use:   "matrix DIR",
		Short: "Print the page of an implementation's reports directory over its versions (Markdown)",
		Long: `matrix reads DIR/<version>/results-offline.json of every version in an
implementation's reports directory and prints a Markdown page: each scenario
case's outcome per version, each kind of difference the random campaigns
found per version, and what changed from one version to the next.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rs, err := report.ReadVersions(args[0])
			if err != nil {
				return exitcode.Input{Err: err}
			}
			_, err = stdout.Write(report.Matrix(rs))
			return err
		},
	}
	var under []string
	compare := &cobra.Command{
		Use:   "compare RESULTS...",
		Short: "Print implementations side by side from their results files (Markdown)",
		Long: `compare reads the results file of a run of each implementation
(results-MODE.json, kept by --report-dir) and prints a Markdown table, one
column per file in the order given: each scenario case's outcome, each
random campaign's disagreements and the kinds of difference it found
(docs/comparison.md is written this way).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rs, err := report.ReadAll(args)
			if err != nil {
				return exitcode.Input{Err: err}
			}
			_, err = stdout.Write(report.Compare(rs, under))
			return err
		},
	}
	compare.Flags().StringSliceVar(&under, "under", nil, "keep only the cases of scenario files under these paths")
	cmd.AddCommand(merge, matrix, compare)
	return cmd
}
