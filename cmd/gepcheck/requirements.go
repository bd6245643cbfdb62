package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/simulator/render"
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
	var uncovered, noHeaders bool
	formats := []string{formatTable, formatWide, formatName, formatJSON, formatYAML}
	cmd := &cobra.Command{
		Use:   "requirements [ID...] [-o table|wide|name|json|yaml] [--no-headers] [--spec " + strings.Join(requirements.Specs, "|") + "] [--uncovered]",
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
requirement, its quote cut to fit 120 columns; -o wide prints the quotes in
full, -o name the IDs, -o json and -o yaml every entry in full. IDs
(gepcheck requirements GEP-713-019 GEP-2649-023) keep those requirements, in
the order given; --uncovered keeps only the requirements that are pending or
partial.`,
		ValidArgsFunction: completeRequirementIDs,
		RunE: func(cmd *cobra.Command, ids []string) error {
			if err := checkOutput(output, formats...); err != nil {
				return err
			}
			if spec != "" && !slices.Contains(requirements.Specs, spec) {
				return inputError{fmt.Errorf("--spec %q: one of %s", spec, strings.Join(requirements.Specs, ", "))}
			}
			all, err := requirements.Load()
			if err != nil {
				return err
			}
			if len(ids) > 0 {
				byID := map[string]requirements.Requirement{}
				for _, r := range all {
					byID[r.ID] = r
				}
				var picked []requirements.Requirement
				var unknown []string
				for _, id := range ids {
					r, ok := byID[strings.ToUpper(id)]
					if !ok {
						unknown = append(unknown, id)
						continue
					}
					picked = append(picked, r)
				}
				if len(unknown) > 0 {
					return inputError{fmt.Errorf("no requirement %s in the catalogue (gepcheck requirements -o name lists the IDs)", strings.Join(unknown, ", "))}
				}
				all = picked
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
			switch output {
			case formatJSON, formatYAML:
				out := make([]requirementOut, 0, len(shown))
				for _, r := range shown {
					out = append(out, requirementOut{Requirement: r, Status: r.Status()})
				}
				return writeData(stdout, output, out)
			case formatName:
				for _, r := range shown {
					fmt.Fprintln(stdout, r.ID)
				}
				return nil
			}
			return writeRequirements(stdout, requirements.Coverage(inSpec), shown, render.TableOptions{Wide: output == formatWide, NoHeaders: noHeaders})
		},
	}
	addOutputFlag(cmd, &output, formats...)
	addNoHeadersFlag(cmd, &noHeaders)
	cmd.Flags().StringVar(&spec, "spec", "", "only this spec: "+strings.Join(requirements.Specs, ", "))
	cmd.Flags().BoolVar(&uncovered, "uncovered", false, "only the requirements that are pending or partial")
	return cmd
}

// writeRequirements prints the summary, then one line per requirement,
// its quote cut to fit 120 columns unless opts.Wide; --no-headers: the
// requirements' lines alone.
func writeRequirements(w io.Writer, sum requirements.Summary, reqs []requirements.Requirement, opts render.TableOptions) error {
	if !opts.NoHeaders {
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
	}
	t := render.Table{Header: []string{"ID", "LEVEL", "STATUS", "QUOTE"}}
	// One line each: the quote cut where the row reaches 120 columns
	// (the three columns before it, two spaces after each, an ellipsis).
	id, level, status := len("ID"), len("LEVEL"), len("STATUS")
	for _, r := range reqs {
		id, level, status = max(id, len(r.ID)), max(level, len(r.Level)), max(status, len(r.Status()))
	}
	room := max(render.Width-id-level-status-6-1, 20)
	for _, r := range reqs {
		quote := r.Quote
		if !opts.Wide {
			quote = truncate(quote, room)
		}
		t.Rows = append(t.Rows, []string{r.ID, string(r.Level), string(r.Status()), quote})
	}
	return t.Write(w, opts)
}

// truncate keeps the first n runes of s, marking a cut with an ellipsis.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
