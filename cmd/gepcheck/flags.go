package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/render"
)

// addNoHeadersFlag adds --no-headers, kubectl's: tables without their
// section titles and column headers.
func addNoHeadersFlag(cmd *cobra.Command, into *bool) {
	cmd.Flags().BoolVar(into, "no-headers", false, "tables (-o table, -o wide) without section titles and column headers")
}

// The output formats, one vocabulary across commands (docs/output.md):
// each command takes the ones that mean something for what it prints.
const (
	formatTable = "table" // for people, fitting 120 columns
	formatWide  = "wide"  // the table, every cell in full
	formatJSON  = "json"
	formatYAML  = "yaml"
)

// addOutputFlag adds -o/--output taking formats, the first the default,
// completed from them.
func addOutputFlag(cmd *cobra.Command, into *string, formats ...string) {
	cmd.Flags().StringVarP(into, "output", "o", formats[0], "output format: "+strings.Join(formats, ", "))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
}

// checkOutput is the error for an --output value not among formats.
func checkOutput(v string, formats ...string) error {
	if slices.Contains(formats, v) {
		return nil
	}
	return exitcode.Input{Err: fmt.Errorf("--output %q: one of %s", v, strings.Join(formats, ", "))}
}

// writeData writes v as JSON (indented two spaces, < and > as they are)
// or YAML (render.Document).
func writeData(w io.Writer, format string, v any) error {
	return render.Document(w, format, v)
}
