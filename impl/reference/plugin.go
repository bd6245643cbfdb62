package reference

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

func init() { impl.Register(plugin{}) }

// plugin registers the reference as an implementation: offline it is the
// engine itself; in a cluster, gepcheck-reference.
//
// It is not impl/internal/controller's Plugin, nor does its InCluster use
// that package's Expectation and Policies: Plugin is an implementation
// built by gepcheck at a version (--NAME-version, Tools) with no offline
// form, and the reference is the gepcheck binary itself (no version to
// build), has an offline form, and claims the semantics and the status
// vocabulary it is told (impl.Claimer, impl.VocabularyClaimer). In a
// cluster it writes what those helpers do not read: Affected conditions,
// aggregated policy conditions beside an entry per ancestor of any kind,
// and EffectivePolicy objects (Expectation, Observe).
type plugin struct{}

func (plugin) Name() string { return "reference" }

func (plugin) Doc() string {
	return "gepcheck's engine offline, gepcheck-reference in a cluster"
}

// Configure adds --reference-mutant, hidden: gepcheck-reference with a
// planted fault, for gepcheck's own tests of the fault oracles
// (docs/faults.md).
func (plugin) Configure(fs *pflag.FlagSet) impl.Config {
	c := &config{mutant: MutantFlags{Flag: "reference-mutant"}}
	c.mutant.AddFlags(fs)
	return c
}

// config is the reference under the semantics it is told to claim
// (impl.Claimer; sticky-overrides by default), writing the status
// vocabulary it is told to claim (impl.VocabularyClaimer; merged GEP-713's
// by default).
type config struct {
	sem    engine.Semantics
	voc    engine.Vocabulary
	mutant MutantFlags
}

func (c *config) Claim(sem engine.Semantics) { c.sem = sem }

func (c *config) ClaimVocabulary(v engine.Vocabulary) { c.voc = v }

// Who implements impl.Reporter: gepcheck's own engine, at the version
// of the gepcheck binary.
func (c *config) Who() impl.Who {
	return impl.Who{Organization: "gepcheck", Project: "gepcheck-reference", URL: "https://github.com/gepcheck/gepcheck", Version: Version(),
		Contact: []string{"https://github.com/gepcheck/gepcheck/issues"}}
}

// Version is the version of the gepcheck module the binary was built
// from, or "main" for a build from a work tree: reports of the reference
// stay at one path from commit to commit.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "main"
}

// ReplayFlags is --reference-mutant when a mutant is planted: a replay
// must run the same controller.
func (c *config) ReplayFlags() []string {
	if m, err := c.mutant.Mutant(); err == nil && m != "" {
		return []string{"--" + c.mutant.flag(), string(m)}
	}
	return nil
}

func (c *config) Offline(context.Context) (observe.Observer, error) {
	return Offline{Semantics: c.sem, Vocabulary: c.voc}, nil
}

func (c *config) InCluster(context.Context) (incluster.Implementation, error) {
	m, err := c.mutant.Mutant()
	if err != nil {
		return nil, err
	}
	return InCluster{Semantics: c.sem, Vocabulary: c.voc, Mutant: m}, nil
}

// Commands implements impl.Commander: gepcheck controller reference.
func (plugin) Commands(stdout, _ io.Writer) map[string][]*cobra.Command {
	var kubeconfig, kubeContext, semantics, vocabulary string
	var profiles []string
	var opts simulator.Options
	var mutant MutantFlags
	cmd := &cobra.Command{
		Use:   "reference [--kubeconfig FILE] [--context NAME] [--profiles a,b]",
		Short: "Run gepcheck-reference: the built-in profiles' policy kinds served by the reference engine",
		Long: `gepcheck-reference serves the built-in profiles' policy kinds for Gateways of
GatewayClasses whose controllerName is ` + ControllerName + `: it writes policy
status (Accepted and Programmed, or with --status-vocabulary draft Accepted and
Enforced; aggregated and per ancestor), <Kind>Affected
conditions on affected objects, and an EffectivePolicy object (gepcheck.dev/v1alpha1,
read-only) per affected object. A namespace annotated ` + AnnotationProfiles + `
is computed with the profiles it names. See docs/cluster.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.CheckLimits(); err != nil {
				return exitcode.Input{Err: err}
			}
			m, err := mutant.Mutant()
			if err != nil {
				return err
			}
			c, err := cluster.FromKubeconfig(kubeconfig, kubeContext)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			sem, err := engine.ParseSemantics(semantics)
			if err != nil {
				return exitcode.Input{Err: fmt.Errorf("--semantics: %w", err)}
			}
			voc, err := engine.ParseVocabulary(vocabulary)
			if err != nil {
				return exitcode.Input{Err: fmt.Errorf("--status-vocabulary: %w", err)}
			}
			ctl := &Controller{Config: c.Config, Profiles: profiles, Semantics: sem, Vocabulary: voc, Limits: opts.Limits, CEL: opts.CEL, Mutant: m, Log: func(s string) { fmt.Fprintln(stdout, s) }}
			return ctl.Run(ctx)
		},
	}
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file (default: KUBECONFIG, ~/.kube/config)")
	cmd.Flags().StringVar(&kubeContext, "context", "", "kubeconfig context (default: the current one)")
	cmd.Flags().StringVar(&semantics, "semantics", string(engine.StickyOverrides), "path semantics of the engine: sticky-overrides or gep-713 (gep713 read too; docs/semantics.md)")
	cmd.Flags().StringVar(&vocabulary, "status-vocabulary", string(engine.VocabularyMerged), "status vocabulary of the policy conditions written: merged (GEP-713 as merged: Accepted, Programmed) or draft (its draft: Accepted, Enforced) (docs/semantics.md)")
	simulator.AddLimitFlags(cmd.Flags(), &opts)
	cmd.Flags().StringSliceVar(&profiles, "profiles", nil, "built-in profiles served where a namespace names none (default: "+strings.Join(DefaultProfiles, ",")+")")
	mutant.AddFlags(cmd.Flags())
	return map[string][]*cobra.Command{"controller": {cmd}}
}
