package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/suite/input"
)

func newDiff(stdin io.Reader, stdout io.Writer, exit func(code int)) *cobra.Command {
	c := input.Flags{Formats: render.DiffFormats}
	var failOn simulator.FailOnFlag
	var deletes []string
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
			fail, err := failOn.Parse()
			if err != nil {
				return err
			}
			opts, sem, err := c.Options(render.DiffFormats)
			if err != nil {
				return err
			}
			stop, err := c.Bounds.Watch(cmd.ErrOrStderr(), exit)
			if err != nil {
				return err
			}
			defer stop()
			d, after, err := c.Source(stdin).Diff(args, deletes, opts, sem)
			if err != nil {
				return err
			}
			if err := render.Diff(stdout, c.Output, d, c.TableOptions()); err != nil {
				return err
			}
			return simulator.TrippedError(fail, d.Changed(), after)
		},
	}
	c.AddFlags(cmd)
	failOn.AddFlags(cmd.Flags(), true)
	cmd.Flags().StringArrayVar(&deletes, "delete", nil, "with --from-cluster: file, directory or - whose objects are deleted from the cluster's state before -f is applied, as kubectl delete -f deletes them (by kind, namespace and name); repeatable (docs/diff.md, Deleting objects)")
	return cmd
}
