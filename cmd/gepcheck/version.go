package main

import (
	"encoding/json"
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
		Use:   "version [-o text|json]",
		Short: "Print gepcheck's version, the commit it was built from and the Go version",
		Long: `version prints the gepcheck module version ("devel" for a build from a work
tree), the VCS commit it was built from ("+dirty" when the tree had changes,
"unknown" when the toolchain stamped none, as under go run) and the Go
version: the line every report gepcheck writes records (docs/reports.md).
gepcheck --version prints the same.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			i := buildinfo.Read()
			switch output {
			case "text":
				_, err := fmt.Fprintln(stdout, i.String())
				return err
			case "json":
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(i)
			}
			return inputError{fmt.Errorf("--output %q: one of text, json", output)}
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	return cmd
}
