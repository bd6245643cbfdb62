package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/cluster"
	"github.com/gepcheck/gepcheck/suite/cluster/conformance"
	"github.com/gepcheck/gepcheck/suite/cluster/envoygateway"
	"github.com/gepcheck/gepcheck/suite/cluster/kind"
	"github.com/gepcheck/gepcheck/suite/cluster/local"
	"github.com/gepcheck/gepcheck/suite/cluster/reference"
	"github.com/gepcheck/gepcheck/suite/cluster/tools"
)

// clusterFlags select a cluster.
type clusterFlags struct {
	cluster, kubeconfig, context, kindName string
}

func (f *clusterFlags) add(cmd *cobra.Command, withProvider bool) {
	if withProvider {
		cmd.Flags().StringVar(&f.cluster, "cluster", "", "run in a cluster: local (a control plane gepcheck builds and starts), kind (sigs.k8s.io/kind, needs Docker), or kubeconfig (any existing cluster)")
		cmd.Flags().StringVar(&f.kindName, "kind-cluster", "gepcheck", "name of the kind cluster, for --cluster kind")
	}
	cmd.Flags().StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file (default: KUBECONFIG, ~/.kube/config)")
	cmd.Flags().StringVar(&f.context, "context", "", "kubeconfig context (default: the current one)")
}

// connect returns the cluster; stop releases what connect started.
func (f *clusterFlags) connect(ctx context.Context, logf func(string)) (*cluster.Cluster, error) {
	switch f.cluster {
	case "local":
		return local.Start(ctx, local.Options{Log: logf})
	case "kind":
		return kind.Connect(ctx, f.kindName, logf)
	case "kubeconfig", "":
		c, err := cluster.FromKubeconfig(f.kubeconfig, f.context)
		if err != nil {
			return nil, inputError{err}
		}
		return c, c.Reachable(ctx, 10*time.Second)
	}
	return nil, inputError{fmt.Errorf("--cluster %q: one of local, kind, kubeconfig", f.cluster)}
}

// runCluster is `gepcheck run --cluster`.
func runCluster(stdout io.Writer, cf *clusterFlags, impl string, files []string, rf runClusterFlags) error {
	if impl != "reference" && impl != "envoy-gateway" {
		return inputError{fmt.Errorf("--impl %q: in a cluster, one of reference, envoy-gateway", impl)}
	}
	paths, err := scenarioFiles(files)
	if err != nil {
		return inputError{err}
	}
	logf := func(s string) { fmt.Fprintf(os.Stderr, "gepcheck: %s\n", s) }
	var randomDir string
	if rf.random > 0 {
		if randomDir, err = randomCases(&rf, impl, logf); err != nil {
			return err
		}
		more, _ := scenarioFiles([]string{randomDir})
		paths = append(paths, more...)
	}
	if len(paths) == 0 {
		return inputError{errors.New("no scenarios: pass files or directories, or --random N")}
	}
	// Until the Ginkgo suite runs (it handles signals itself), an
	// interrupt cancels the setup and the deferred cleanup runs.
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()

	var im conformance.Implementation
	eg := &conformance.EnvoyGateway{}
	switch impl {
	case "reference":
		im = conformance.Reference{}
	default:
		im = eg
	}
	run := randomID()
	var plans []*conformance.Plan
	var bad []string
	for i, p := range paths {
		plan, err := conformance.NewPlan(p, conformance.TargetFor(im, run, i))
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		plans = append(plans, plan)
	}
	if len(bad) > 0 {
		return inputError{errors.New(strings.Join(bad, "\n"))}
	}

	c, err := cf.connect(ctx, logf)
	if err != nil {
		return err
	}
	if c.Stop != nil {
		defer func() {
			if err := c.Stop(); err != nil {
				logf("stopping the control plane: " + err.Error())
			}
		}()
	}
	if err := installCRDs(ctx, c, impl, rf.egVersion); err != nil {
		return err
	}
	ok := false // keeps the controller's log and random cases when the run did not pass
	if randomDir != "" {
		defer func() {
			if ok {
				os.RemoveAll(randomDir)
			} else {
				logf("the random cases are kept in " + randomDir + " (gepcheck run --cluster … FILE replays one)")
			}
		}()
	}
	if rf.startController {
		logDir, err := os.MkdirTemp("", "gepcheck-controller-")
		if err != nil {
			return err
		}
		defer func() {
			if ok {
				os.RemoveAll(logDir)
			} else {
				logf("the controller's log is kept in " + logDir)
			}
		}()
		stop, xds, err := startController(ctx, c, impl, rf.egVersion, logDir, logf)
		if err != nil {
			return err
		}
		defer stop()
		eg.XDS = xds
	}
	k, err := conformance.NewKube(c)
	if err != nil {
		return err
	}
	runner := &conformance.Runner{Kube: k, Impl: im, Run: run, Opts: conformance.Options{StepTimeout: rf.stepTimeout, Keep: rf.keep}}
	sel := cluster.LabelManagedBy + "=" + cluster.ManagedBy + "," + cluster.LabelRun + "=" + run
	cleanup := func() {
		if rf.keep {
			logf("--keep: leaving the run's objects (gepcheck clean removes them; selector " + sel + ")")
			return
		}
		cctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if err := cluster.DeleteLabelled(cctx, c, sel, true); err != nil {
			logf(err.Error())
		}
	}
	defer cleanup()
	logf(fmt.Sprintf("run %s: %d scenarios against %s on cluster %s (objects labelled %s)", run, len(plans), im.Name(), c.Name, sel))
	stopSignals() // Ginkgo handles SIGINT/SIGTERM from here: it interrupts the spec and runs the cleanup.
	s := &conformance.Suite{Runner: runner, Plans: plans, Parallel: rf.parallel, LabelFilter: rf.labelFilter, JUnitReport: rf.junit, Verbose: rf.verbose, Cleanup: cleanup}
	passed, err := s.Run(fmt.Sprintf("gepcheck conformance: %s on %s", im.Name(), c.Name))
	if err != nil {
		return inputError{err}
	}
	counts := map[conformance.Outcome]int{}
	fmt.Fprintf(stdout, "\n%-6s %-8s %s\n", "RESULT", "TIME", "SCENARIO")
	for _, r := range s.Results {
		counts[r.Outcome]++
		fmt.Fprintf(stdout, "%-6s %7.1fs %s (%s)\n", r.Outcome, r.Duration.Seconds(), r.Plan.Name, r.Plan.File)
		if r.Outcome != conformance.Pass {
			for _, d := range r.Diff {
				fmt.Fprintf(stdout, "               %s\n", d)
			}
		}
	}
	fmt.Fprintf(stdout, "%s on %s: %d passed, %d failed, %d errors, %d skipped (of %d scenarios; %d filtered out)\n",
		im.Name(), c.Name, counts[conformance.Pass], counts[conformance.Fail], counts[conformance.Error], counts[conformance.Skip], len(plans), len(plans)-len(s.Results))
	ok = passed && counts[conformance.Fail]+counts[conformance.Error] == 0
	if !ok {
		return failedError{fmt.Sprintf("%d scenario(s) failed, %d error(s)", counts[conformance.Fail], counts[conformance.Error])}
	}
	return nil
}

// randomCases draws rf.random scenarios with gepcheck gen (seeds
// rf.seed, rf.seed+1, …) into a new directory.
func randomCases(rf *runClusterFlags, impl string, logf func(string)) (string, error) {
	prof := rf.randomProfile
	if prof == "" {
		prof = "color-inherited"
		if impl == "envoy-gateway" {
			prof = "envoy-gateway-backendtrafficpolicy"
		}
	}
	if rf.seed == 0 {
		rf.seed = time.Now().UnixNano() % 1_000_000_000
	}
	dir, err := os.MkdirTemp("", "gepcheck-random-")
	if err != nil {
		return "", err
	}
	for i := range rf.random {
		seed := rf.seed + int64(i)
		var b strings.Builder
		g := newGen(&b)
		g.SetArgs([]string{"--seed", fmt.Sprint(seed), "--profile", prof})
		g.SetOut(&b)
		if err := g.Execute(); err != nil {
			return "", inputError{fmt.Errorf("--random-profile %s: %w", prof, err)}
		}
		name := fmt.Sprintf("random-%s-%d.yaml", prof, seed)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			return "", err
		}
	}
	logf(fmt.Sprintf("%d random cases, --seed %d --random-profile %s (replay: the same flags; one case: gepcheck gen --seed N --profile %s)", rf.random, rf.seed, prof, prof))
	return dir, nil
}

type runClusterFlags struct {
	random          int
	seed            int64
	randomProfile   string
	startController bool
	parallel        int
	stepTimeout     time.Duration
	labelFilter     string
	junit           string
	keep, verbose   bool
	egVersion       string
}

func (f *runClusterFlags) add(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.startController, "start-controller", true, "in a cluster, start the implementation's controller as a local process against the cluster (false: it is already running there)")
	cmd.Flags().IntVar(&f.parallel, "parallel", 4, "in a cluster, scenarios applied at once (each in its own namespaces)")
	cmd.Flags().DurationVar(&f.stepTimeout, "step-timeout", 30*time.Second, "in a cluster, time limit of each step of a scenario (apply; wait for status)")
	cmd.Flags().StringVar(&f.labelFilter, "label-filter", "", "in a cluster, Ginkgo label filter over scenario labels (e.g. 'gep-713 && !findings', 'ColorPolicy')")
	cmd.Flags().StringVar(&f.junit, "junit", "", "in a cluster, write a JUnit report to this file")
	cmd.Flags().BoolVar(&f.keep, "keep", false, "in a cluster, leave the objects of each scenario (gepcheck clean removes them)")
	cmd.Flags().BoolVar(&f.verbose, "verbose", false, "in a cluster, verbose Ginkgo output")
	cmd.Flags().IntVar(&f.random, "random", 0, "in a cluster, also run N random scenarios drawn by gepcheck gen")
	cmd.Flags().Int64Var(&f.seed, "seed", 0, "in a cluster, seed of the first random scenario (default: from the clock, printed)")
	cmd.Flags().StringVar(&f.randomProfile, "random-profile", "", "in a cluster, profile of the random scenarios (default: color-inherited; envoy-gateway-backendtrafficpolicy for --impl envoy-gateway)")
}

// installCRDs installs the CRDs the implementation needs, where missing.
func installCRDs(ctx context.Context, c *cluster.Cluster, impl, egVersion string) error {
	crds, err := cluster.GatewayAPICRDs(ctx)
	if err != nil {
		return err
	}
	switch impl {
	case "reference":
		ref, err := cluster.ReferenceCRDs()
		if err != nil {
			return err
		}
		crds = append(crds, ref...)
	case "envoy-gateway":
		eg, err := cluster.EnvoyGatewayCRDs(ctx, egVersion)
		if err != nil {
			return err
		}
		crds = append(crds, eg...)
	}
	return c.InstallCRDs(ctx, crds)
}

// startController starts the implementation's controller as a local
// process against the cluster; stop terminates it.
func startController(ctx context.Context, c *cluster.Cluster, impl, egVersion, logDir string, logf func(string)) (func(), *envoygateway.XDS, error) {
	switch impl {
	case "reference":
		self, err := os.Executable()
		if err != nil {
			return nil, nil, err
		}
		cmd := exec.Command(self, "controller", "reference", "--kubeconfig", c.Kubeconfig)
		p, err := cluster.Start("gepcheck-reference", cmd, filepath.Join(logDir, "gepcheck-reference.log"))
		if err != nil {
			return nil, nil, err
		}
		logf(fmt.Sprintf("started gepcheck-reference (pid %d), log %s", p.Pid(), p.Log))
		return func() { p.Stop(10 * time.Second) }, nil, nil
	default:
		p, err := envoygateway.Start(ctx, c, envoygateway.Options{Version: egVersion, Dir: logDir, Log: logf})
		if err != nil {
			return nil, nil, err
		}
		return p.Stop, p.XDS, nil
	}
}

func randomID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func newClean(stdout io.Writer) *cobra.Command {
	var cf clusterFlags
	var crds bool
	cmd := &cobra.Command{
		Use:   "clean [--kubeconfig FILE] [--context NAME] [--crds]",
		Short: "Delete everything gepcheck left in a cluster (objects labelled gepcheck.dev/managed-by=gepcheck)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := cluster.FromKubeconfig(cf.kubeconfig, cf.context)
			if err != nil {
				return inputError{err}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if err := c.Reachable(ctx, 10*time.Second); err != nil {
				return err
			}
			deleted, err := cluster.Clean(ctx, c, crds)
			for _, d := range deleted {
				fmt.Fprintf(stdout, "deleted %s\n", d)
			}
			fmt.Fprintf(stdout, "%d object(s) deleted from %s\n", len(deleted), c.Name)
			return err
		},
	}
	cf.add(cmd, false)
	cmd.Flags().BoolVar(&crds, "crds", false, "also delete the CRDs gepcheck installed (and with them every object of their kinds)")
	return cmd
}

func newController(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "controller",
		Short: "Run an implementation's controller against a cluster",
	}
	var cf clusterFlags
	var profiles []string
	var mutant string
	ref := &cobra.Command{
		Use:   "reference [--kubeconfig FILE] [--context NAME] [--profiles a,b]",
		Short: "Run gepcheck-reference: the built-in profiles' policy kinds served by the reference engine",
		Long: `gepcheck-reference serves the built-in profiles' policy kinds for Gateways of
GatewayClasses whose controllerName is ` + reference.ControllerName + `: it writes policy
status (Accepted, Enforced; aggregated and per ancestor), <Kind>Affected
conditions on affected objects, and an EffectivePolicy object (gepcheck.dev/v1alpha1,
read-only) per affected object. A namespace annotated ` + reference.AnnotationProfiles + `
is computed with the profiles it names. See docs/cluster.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := cluster.FromKubeconfig(cf.kubeconfig, cf.context)
			if err != nil {
				return inputError{err}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctl := &reference.Controller{Config: c.Config, Profiles: profiles, Log: func(s string) { fmt.Fprintln(stdout, s) }}
			if mutant != "" {
				ctl.Simulate = func(m *simulator.Model, sem engine.Semantics) *simulator.Output {
					return m.RunMutant(sem, engine.Mutant(mutant))
				}
			}
			return ctl.Run(ctx)
		},
	}
	cf.add(ref, false)
	ref.Flags().StringSliceVar(&profiles, "profiles", nil, "built-in profiles served where a namespace names none (default: "+strings.Join(reference.DefaultProfiles, ",")+")")
	ref.Flags().StringVar(&mutant, "mutant", "", "run a deliberately broken engine (for tests of the runner; see gepcheck fuzz --help)")
	_ = ref.Flags().MarkHidden("mutant")
	cmd.AddCommand(ref)
	return cmd
}

func newTools(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "tools",
		Short: "Build (once) and print the pinned etcd, kube-apiserver, kube-controller-manager, kubectl and envoy-gateway",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, t := range []tools.Tool{tools.Etcd, tools.KubeAPIServer, tools.KubeControllerManager, tools.Kubectl, tools.EnvoyGateway} {
				p, err := t.Build(cmd.Context(), func(s string) { fmt.Fprintln(os.Stderr, "gepcheck: "+s) })
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "%s %s %s\n", t.Name, t.Version, p)
			}
			return nil
		},
	}
}

func newLocalCluster(stdout io.Writer) *cobra.Command {
	var dir string
	var impl string
	cmd := &cobra.Command{
		Use:   "local-cluster [--dir DIR] [--crds reference|envoy-gateway]",
		Short: "Start the local control plane (etcd, kube-apiserver, kube-controller-manager) and keep it until interrupted",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			c, err := local.Start(ctx, local.Options{Dir: dir, Log: func(s string) { fmt.Fprintln(os.Stderr, "gepcheck: "+s) }})
			if err != nil {
				return err
			}
			defer c.Stop()
			if impl != "" {
				if err := installCRDs(ctx, c, impl, tools.EnvoyGatewayVersion); err != nil {
					return err
				}
			}
			fmt.Fprintf(stdout, "export KUBECONFIG=%s\n", c.Kubeconfig)
			<-ctx.Done()
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory for data and logs (default: a new temporary directory, removed on exit)")
	cmd.Flags().StringVar(&impl, "crds", "", "install the CRDs an implementation needs: reference or envoy-gateway")
	return cmd
}

func newKind(stdout io.Writer) *cobra.Command {
	var name string
	cmd := &cobra.Command{Use: "kind", Short: "Create or delete gepcheck's kind cluster (needs Docker or Podman)"}
	up := &cobra.Command{
		Use:   "up [--name gepcheck] [--crds reference|envoy-gateway]",
		Short: "Create (or reuse) the kind cluster from kind-config/cluster.yaml and print its kubeconfig",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := kind.Connect(cmd.Context(), name, func(s string) { fmt.Fprintln(os.Stderr, "gepcheck: "+s) })
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "export KUBECONFIG=%s\n", c.Kubeconfig)
			return nil
		},
	}
	down := &cobra.Command{
		Use:   "down [--name gepcheck]",
		Short: "Delete the kind cluster",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return kind.Delete(cmd.Context(), name)
		},
	}
	for _, c := range []*cobra.Command{up, down} {
		c.Flags().StringVar(&name, "name", "gepcheck", "kind cluster name")
		cmd.AddCommand(c)
	}
	return cmd
}
