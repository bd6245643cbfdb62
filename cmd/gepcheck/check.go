package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/scenarios"
)

func newCheck(stdout io.Writer, exit func(code int)) *cobra.Command {
	var f scenarios.CheckFlags
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
			return f.Run(args, stdout, cmd.ErrOrStderr(), exit)
		},
	}
	f.AddFlags(cmd.Flags())
	addOutputFlag(cmd, &f.Output, scenarios.CheckFormats...)
	return cmd
}
