package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/render"
)

// failOnFlag adds --fail-on; withChanged: "changed" is a value (diff).
func failOnFlag(cmd *cobra.Command, into *[]string, withChanged bool) {
	values := "conflicted, invalid, targetnotfound, overridden"
	if withChanged {
		values = "changed, " + values
	}
	cmd.Flags().StringSliceVar(into, "fail-on", nil, "exit 1 when the result has any of: "+values+" (repeatable, or a comma list; docs/diff.md)")
}

// tripped is the error of a run whose --fail-on tripped, or nil.
func tripped(fail []simulator.FailOn, changed bool, out *simulator.Output) error {
	var lines []string
	for _, f := range fail {
		if f == simulator.FailChanged && changed {
			lines = append(lines, "changed: the effective policies or the conditions change")
		}
	}
	lines = append(lines, simulator.Tripped(out, fail)...)
	if len(lines) == 0 {
		return nil
	}
	return exitcode.Failure{Msg: fmt.Sprintf("--fail-on: %d tripped:\n%s", len(lines), strings.Join(lines, "\n"))}
}

func newDiff(stdin io.Reader, stdout io.Writer, exit func(code int)) *cobra.Command {
	c := common{formats: render.DiffFormats}
	var failOn, deletes []string
	cmd := &cobra.Command{
		Use:   "diff OLD NEW | diff --from-cluster [--delete GONE] [-f CHANGE] [-o table|wide|name|json|yaml|markdown] [--no-headers]",
		Short: "What changes between two states: effective fields (before → after, with provenance) and flipped conditions",
		Long: `diff compares two states of the same objects, each simulated as simulate
would: the effective fields that change on each path, before and after, with
the policy that set them, and the conditions that flip (docs/diff.md).

  gepcheck diff OLD NEW                      files or folders
  gepcheck diff --from-cluster -f CHANGE     the cluster's state, and the
                                             same with CHANGE applied as
                                             kubectl apply -f would
  gepcheck diff --from-cluster --delete GONE [-f CHANGE]
                                             ... with the objects GONE names
                                             deleted first, as kubectl
                                             delete -f would

The tables fit 120 columns (long values wrapped, cut past 4 lines); -o wide
prints every cell in full; --no-headers leaves out the titles and column
headers; -o name lists the objects the change touches as kind/name: the
policies that set a changed field, before or after, and the objects whose
conditions flip.`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			fail, err := simulator.ParseFailOn(failOn, true)
			if err != nil {
				return exitcode.Input{Err: fmt.Errorf("--fail-on %w", err)}
			}
			opts, sem, err := c.options(render.DiffFormats)
			if err != nil {
				return err
			}
			stop, err := c.bounds.Watch(cmd.ErrOrStderr(), exit)
			if err != nil {
				return err
			}
			defer stop()
			a, b, err := c.source(stdin).Pair(args, deletes, opts)
			if err != nil {
				return err
			}
			before, after, warns, err := simulator.SimulatePair(a, b, opts, sem)
			printWarnings(c.stderr(), warns)
			if err != nil {
				return exitcode.Input{Err: err}
			}
			if len(before.Policies) == 0 && len(after.Policies) == 0 {
				return exitcode.Input{Err: errors.New("neither state has a policy of a known kind to simulate; pass --profile")}
			}
			d := simulator.DiffOutputs(before, after)
			if err := render.Diff(stdout, c.output, d, c.tableOptions()); err != nil {
				return err
			}
			return tripped(fail, d.Changed(), after)
		},
	}
	c.flags(cmd, exit)
	failOnFlag(cmd, &failOn, true)
	cmd.Flags().StringArrayVar(&deletes, "delete", nil, "with --from-cluster: file, directory or - whose objects are deleted from the cluster's state before -f is applied, as kubectl delete -f deletes them (by kind, namespace and name); repeatable (docs/diff.md, Deleting objects)")
	return cmd
}
