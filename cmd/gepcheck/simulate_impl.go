package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/suite/impl"
	"github.com/gepcheck/gepcheck/suite/observe"
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

// beside runs c's input through the implementation --impl names and the
// reference as that implementation claims to read the specs (its
// semantics and status vocabulary, or those --semantics and
// --status-vocabulary give).
func (b *besideFlags) beside(cmd *cobra.Command, c *common, stdin io.Reader) (*sidebyside.Result, error) {
	im, cfg, err := b.impl.Selected()
	if err != nil {
		return nil, inputError{err}
	}
	var sem, voc string
	if cmd.Flags().Changed("semantics") {
		sem = c.semantics
	}
	if cmd.Flags().Changed("status-vocabulary") {
		voc = c.vocab
	}
	s, err := claim(cfg, sem)
	if err != nil {
		return nil, inputError{err}
	}
	v, err := claimVocabulary(cfg, voc)
	if err != nil {
		return nil, inputError{err}
	}
	if len(c.files) == 0 {
		return nil, inputError{errors.New("no input: pass -f FILE, -f DIR or -f -")}
	}
	ctx, stop := signalContext()
	defer stop()
	d, err := cfg.Offline(ctx)
	if errors.Is(err, impl.ErrUnsupported) {
		return nil, inputError{fmt.Errorf("--impl %s: its translator needs a cluster (it has no offline form); run it there: gepcheck run --cluster local --impl %s", im.Name(), im.Name())}
	}
	if err != nil {
		return nil, environmentOr(err)
	}
	d = observe.ClaimingVocabulary(observe.Claiming(d, s), v)
	if err := c.opts.CheckLimits(); err != nil {
		return nil, inputError{err}
	}
	docs, err := load.ReadLimited(c.files, stdin, c.opts.Limits)
	if err != nil {
		return nil, inputError{err}
	}
	yaml, err := load.Marshal(docs)
	if err != nil {
		return nil, inputError{err}
	}
	known, err := sidebyside.ReadKnown(b.known, im.Name())
	if err != nil {
		return nil, inputError{fmt.Errorf("--known: %w", err)}
	}
	res, err := sidebyside.Run(ctx, d, observe.Case{Name: "input", YAML: yaml, Profiles: c.profiles}, known)
	if err := interrupted(ctx, err); err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, err
		}
		return nil, inputError{err}
	}
	return res, nil
}

// simulateBeside is simulate --impl.
func simulateBeside(cmd *cobra.Command, b *besideFlags, c *common, stdin io.Reader, stdout io.Writer) error {
	res, err := b.beside(cmd, c, stdin)
	if err != nil {
		return err
	}
	switch c.output {
	case "table":
		return res.Table(stdout)
	case "json":
		return res.JSON(stdout)
	case "yaml":
		return render.Data(stdout, "yaml", res)
	}
	return inputError{fmt.Errorf("--output %s with --impl: one of table, json, yaml", c.output)}
}

// explainBeside is explain --impl --target.
func explainBeside(cmd *cobra.Command, b *besideFlags, c *common, stdin io.Reader, stdout io.Writer, target string) error {
	if target == "" {
		return inputError{errors.New("--impl with explain: pass --target (where the implementation took each field from)")}
	}
	r, err := ref.Parse(target)
	if err != nil {
		return inputError{fmt.Errorf("--target: %w", err)}
	}
	res, err := b.beside(cmd, c, stdin)
	if err != nil {
		return err
	}
	x, err := res.Explain(r)
	if err != nil {
		return inputError{err}
	}
	switch c.output {
	case "table":
		return x.Table(stdout)
	case "json", "yaml":
		return render.Data(stdout, c.output, x)
	}
	return inputError{fmt.Errorf("--output %s with --impl: one of table, json, yaml", c.output)}
}
