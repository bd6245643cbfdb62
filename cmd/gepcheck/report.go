package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/reports/report"
)

func newReport(stdout io.Writer) *cobra.Command {
	var c report.Command
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
		RunE: func(cmd *cobra.Command, args []string) error { return c.Report(stdout, args[0]) },
	}
	c.AddFlags(cmd.PersistentFlags())
	merge := &cobra.Command{
		Use:   "merge RESULTS... [--out DIR]",
		Short: "Merge the results of the shards of one run (--shard i/N) and write their reports",
		Args:  cobra.MinimumNArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return c.Merge(stdout, args) },
	}
	matrix := &cobra.Command{
		Use:   "matrix DIR",
		Short: "Print the page of an implementation's reports directory over its versions (Markdown)",
		Long: `matrix reads DIR/<version>/results-offline.json of every version in an
implementation's reports directory and prints a Markdown page: each scenario
case's outcome per version, each kind of difference the random campaigns
found per version, and what changed from one version to the next.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return c.Matrix(stdout, args[0]) },
	}
	compare := &cobra.Command{
		Use:   "compare RESULTS...",
		Short: "Print implementations side by side from their results files (Markdown)",
		Long: `compare reads the results file of a run of each implementation
(results-MODE.json, kept by --report-dir) and prints a Markdown table, one
column per file in the order given: each scenario case's outcome, each
random campaign's disagreements and the kinds of difference it found
(docs/comparison.md is written this way).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return c.Compare(stdout, args) },
	}
	c.AddUnderFlag(compare.Flags())
	cmd.AddCommand(merge, matrix, compare)
	return cmd
}
