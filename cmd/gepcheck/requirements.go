package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/suite/requirements"
)

// requirementOut is one requirement as `gepcheck requirements -o json`
// prints it: the catalogue entry and its status.
type requirementOut struct {
	requirements.Requirement
	Status requirements.Status `json:"status"`
}

func newRequirements(stdout io.Writer) *cobra.Command {
	var output, spec string
	var uncovered bool
	cmd := &cobra.Command{
		Use:   "requirements [-o table|json] [--spec " + strings.Join(requirements.Specs, "|") + "] [--uncovered]",
		Short: "List the MUST and SHOULD statements of the specs and what covers each",
		Long: `requirements prints gepcheck's requirements catalogue (suite/requirements):
every sentence of GEP-713, GEP-2649 and the Kuadrant RFC on Defaults &
Overrides with an upper-case MUST, MUST NOT, SHOULD or SHOULD NOT, and its
status:

  covered     scenarios, properties or tests check it
  partial     covered in part; an open issue will cover the rest
  pending     gepcheck can test it but does not yet (the issue is named)
  untestable  gepcheck cannot test it (CRD design, documentation, ...; the
              reason is given)

The table starts with a summary per spec and level, then one line per
requirement; -o json prints every entry in full. --uncovered keeps only the
requirements that are pending or partial.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "table" && output != "json" {
				return inputError{fmt.Errorf("--output %q: one of table, json", output)}
			}
			if spec != "" && !slices.Contains(requirements.Specs, spec) {
				return inputError{fmt.Errorf("--spec %q: one of %s", spec, strings.Join(requirements.Specs, ", "))}
			}
			all, err := requirements.Load()
			if err != nil {
				return err
			}
			var inSpec, shown []requirements.Requirement
			for _, r := range all {
				if spec != "" && r.Spec != spec {
					continue
				}
				inSpec = append(inSpec, r)
				if !uncovered || r.Open() {
					shown = append(shown, r)
				}
			}
			if output == "json" {
				out := make([]requirementOut, 0, len(shown))
				for _, r := range shown {
					out = append(out, requirementOut{Requirement: r, Status: r.Status()})
				}
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				return enc.Encode(out)
			}
			return writeRequirements(stdout, requirements.Coverage(inSpec), shown)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output format: table or json")
	cmd.Flags().StringVar(&spec, "spec", "", "only this spec: "+strings.Join(requirements.Specs, ", "))
	cmd.Flags().BoolVar(&uncovered, "uncovered", false, "only the requirements that are pending or partial")
	return cmd
}

// writeRequirements prints the summary, then one line per requirement.
func writeRequirements(w io.Writer, sum requirements.Summary, reqs []requirements.Requirement) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SPEC\tLEVEL\tTOTAL\tCOVERED\tPARTIAL\tPENDING\tUNTESTABLE")
	row := func(spec, level string, c requirements.Counts) {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d", spec, level, c.Total, c.Covered, c.Partial, c.Pending, c.Untestable)
		if c.Missing > 0 {
			fmt.Fprintf(tw, "\t(%d with nothing)", c.Missing)
		}
		fmt.Fprintln(tw)
	}
	for _, r := range sum.Rows {
		row(r.Spec, string(r.Level), r.Counts)
	}
	row("all", "", sum.Total)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tLEVEL\tSTATUS\tQUOTE")
	for _, r := range reqs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Level, r.Status(), truncate(r.Quote, 80))
	}
	return tw.Flush()
}

// truncate keeps the first n runes of s, marking a cut with an ellipsis.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
