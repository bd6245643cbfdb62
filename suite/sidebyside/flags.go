package sidebyside

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
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/suite/findings"
	"github.com/gepcheck/gepcheck/suite/input"
)

// Flags are those of simulate and explain that put an implementation's
// answer beside the reference's: --impl, each implementation's own flags,
// and --known.
type Flags struct {
	impl  impl.Flags
	known string
	cmd   *cobra.Command
	in    *input.Flags // the command's input flags, read as simulate reads them
}

// Formats are the -o values of simulate --impl and explain --impl.
var Formats = []string{"table", "wide", "json", "yaml"}

// AddFlags adds the flags to cmd, after in's: an implementation's flag of
// the same name as one of cmd's (exec's --timeout beside the watchdog's)
// is left out, and keeps its default.
func (b *Flags) AddFlags(cmd *cobra.Command, in *input.Flags) {
	b.cmd, b.in = cmd, in
	fs := pflag.NewFlagSet("impl", pflag.ContinueOnError)
	defer fs.VisitAll(func(f *pflag.Flag) {
		if cmd.Flags().Lookup(f.Name) == nil {
			cmd.Flags().AddFlag(f)
		}
	})
	b.impl.AddFlagsAs(fs, "impl", "also run the objects through this implementation offline and print its answer beside the reference's (docs/output.md, The implementation's answer)")
	cmd.Flags().StringVar(&b.known, "known", findings.Default, "with --impl: kept findings (gepcheck findings, DIR/IMPL/) that name each difference")
}

// On says whether --impl is given.
func (b *Flags) On() bool { return b.impl.Impl != "" }

// Run runs the input flags' objects (-f, -k or --from-cluster, read as
// simulate reads them: input.Source.Case) through the implementation
// --impl names and the reference as that implementation claims to read
// the specs (its semantics, status vocabulary and ancestor entries, or
// those --semantics, --status-vocabulary and --ancestor-entries give,
// each named in the result as overridden).
func (b *Flags) Run(stdin io.Reader) (*Result, error) {
	if !slices.Contains(Formats, b.in.Output) {
		return nil, exitcode.Input{Err: fmt.Errorf("--output %s with --impl: one of %s", b.in.Output, strings.Join(Formats, ", "))}
	}
	im, cfg, err := b.impl.Selected()
	if err != nil {
		return nil, exitcode.Input{Err: err}
	}
	cl, err := b.claims(cfg)
	if err != nil {
		return nil, err
	}
	opts, _, err := b.in.Options(Formats)
	if err != nil {
		return nil, err
	}
	if b.cmd.Flags().Changed("ancestor-entries") {
		cl.Ancestors = &opts.AncestorEntries
	}
	if b.in.Source(stdin).Empty() {
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
	cs, err := b.in.Source(stdin).Case(opts)
	if err != nil {
		return nil, err
	}
	known, err := ReadKnown(b.known, im.Name())
	if err != nil {
		return nil, exitcode.Input{Err: fmt.Errorf("--known: %w", err)}
	}
	res, err := RunClaiming(ctx, d, cl, cs, known)
	if err := interrupted(ctx, err); err != nil {
		return nil, err
	}
	return res, nil
}

// claims are the semantics and status vocabulary the implementation cfg
// claims, or those --semantics and --status-vocabulary give.
func (b *Flags) claims(cfg impl.Config) (Claims, error) {
	sem, voc := b.in.Claimed(b.cmd)
	s, err := impl.Claim(cfg, sem)
	if err != nil {
		return Claims{}, exitcode.Input{Err: err}
	}
	v, err := impl.ClaimVocabulary(cfg, voc)
	if err != nil {
		return Claims{}, exitcode.Input{Err: err}
	}
	return Claims{Semantics: s, Vocabulary: v}, nil
}

// interrupted is the error of a run that returned err: a run stopped by a
// signal (signals.Stopped, an exitcode.Input) or any other error is bad
// input (exit 2), but a cancelled context's, which is returned as it is.
func interrupted(ctx context.Context, err error) error {
	if s := signals.Stopped(ctx); s != nil {
		err = exitcode.Input{Err: s}
	}
	if err == nil || errors.Is(err, context.Canceled) {
		return err
	}
	return exitcode.Input{Err: err}
}

// Simulate is simulate --impl: Run, written as -o says.
func (b *Flags) Simulate(stdin io.Reader, stdout io.Writer) error {
	res, err := b.Run(stdin)
	if err != nil {
		return err
	}
	return res.Write(stdout, b.in.Output, b.in.TableOptions())
}

// Explain is explain --impl: --target (where the implementation took
// each field from) or --policy (which of the policy's fields it applied).
func (b *Flags) Explain(stdin io.Reader, stdout io.Writer, target, policy string) error {
	res, err := b.Run(stdin)
	if err != nil {
		return err
	}
	var x interface {
		Table(io.Writer, render.TableOptions) error
	}
	ns := b.in.Cluster.RefNamespace()
	if target != "" {
		r, err := input.Target(target, ns, res.Model())
		if err != nil {
			return err
		}
		if x, err = res.Explain(r); err != nil {
			return exitcode.Input{Err: err}
		}
	} else {
		r, err := input.Policy(policy, ns, res.Model())
		if err != nil {
			return err
		}
		if x, err = res.ExplainPolicy(r); err != nil {
			return exitcode.Input{Err: fmt.Errorf("--policy: %w", err)}
		}
	}
	if b.in.Output == "table" || b.in.Output == "wide" {
		return x.Table(stdout, b.in.TableOptions())
	}
	return render.Data(stdout, b.in.Output, x)
}
