package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/suite/requirements"
)

func newRequirements(stdout io.Writer) *cobra.Command {
	var f requirements.Flags
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
			return f.Run(stdout, ids)
		},
	}
	addOutputFlag(cmd, &f.Output, requirements.Formats...)
	addNoHeadersFlag(cmd, &f.NoHeaders)
	f.AddFlags(cmd.Flags())
	return cmd
}
