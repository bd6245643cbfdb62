package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/internal/signals"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/suite/input"
	"github.com/gepcheck/gepcheck/suite/sidebyside"
)

// besideFlags are those of simulate and explain: --impl, each implementation's own
// flags, and --known.
type besideFlags struct {
	impl  impl.Flags
	known string
}

// add adds the flags to cmd, after its own: an implementation's flag of
// the same name as one of cmd's (exec's --timeout beside the watchdog's)
// is left out, and keeps its default.
func (b *besideFlags) add(cmd *cobra.Command) {
	fs := pflag.NewFlagSet("impl", pflag.ContinueOnError)
	defer fs.VisitAll(func(f *pflag.Flag) {
		if cmd.Flags().Lookup(f.Name) == nil {
			cmd.Flags().AddFlag(f)
		}
	})
	b.impl.AddFlagsAs(fs, "impl", "also run the objects through this implementation offline and print its answer beside the reference's (docs/output.md, The implementation's answer)")
	cmd.Flags().StringVar(&b.known, "known", "scenarios/findings", "with --impl: kept findings (gepcheck findings, DIR/IMPL/) that name each difference")
}

// besideFormats are the -o values of simulate --impl and explain --impl.
var besideFormats = []string{"table", "wide", "json", "yaml"}

// beside runs c's input (-f, -k or --from-cluster, read as simulate reads
// it: input.Source.Case) through the implementation --impl names and the
// reference as that implementation claims to read the specs (its
// semantics, status vocabulary and ancestor entries, or those
// --semantics, --status-vocabulary and --ancestor-entries give, each
// named in the result as overridden).
func (b *besideFlags) beside(cmd *cobra.Command, c *common, stdin io.Reader) (*sidebyside.Result, error) {
	if !slices.Contains(besideFormats, c.output) {
		return nil, exitcode.Input{Err: fmt.Errorf("--output %s with --impl: one of %s", c.output, strings.Join(besideFormats, ", "))}
	}
	im, cfg, err := b.impl.Selected()
	if err != nil {
		return nil, exitcode.Input{Err: err}
	}
	var sem, voc string
	if cmd.Flags().Changed("semantics") {
		sem = c.semantics
	}
	if cmd.Flags().Changed("status-vocabulary") {
		voc = c.vocab
	}
	s, err := impl.Claim(cfg, sem)
	if err != nil {
		return nil, exitcode.Input{Err: err}
	}
	v, err := impl.ClaimVocabulary(cfg, voc)
	if err != nil {
		return nil, exitcode.Input{Err: err}
	}
	opts, _, err := c.options(besideFormats)
	if err != nil {
		return nil, err
	}
	var anc *simulator.AncestorEntries // nil: the implementation's claim
	if cmd.Flags().Changed("ancestor-entries") {
		anc = &opts.AncestorEntries
	}
	if c.source(stdin).Empty() {
		return nil, exitcode.Input{Err: errors.New("no input: pass -f FILE, -f DIR, -f -, -k DIR or --from-cluster")}
	}
	ctx, stop := signals.Context()
	defer stop()
	d, err := cfg.Offline(ctx)
	if errors.Is(err, impl.ErrUnsupported) {
		return nil, exitcode.Input{Err: fmt.Errorf("--impl %s: its translator needs a cluster (it has no offline form); run it there: gepcheck run --cluster local --impl %s", im.Name(), im.Name())}
	}
	if err != nil {
		return nil, input.EnvironmentOr(err)
	}
	cs, err := c.source(stdin).Case(opts)
	if err != nil {
		return nil, err
	}
	known, err := sidebyside.ReadKnown(b.known, im.Name())
	if err != nil {
		return nil, exitcode.Input{Err: fmt.Errorf("--known: %w", err)}
	}
	res, err := sidebyside.RunClaiming(ctx, d, sidebyside.Claims{Semantics: s, Vocabulary: v, Ancestors: anc}, cs, known)
	if err := interrupted(ctx, err); err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, exitcode.Input{Err: err}
	}
	return res, nil
}

// simulateBeside is simulate --impl.
func simulateBeside(cmd *cobra.Command, b *besideFlags, c *common, stdin io.Reader, stdout io.Writer) error {
	res, err := b.beside(cmd, c, stdin)
	if err != nil {
		return err
	}
	return res.Write(stdout, c.output, c.tableOptions())
}

// explainBeside is explain --impl: --target (where the implementation took
// each field from) or --policy (which of the policy's fields it applied).
func explainBeside(cmd *cobra.Command, b *besideFlags, c *common, stdin io.Reader, stdout io.Writer, target, policy string) error {
	res, err := b.beside(cmd, c, stdin)
	if err != nil {
		return err
	}
	var x interface {
		Table(io.Writer, render.TableOptions) error
	}
	if target != "" {
		r, err := input.Target(target, c.src.refNamespace(), res.Model())
		if err != nil {
			return err
		}
		if x, err = res.Explain(r); err != nil {
			return exitcode.Input{Err: err}
		}
	} else {
		r, err := input.Policy(policy, c.src.refNamespace(), res.Model())
		if err != nil {
			return err
		}
		if x, err = res.ExplainPolicy(r); err != nil {
			return exitcode.Input{Err: fmt.Errorf("--policy: %w", err)}
		}
	}
	if c.output == "table" || c.output == "wide" {
		return x.Table(stdout, c.tableOptions())
	}
	return render.Data(stdout, c.output, x)
}
