package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/suite/input"
)

// addKustomizeFlag adds -k DIR (docs/input.md, Kustomize) to a command
// that reads -f: read it with simulator.ReadInput or LoadInput.
func addKustomizeFlag(cmd *cobra.Command, into *[]string) {
	cmd.Flags().StringArrayVarP(into, "kustomize", "k", nil, "kustomization directory, rendered as kubectl kustomize DIR renders it; repeatable, with -f too")
	_ = cmd.MarkFlagDirname("kustomize")
}

// printWarnings writes warnings to w (standard error): input.PrintWarnings.
func printWarnings(w io.Writer, warnings []string) {
	input.PrintWarnings(w, warnings)
}
