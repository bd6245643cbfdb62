package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/suite/findings"
)

func newFindings(stdout io.Writer) *cobra.Command {
	var output string
	var noHeaders bool
	formats := []string{formatTable, formatWide, formatJSON, formatYAML}
	cmd := &cobra.Command{
		Use:   "findings [DIR|FILE...] [-o table|wide|json|yaml] [--no-headers]",
		Short: "List the findings files and how each is triaged",
		Long: `findings reads findings files (default ` + findings.Default + `, walked for .yaml
and .yml files) and prints one row per file: the implementation, its version
and the mode of the run that found it (offline, or the cluster; read from
the replay command the file records; - for a finding of a property), the
policy profile the run named the finding after, the kind of difference, and
its triage (spec.triage):

  contradicts-must    contradicts a MUST or MUST NOT (requirement and quote)
  contradicts-should  contradicts a SHOULD or SHOULD NOT (requirement and quote)
  undefined           the specs do not say, or say it two ways
  profile-gap         gepcheck's profile misdescribes the policy kind
  untriaged           not read against the specs yet (gepcheck fuzz writes this)

with the known upstream issues. A file that is not a finding, or whose
triage is missing or invalid (a verdict not listed, a quote not in the
requirement gepcheck requirements lists, an upstream entry not an https
URL), is bad input (exit 2). The table fits 120 columns; -o wide prints every
cell in full, -o json and -o yaml every field.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output, formats...); err != nil {
				return err
			}
			found, err := findings.ListArgs(args)
			if err != nil {
				return err
			}
			if output == formatJSON || output == formatYAML {
				return writeData(stdout, output, found)
			}
			return report.Listed(stdout, found, render.TableOptions{Wide: output == formatWide, NoHeaders: noHeaders})
		},
	}
	addOutputFlag(cmd, &output, formats...)
	addNoHeadersFlag(cmd, &noHeaders)
	cmd.AddCommand(newFindingsVerify(stdout, false), newFindingsVerify(stdout, true))
	return cmd
}
