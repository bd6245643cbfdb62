package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/simulator/ref"
)

// addKustomizeFlag adds -k DIR (docs/input.md, Kustomize) to a command
// that reads -f: read it with simulator.ReadInput or LoadInput.
func addKustomizeFlag(cmd *cobra.Command, into *[]string) {
	cmd.Flags().StringArrayVarP(into, "kustomize", "k", nil, "kustomization directory, rendered as kubectl kustomize DIR renders it; repeatable, with -f too")
	_ = cmd.MarkFlagDirname("kustomize")
}

// printWarnings writes warnings to w (standard error), one a line, as
// "gepcheck: warning: ...": besides the output's own WARNINGS, so that
// they are seen when the output is piped or is JSON.
func printWarnings(w io.Writer, warnings []string) {
	for _, m := range warnings {
		fmt.Fprintln(w, "gepcheck: warning: "+ref.Printable(m))
	}
}
