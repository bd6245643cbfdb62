package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
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
	return failedError{fmt.Sprintf("--fail-on: %d tripped:\n%s", len(lines), strings.Join(lines, "\n"))}
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
				return inputError{fmt.Errorf("--fail-on %w", err)}
			}
			opts, sem, err := c.options(render.DiffFormats)
			if err != nil {
				return err
			}
			stop, err := c.bounds.watch(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer stop()
			var before, after *simulator.Output
			switch {
			case c.src.on:
				if len(args) > 0 || len(c.files)+len(c.kdirs)+len(deletes) == 0 {
					return inputError{errors.New("with --from-cluster, pass the change as -f FILE|DIR|-, -k DIR or --delete FILE|DIR|- (and no OLD NEW)")}
				}
				if slices.Contains(deletes, "-") && slices.Contains(c.files, "-") {
					return inputError{errors.New("--delete - and -f - cannot both be read from standard input")}
				}
				before, after, err = c.clusterStates(stdin, opts, sem, deletes)
			default:
				if len(deletes) > 0 {
					return inputError{errors.New("--delete deletes from the cluster's state: pass --from-cluster (between OLD and NEW, an object NEW lacks is deleted)")}
				}
				if len(args) != 2 || len(c.files)+len(c.kdirs) > 0 {
					return inputError{errors.New("pass OLD and NEW (files or folders), or --from-cluster -f CHANGE")}
				}
				if args[0] == "-" && args[1] == "-" {
					return inputError{errors.New("OLD and NEW cannot both be - (standard input is read once)")}
				}
				before, after, err = fileStates(args[0], args[1], stdin, c.stderr(), opts, sem)
			}
			if err != nil {
				return err
			}
			if len(before.Policies) == 0 && len(after.Policies) == 0 {
				return inputError{errors.New("neither state has a policy of a known kind to simulate; pass --profile")}
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

// fileStates loads and simulates OLD and NEW, what they share decoded
// once (simulator.BuildPair; docs/performance.md, gepcheck diff).
func fileStates(old, new string, stdin io.Reader, stderr io.Writer, opts simulator.Options, sem engine.Semantics) (before, after *simulator.Output, err error) {
	docs, warns, errs := simulator.ReadPair(old, new, stdin, opts.Limits)
	printWarnings(stderr, warns)
	if err := errors.Join(errs[0], errs[1]); err != nil {
		for i, p := range []string{old, new} {
			if errs[i] == nil {
				continue
			}
			// A Helm chart: the hint, not its templates' errors
			// (hints.go); its rendering on standard input in its place.
			args := []string{old, new}
			args[i] = "-"
			if h := helmHint([]string{p}, "gepcheck diff "+strings.Join(args, " ")); h != "" {
				return nil, nil, inputError{errors.New(h)}
			}
		}
		return nil, nil, inputError{err}
	}
	return simulatePair(docs[0], docs[1], opts, sem, stderr)
}

// simulatePair builds and simulates two states, their warnings on
// stderr as simulate's.
func simulatePair(a, b []*load.Doc, opts simulator.Options, sem engine.Semantics, stderr io.Writer) (before, after *simulator.Output, err error) {
	before, after, warns, err := simulator.SimulatePair(a, b, opts, sem)
	printWarnings(stderr, warns)
	if err != nil {
		return nil, nil, inputError{err}
	}
	return before, after, nil
}

// clusterStates reads the cluster once and simulates it as it is and with
// the change made: the objects of deletes deleted (simulator.Delete, as
// kubectl delete -f), then the files of -f and -k applied
// (simulator.Apply, as kubectl apply -f).
func (c *common) clusterStates(stdin io.Reader, opts simulator.Options, sem engine.Semantics, deletes []string) (before, after *simulator.Output, err error) {
	docs, err := c.src.read(opts)
	if err != nil {
		return nil, nil, err
	}
	next := docs
	if len(deletes) > 0 {
		gone, warns, err := simulator.ReadInput(simulator.Input{Files: deletes, Stdin: stdin}, opts.Limits)
		printWarnings(c.stderr(), warns)
		if err != nil {
			return nil, nil, inputError{fmt.Errorf("--delete: %w", err)}
		}
		// kubectl delete -f deletes what gepcheck does not read too
		// (a Deployment, a Secret, another namespace's objects): those
		// are left out of the simulation with a warning, not NotFound.
		read, unread := simulator.Covered(gone, c.src.applyNamespace(), c.src.readOpts.Covers)
		for _, d := range unread {
			printWarnings(c.stderr(), []string{fmt.Sprintf("--delete: %s: %s is not read from the cluster (docs/cluster.md, Reading a cluster): its deletion changes nothing gepcheck simulates", d.Source, d.Object())})
		}
		if next, err = simulator.Delete(docs, read, c.src.applyNamespace()); err != nil {
			return nil, nil, inputError{fmt.Errorf("--delete: %w", err)}
		}
	}
	if len(c.files)+len(c.kdirs) > 0 {
		change, err := c.readChange(stdin, opts)
		if err != nil {
			return nil, nil, err
		}
		next = simulator.Apply(next, change, c.src.applyNamespace())
	}
	return simulatePair(docs, next, opts, sem, c.stderr())
}
