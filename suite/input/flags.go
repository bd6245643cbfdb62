package input

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/internal/watchdog"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/crd"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/render"
)

// Flags are the flags of the commands that read objects and simulate them
// (simulate, explain, diff): what they read (-f, -k, --from-cluster and
// its ClusterFlags), how it is read (--profile, --semantics,
// --status-vocabulary, --ancestor-entries, --field-validation, the limits),
// how the result is printed (-o, --no-headers) and the run's bounds.
type Flags struct {
	files     []string
	kdirs     []string // -k: kustomization folders (docs/input.md)
	profiles  []string
	semantics string
	vocab     string
	ancestors string
	fieldVal  string // --field-validation
	// Output is -o, one of Formats.
	Output string
	// Formats are the command's -o values, the first the default (nil:
	// render.Formats, simulate's).
	Formats   []string
	noHeaders bool
	opts      simulator.Options // the limits (docs/limits.md)
	// Bounds are --max-memory and --timeout.
	Bounds  watchdog.Flags
	stderr  func() io.Writer // where load warnings are written too
	Cluster ClusterFlags     // --from-cluster
	command string           // the command's name, for hints (Source)
}

// AddFlags adds the flags to cmd; -k is completed with folders and -o
// with the command's formats, and cmd's PreRunE refuses the cluster flags
// without --from-cluster (ClusterFlags).
func (c *Flags) AddFlags(cmd *cobra.Command) {
	formats := c.Formats
	if formats == nil {
		formats = render.Formats
	}
	cmd.Flags().StringArrayVarP(&c.files, "filename", "f", nil, "file, directory or - (stdin) with the objects; repeatable")
	AddKustomizeFlag(cmd, &c.kdirs)
	c.stderr = cmd.ErrOrStderr
	c.command = cmd.Name()
	cmd.Flags().StringArrayVar(&c.profiles, "profile", nil, "policy profile: a built-in name ("+strings.Join(profile.BuiltinNames(), ", ")+") or a PolicyProfile file; repeatable")
	cmd.Flags().StringVar(&c.semantics, "semantics", string(engine.StickyOverrides), "path semantics: sticky-overrides (overrides are never beaten from below) or gep-713 (GEP-713's abstract process, literally; gep713, its older spelling, is read too)")
	cmd.Flags().StringVar(&c.vocab, "status-vocabulary", string(engine.VocabularyMerged), "policy status conditions: merged (GEP-713 as merged upstream: Accepted, Programmed) or draft (GEP-713's 2025 draft: Accepted, Enforced)")
	cmd.Flags().StringVar(&c.ancestors, "ancestor-entries", "gateway", "status per ancestor (Gateway API PolicyAncestorStatus, e.g. BackendTLSPolicy): gateway (one entry per Gateway) or listener (one per Gateway listener, sectionName set); docs/semantics.md")
	cmd.Flags().StringVar(&c.fieldVal, "field-validation", string(crd.FieldValidationWarn), "a policy field its kind's CRD does not know: warn (pruned with a warning, the API server's default fieldValidation), strict (bad input, exit 2, as kubectl apply --validate=strict refuses it) or ignore (pruned silently); docs/profiles.md, What is stored")
	cmd.Flags().StringVarP(&c.Output, "output", "o", formats[0], "output format: "+strings.Join(formats, ", "))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
	cmd.Flags().BoolVar(&c.noHeaders, "no-headers", false, "tables (-o table, -o wide) without section titles and column headers")
	simulator.AddLimitFlags(cmd.Flags(), &c.opts)
	c.Bounds.AddFlags(cmd.Flags())
	c.Cluster.add(cmd)
}

// AddKustomizeFlag adds -k DIR (docs/input.md, Kustomize) to a command
// that reads -f: read it with simulator.ReadInput or LoadInput.
func AddKustomizeFlag(cmd *cobra.Command, into *[]string) {
	cmd.Flags().StringArrayVarP(into, "kustomize", "k", nil, "kustomization directory, rendered as kubectl kustomize DIR renders it; repeatable, with -f too")
	_ = cmd.MarkFlagDirname("kustomize")
}

// TableOptions are the table flags: -o wide, --no-headers.
func (c *Flags) TableOptions() render.TableOptions {
	return render.TableOptions{Wide: c.Output == "wide", NoHeaders: c.noHeaders}
}

// Load is the model of what the flags name, and the semantics to run it
// with: an exitcode.Input naming the flag when one is wrong, or when
// nothing is named.
func (c *Flags) Load(stdin io.Reader) (*simulator.Model, engine.Semantics, error) {
	src := c.Source(stdin)
	if src.Empty() {
		return nil, "", exitcode.Input{Err: errors.New("no input: pass -f FILE, -f DIR, -f - or -k DIR")}
	}
	opts, sem, err := c.Options(render.Formats)
	if err != nil {
		return nil, "", err
	}
	m, err := src.Model(opts)
	return m, sem, err
}

// Run simulates m with sem as simulate does (decisions: recording who beat
// each field, as explain --target reads it; simulator.Model.RunDecisions),
// within the limits (docs/limits.md), and writes its warnings on the
// command's standard error (RunWarnings).
func (c *Flags) Run(m *simulator.Model, sem engine.Semantics, decisions bool) (*simulator.Output, error) {
	var out *simulator.Output
	if decisions {
		out = m.RunDecisions(sem)
	} else {
		out = m.Run(sem, nil)
	}
	if err := m.Limits(out); err != nil {
		return nil, exitcode.Input{Err: err}
	}
	c.Warn(RunWarnings(m, out))
	return out, nil
}

// Source is what -f, -k and --from-cluster name.
func (c *Flags) Source(stdin io.Reader) Source {
	return Source{Files: c.files, Kustomizations: c.kdirs, Stdin: stdin, Cluster: c.Cluster.live(), Command: c.command, Stderr: c.stderr()}
}

// Warn writes warnings to the command's standard error (PrintWarnings).
func (c *Flags) Warn(warnings []string) {
	PrintWarnings(c.stderr(), warnings)
}

// Options reads the flags of the simulation; formats are the -o values
// accepted.
func (c *Flags) Options(formats []string) (simulator.Options, engine.Semantics, error) {
	sem, err := engine.ParseSemantics(c.semantics)
	if err != nil {
		return simulator.Options{}, "", exitcode.Input{Err: fmt.Errorf("--semantics: %w", err)}
	}
	vocab, err := engine.ParseVocabulary(c.vocab)
	if err != nil {
		return simulator.Options{}, "", exitcode.Input{Err: fmt.Errorf("--status-vocabulary: %w", err)}
	}
	anc, err := simulator.ParseAncestorEntries(c.ancestors)
	if err != nil {
		return simulator.Options{}, "", exitcode.Input{Err: fmt.Errorf("--ancestor-entries: %w", err)}
	}
	fv, err := crd.ParseFieldValidation(c.fieldVal)
	if err != nil {
		return simulator.Options{}, "", exitcode.Input{Err: fmt.Errorf("--field-validation: %w", err)}
	}
	if !slices.Contains(formats, c.Output) {
		return simulator.Options{}, "", exitcode.Input{Err: fmt.Errorf("--output %q: one of %s", c.Output, strings.Join(formats, ", "))}
	}
	if err := c.opts.CheckLimits(); err != nil {
		return simulator.Options{}, "", exitcode.Input{Err: err}
	}
	return simulator.Options{Profiles: c.profiles, Limits: c.opts.Limits, CEL: c.opts.CEL, Vocabulary: vocab, AncestorEntries: anc, FieldValidation: fv}, sem, nil
}

// Claimed are the values of --semantics and --status-vocabulary where the
// user gave them, "" where not: an implementation's claim holds there
// (simulate --impl).
func (c *Flags) Claimed(cmd *cobra.Command) (semantics, vocabulary string) {
	if cmd.Flags().Changed("semantics") {
		semantics = c.semantics
	}
	if cmd.Flags().Changed("status-vocabulary") {
		vocabulary = c.vocab
	}
	return semantics, vocabulary
}
