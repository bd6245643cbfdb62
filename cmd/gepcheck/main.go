// Command gepcheck simulates and checks Gateway API Policy Attachment
// (GEP-713).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/internal/watchdog"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/buildinfo"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/crd"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/suite/input"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is runExit ending the process with os.Exit.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runExit(args, stdin, stdout, stderr, os.Exit)
}

// runExit runs gepcheck; exit ends the process where a limit or a
// signal stops a run that does not return (docs/limits.md).
func runExit(args []string, stdin io.Reader, stdout, stderr io.Writer, exit func(code int)) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "gepcheck: internal error (a bug; please report it with the input): %v\n", r)
			code = 3
		}
	}()
	root := newRoot(stdin, stdout, stderr, exit)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return exitcode.OK
	}
	fmt.Fprintln(stderr, "gepcheck: "+strings.ReplaceAll(err.Error(), "\n", "\ngepcheck: "))
	return exitCode(err)
}

// exitCode is the exit of a command that returned err (exitcode.Of).
// cobra gives no type to its own errors for a command line it cannot
// parse before any RunE (flags are marked by the FlagErrorFunc and Args by
// markArgs, in newRoot): those left are bad input. Flag values that
// packages check themselves are exitcode.Input where they are made.
func exitCode(err error) int {
	code := exitcode.Of(err)
	for _, cobraErr := range []string{"unknown command", "required flag", "if any flags in the group"} {
		if code == exitcode.Internal && strings.HasPrefix(err.Error(), cobraErr) {
			return exitcode.BadInput
		}
	}
	return code
}

// markArgs makes the argument checks of cmd and its subcommands report
// input errors.
func markArgs(cmd *cobra.Command) {
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return exitcode.Input{Err: err}
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		markArgs(sub)
	}
}

type common struct {
	files     []string
	kdirs     []string // -k: kustomization folders (docs/input.md)
	profiles  []string
	semantics string
	vocab     string
	ancestors string
	fieldVal  string // --field-validation
	output    string
	formats   []string // the command's -o values (nil: render.Formats)
	noHeaders bool
	opts      simulator.Options // the limits (docs/limits.md)
	bounds    watchdog.Flags
	stderr    func() io.Writer // where load warnings are written too
	src       fromCluster      // --from-cluster (fromcluster.go)
	command   string           // the command's name, for hints (input.Source)
}

func (c *common) flags(cmd *cobra.Command, exit func(code int)) {
	cmd.Flags().StringArrayVarP(&c.files, "filename", "f", nil, "file, directory or - (stdin) with the objects; repeatable")
	addKustomizeFlag(cmd, &c.kdirs)
	c.stderr = cmd.ErrOrStderr
	c.command = cmd.Name()
	cmd.Flags().StringArrayVar(&c.profiles, "profile", nil, "policy profile: a built-in name ("+strings.Join(profile.BuiltinNames(), ", ")+") or a PolicyProfile file; repeatable")
	cmd.Flags().StringVar(&c.semantics, "semantics", string(engine.StickyOverrides), "path semantics: sticky-overrides (overrides are never beaten from below) or gep-713 (GEP-713's abstract process, literally; gep713, its older spelling, is read too)")
	addVocabularyFlag(cmd, &c.vocab)
	cmd.Flags().StringVar(&c.ancestors, "ancestor-entries", "gateway", "status per ancestor (Gateway API PolicyAncestorStatus, e.g. BackendTLSPolicy): gateway (one entry per Gateway) or listener (one per Gateway listener, sectionName set); docs/semantics.md")
	cmd.Flags().StringVar(&c.fieldVal, "field-validation", string(crd.FieldValidationWarn), "a policy field its kind's CRD does not know: warn (pruned with a warning, the API server's default fieldValidation), strict (bad input, exit 2, as kubectl apply --validate=strict refuses it) or ignore (pruned silently); docs/profiles.md, What is stored")
	formats := c.formats
	if formats == nil {
		formats = render.Formats
	}
	addOutputFlag(cmd, &c.output, formats...)
	addNoHeadersFlag(cmd, &c.noHeaders)
	simulator.AddLimitFlags(cmd.Flags(), &c.opts)
	c.bounds.AddFlags(cmd.Flags())
	c.src.add(cmd)
}

// tableOptions are the table flags: -o wide, --no-headers.
func (c *common) tableOptions() render.TableOptions {
	return render.TableOptions{Wide: c.output == "wide", NoHeaders: c.noHeaders}
}

func (c *common) load(stdin io.Reader) (*simulator.Model, engine.Semantics, error) {
	src := c.source(stdin)
	if src.Empty() {
		return nil, "", exitcode.Input{Err: errors.New("no input: pass -f FILE, -f DIR, -f - or -k DIR")}
	}
	opts, sem, err := c.options(render.Formats)
	if err != nil {
		return nil, "", err
	}
	m, err := src.Model(opts)
	return m, sem, err
}

// source is what -f, -k and --from-cluster name.
func (c *common) source(stdin io.Reader) input.Source {
	return input.Source{Files: c.files, Kustomizations: c.kdirs, Stdin: stdin, Cluster: c.src.live(), Command: c.command, Stderr: c.stderr()}
}

// options reads the flags of the simulation; formats are the command's
// -o values.
func (c *common) options(formats []string) (simulator.Options, engine.Semantics, error) {
	sem, err := engine.ParseSemantics(c.semantics)
	if err != nil {
		return simulator.Options{}, "", exitcode.Input{Err: fmt.Errorf("--semantics: %w", err)}
	}
	vocab, err := parseVocabularyFlag(c.vocab)
	if err != nil {
		return simulator.Options{}, "", err
	}
	anc, err := simulator.ParseAncestorEntries(c.ancestors)
	if err != nil {
		return simulator.Options{}, "", exitcode.Input{Err: fmt.Errorf("--ancestor-entries: %w", err)}
	}
	fv, err := crd.ParseFieldValidation(c.fieldVal)
	if err != nil {
		return simulator.Options{}, "", exitcode.Input{Err: fmt.Errorf("--field-validation: %w", err)}
	}
	if !slices.Contains(formats, c.output) {
		return simulator.Options{}, "", exitcode.Input{Err: fmt.Errorf("--output %q: one of %s", c.output, strings.Join(formats, ", "))}
	}
	if err := c.opts.CheckLimits(); err != nil {
		return simulator.Options{}, "", exitcode.Input{Err: err}
	}
	return simulator.Options{Profiles: c.profiles, Limits: c.opts.Limits, CEL: c.opts.CEL, Vocabulary: vocab, AncestorEntries: anc, FieldValidation: fv}, sem, nil
}

func newRoot(stdin io.Reader, stdout, stderr io.Writer, exit func(code int)) *cobra.Command {
	root := &cobra.Command{
		Use:   "gepcheck",
		Short: "Simulate and check Gateway API Policy Attachment (GEP-713)",
		Long: `gepcheck computes what Gateway API policies actually do: the effective policy of
every path of the hierarchy, every policy's status, and which policy set each
effective field. Input is the YAML you would kubectl apply.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newSimulate(stdin, stdout, exit), newExplain(stdin, stdout, exit), newCheck(stdout, exit), newProfiles(stdout),
		newFuzz(stdout), newRequirements(stdout), newFindings(stdout), newGen(stdout), newRun(stdout, stderr),
		newClean(stdout), newTools(stdout, stderr), newReport(stdout), newLocalCluster(stdout, stderr), newKind(stdout, stderr),
		newAdmission(stdin, stdout, exit), newVersion(stdout), newDiff(stdin, stdout, exit))
	// gepcheck --version prints what gepcheck version prints.
	root.Version = buildinfo.Read().String()
	root.SetVersionTemplate("{{.Version}}\n")
	// Commands of the implementations (impl.Commander): their own
	// top-level commands, and their controllers under gepcheck controller.
	var controllers []*cobra.Command
	for _, i := range impl.All() {
		if c, ok := i.(impl.Commander); ok {
			cmds := c.Commands(stdout, stderr)
			root.AddCommand(cmds[""]...)
			controllers = append(controllers, cmds["controller"]...)
		}
	}
	root.AddCommand(newController(controllers))
	registerCompletions(root, completions())
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return exitcode.Input{Err: err} })
	markArgs(root)
	return root
}
