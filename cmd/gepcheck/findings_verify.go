package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/reports/report"
)

// newFindingsVerify: gepcheck findings verify, and with update=true
// gepcheck findings update, over the results of a run that included the
// kept findings (docs/properties.md, Kept findings).
func newFindingsVerify(stdout io.Writer, update bool) *cobra.Command {
	var results string
	use, short, long := "verify --results FILE FILE|DIR...",
		"Check that kept findings show exactly the differences they record, in a run's results",
		`verify reads the results of a run (gepcheck run --report-dir writes
results-*.json) that included kept findings of an implementation, and
checks that each finding given (directories walked; every one must be a
case of the run, judged: not skipped, not an error) shows in that run exactly the differences it
records in spec.differences: the same kind, path, fields, object,
condition, want and got (the reference's messages are not compared). A
finding that changed
prints the recorded and the new differences; gepcheck findings update
records the new ones, deliberately.

Exit 0 when every finding reproduces, 1 when one changed, 2 when a
finding is not in the results or its case was not judged, is not a
finding of an implementation, or no finding is given.`
	if update {
		use, short, long = "update --results FILE FILE|DIR...",
			"Record in kept findings the differences a run's results show on them",
			`update rewrites the spec.differences of each kept finding given with
the differences the run's results show on it (its other fields, the
comment lines above and the scenario after stay as they are). Review
the change (git diff) as any other: a finding's differences are evidence.`
	}
	cmd := &cobra.Command{
		Use: use, Short: short, Long: long,
		RunE: func(cmd *cobra.Command, args []string) error {
			return report.Verify(stdout, cmd.Name(), args, results, update)
		},
	}
	cmd.Flags().StringVar(&results, "results", "", "results file of a run that included the findings (results-*.json)")
	return cmd
}
