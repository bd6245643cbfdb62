package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/suite/requirements"
)

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
				return exitcode.Input{Err: fmt.Errorf("--spec %q: one of %s", spec, strings.Join(requirements.Specs, ", "))}
			}
			all, err := requirements.Load()
			if err != nil {
				return err
			}
			inSpec, shown, err := requirements.Pick(all, ids, spec, uncovered)
			if err != nil {
				return exitcode.Input{Err: err}
			}
			switch output {
			case formatJSON, formatYAML:
				return writeData(stdout, output, requirements.List(shown))
			case formatName:
				for _, r := range shown {
					fmt.Fprintln(stdout, r.ID)
				}
				return nil
			}
			return requirements.WriteTable(stdout, requirements.Coverage(inSpec), shown, render.TableOptions{Wide: output == formatWide, NoHeaders: noHeaders})
		},
	}
	addOutputFlag(cmd, &output, formats...)
	addNoHeadersFlag(cmd, &noHeaders)
	cmd.Flags().StringVar(&spec, "spec", "", "only this spec: "+strings.Join(requirements.Specs, ", "))
	cmd.Flags().BoolVar(&uncovered, "uncovered", false, "only the requirements that are pending or partial")
	return cmd
}
