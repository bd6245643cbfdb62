package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/internal/buildinfo"
)

// newVersion is `gepcheck version`: which gepcheck this is, the line
// every report records (docs/reports.md).
func newVersion(stdout io.Writer) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version [-o table|json|yaml]",
		Short: "Print gepcheck's version, the commit it was built from and the Go version",
		Long: `version prints the gepcheck module version ("devel" for a build from a work
tree), the VCS commit it was built from ("+dirty" when the tree had changes,
"unknown" when the toolchain stamped none, as under go run) and the Go
version: the line every report gepcheck writes records (docs/reports.md).
gepcheck --version prints the same; -o json and -o yaml print the three as
fields (-o text, an older name of -o table, is still taken).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			i := buildinfo.Read()
			switch output {
			case formatTable, "text":
				_, err := fmt.Fprintln(stdout, i.String())
				return err
			case formatJSON, formatYAML:
				return writeData(stdout, output, i)
			}
			return checkOutput(output, formatTable, formatJSON, formatYAML)
		},
	}
	// text: the name this format had before -o table; kept as an alias.
	addOutputFlag(cmd, &output, formatTable, formatJSON, formatYAML)
	return cmd
}
