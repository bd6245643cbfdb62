package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/suite/input"
)

func newSimulate(stdin io.Reader, stdout io.Writer, exit func(code int)) *cobra.Command {
	var c common
	var failOn []string
	var b besideFlags
	cmd := &cobra.Command{
		Use:   "simulate -f FILE|DIR|- [--profile NAME|FILE] [--semantics gep-713|sticky-overrides] [-o table|wide|name|yaml|json|html|dot|mermaid] [--no-headers]",
		Short: "Compute effective policies, statuses and provenance",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if b.impl.Impl != "" {
				return simulateBeside(cmd, &b, &c, stdin, stdout)
			}
			fail, err := simulator.ParseFailOn(failOn, false)
			if err != nil {
				return exitcode.Input{Err: fmt.Errorf("--fail-on %w", err)}
			}
			stop, err := c.bounds.Watch(cmd.ErrOrStderr(), exit)
			if err != nil {
				return err
			}
			defer stop()
			m, sem, err := c.load(stdin)
			if err != nil {
				return err
			}
			out := m.Run(sem, nil)
			if err := m.Limits(out); err != nil {
				return exitcode.Input{Err: err}
			}
			printWarnings(cmd.ErrOrStderr(), input.RunWarnings(m, out))
			if err := render.SimulationAs(stdout, c.output, c.tableOptions(), m, out); err != nil {
				return err
			}
			return tripped(fail, false, out)
		},
	}
	c.flags(cmd, exit)
	failOnFlag(cmd, &failOn, false)
	b.add(cmd)
	return cmd
}
