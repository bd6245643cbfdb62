package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/suite/input"
	"github.com/gepcheck/gepcheck/suite/sidebyside"
)

func newSimulate(stdin io.Reader, stdout io.Writer, exit func(code int)) *cobra.Command {
	var c input.Flags
	var failOn simulator.FailOnFlag
	var b sidebyside.Flags
	cmd := &cobra.Command{
		Use:   "simulate -f FILE|DIR|- [--profile NAME|FILE] [--semantics gep-713|sticky-overrides] [-o table|wide|name|yaml|json|html|dot|mermaid] [--no-headers]",
		Short: "Compute effective policies, statuses and provenance",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if b.On() {
				return b.Simulate(stdin, stdout)
			}
			fail, err := failOn.Parse()
			if err != nil {
				return err
			}
			stop, err := c.Bounds.Watch(cmd.ErrOrStderr(), exit)
			if err != nil {
				return err
			}
			defer stop()
			m, sem, err := c.Load(stdin)
			if err != nil {
				return err
			}
			out, err := c.Run(m, sem, false)
			if err != nil {
				return err
			}
			if err := render.SimulationAs(stdout, c.Output, c.TableOptions(), m, out); err != nil {
				return err
			}
			return simulator.TrippedError(fail, false, out)
		},
	}
	c.AddFlags(cmd)
	failOn.AddFlags(cmd.Flags(), false)
	b.AddFlags(cmd, &c)
	return cmd
}
