// Command gepcheck simulates and checks Gateway API Policy Attachment
// (GEP-713).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/suite"
)

// Exit codes.
const (
	exitOK       = 0
	exitFailed   = 1 // a check found differences
	exitBadInput = 2 // unusable input or flags
)

// inputError marks errors caused by the user's input.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

// failedError marks a run that worked but found differences.
type failedError struct{ msg string }

func (e failedError) Error() string { return e.msg }

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "gepcheck: internal error (a bug; please report it with the input): %v\n", r)
			code = 3
		}
	}()
	root := newRoot(stdin, stdout)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "gepcheck: "+strings.ReplaceAll(err.Error(), "\n", "\ngepcheck: "))
	var fe failedError
	if errors.As(err, &fe) {
		return exitFailed
	}
	return exitBadInput
}

type common struct {
	files     []string
	profiles  []string
	semantics string
	output    string
}

func (c *common) flags(cmd *cobra.Command) {
	cmd.Flags().StringArrayVarP(&c.files, "filename", "f", nil, "file, directory or - (stdin) with the objects; repeatable")
	cmd.Flags().StringArrayVar(&c.profiles, "profile", nil, "policy profile: a built-in name ("+strings.Join(profile.BuiltinNames(), ", ")+") or a PolicyProfile file; repeatable")
	cmd.Flags().StringVar(&c.semantics, "semantics", string(engine.StickyOverrides), "path semantics: sticky-overrides (overrides are never beaten from below) or gep713 (GEP-713's abstract process, literally)")
	cmd.Flags().StringVarP(&c.output, "output", "o", "table", "output format: "+strings.Join(render.Formats, ", "))
}

func (c *common) load(stdin io.Reader) (*simulator.Model, engine.Semantics, error) {
	if len(c.files) == 0 {
		return nil, "", inputError{errors.New("no input: pass -f FILE, -f DIR or -f -")}
	}
	sem, err := engine.ParseSemantics(c.semantics)
	if err != nil {
		return nil, "", inputError{fmt.Errorf("--semantics: %w", err)}
	}
	if !slices.Contains(render.Formats, c.output) {
		return nil, "", inputError{fmt.Errorf("--output %q: one of %s", c.output, strings.Join(render.Formats, ", "))}
	}
	m, err := simulator.LoadFiles(c.files, stdin, simulator.Options{Profiles: c.profiles})
	if err != nil {
		return nil, "", inputError{err}
	}
	if len(m.Kinds) == 0 {
		return nil, "", inputError{errors.New("no policy kind to simulate: the input has no policies of a known kind; pass --profile")}
	}
	return m, sem, nil
}

func newRoot(stdin io.Reader, stdout io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "gepcheck",
		Short: "Simulate and check Gateway API Policy Attachment (GEP-713)",
		Long: `gepcheck computes what Gateway API policies actually do: the effective policy of
every path of the hierarchy, every policy's status, and which policy set each
effective field. Input is the YAML you would kubectl apply.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newSimulate(stdin, stdout), newExplain(stdin, stdout), newCheck(stdout), newProfiles(stdout),
		newFuzz(stdout), newRequirements(stdout), newGen(stdout), newRun(stdout), newEgctl(stdout),
		newClean(stdout), newController(stdout), newTools(stdout), newLocalCluster(stdout), newKind(stdout))
	return root
}

func newSimulate(stdin io.Reader, stdout io.Writer) *cobra.Command {
	var c common
	cmd := &cobra.Command{
		Use:   "simulate -f FILE|DIR|- [--profile NAME|FILE] [--semantics gep713|sticky-overrides] [-o table|yaml|json]",
		Short: "Compute effective policies, statuses and provenance",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, sem, err := c.load(stdin)
			if err != nil {
				return err
			}
			out := m.Run(sem, nil)
			if c.output == "table" {
				return render.Simulation(stdout, out)
			}
			return render.Data(stdout, c.output, out)
		},
	}
	c.flags(cmd)
	return cmd
}

func newExplain(stdin io.Reader, stdout io.Writer) *cobra.Command {
	var c common
	var target, policy string
	cmd := &cobra.Command{
		Use:   "explain -f FILE|DIR|- (--target KIND/NS/NAME[#SECTION] | --policy KIND/NS/NAME)",
		Short: "Explain what affects an object, or where a policy is in effect",
		Long: `explain answers GEP-713's discoverability questions.

  --target: which policies affect this object, through which paths, and which
            policy set each effective field.
  --policy: every path and target the policy is in effect on, how many, and
            what would change if it were deleted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (target == "") == (policy == "") {
				return inputError{errors.New("pass exactly one of --target and --policy")}
			}
			m, sem, err := c.load(stdin)
			if err != nil {
				return err
			}
			if target != "" {
				r, err := ref.Parse(target)
				if err != nil {
					return inputError{fmt.Errorf("--target: %w", err)}
				}
				x, err := m.Explain(m.RunDecisions(sem), r)
				if err != nil {
					return inputError{err}
				}
				if c.output == "table" {
					return render.Target(stdout, x)
				}
				return render.Data(stdout, c.output, x)
			}
			r, err := ref.Parse(policy)
			if err != nil || r.Section != "" {
				return inputError{fmt.Errorf("--policy: want KIND/NAMESPACE/NAME: %v", err)}
			}
			x, err := m.ExplainPolicy(sem, r)
			if err != nil {
				return inputError{err}
			}
			if c.output == "table" {
				return render.Policy(stdout, x)
			}
			return render.Data(stdout, c.output, x)
		},
	}
	c.flags(cmd)
	cmd.Flags().StringVar(&target, "target", "", "object to explain, KIND/NAMESPACE/NAME or KIND/NAME, optionally #SECTION")
	cmd.Flags().StringVar(&policy, "policy", "", "policy to explain, KIND/NAMESPACE/NAME")
	return cmd
}

func newCheck(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "check FILE|DIR...",
		Short: "Run scenario files and compare with the outcome they expect",
		Long: `check runs every scenario file (a YAML file whose first document is a
Scenario, see scenarios/README.md) through the engine under each semantics the
scenario names, and reports every difference from the expected outcome.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := scenarioFiles(args)
			if err != nil {
				return inputError{err}
			}
			failed, passed := 0, 0
			for _, f := range files {
				diffs, err := CheckScenario(f)
				if err != nil {
					return inputError{err}
				}
				if len(diffs) == 0 {
					passed++
					fmt.Fprintf(stdout, "ok    %s\n", f)
					continue
				}
				failed++
				fmt.Fprintf(stdout, "FAIL  %s\n", f)
				for _, d := range diffs {
					fmt.Fprintf(stdout, "      %s\n", d)
				}
			}
			fmt.Fprintf(stdout, "%d passed, %d failed\n", passed, failed)
			if failed > 0 {
				return failedError{fmt.Sprintf("%d scenario(s) failed", failed)}
			}
			return nil
		},
	}
	return cmd
}

// CheckScenario runs one scenario file under each of its semantics.
func CheckScenario(file string) ([]string, error) {
	m, err := simulator.LoadFiles([]string{file}, nil, simulator.Options{})
	if err != nil {
		return nil, err
	}
	if m.FindingImplementation != "" {
		// Evidence about an implementation: replayed with gepcheck fuzz
		// --impl, not by check.
		return nil, nil
	}
	if m.Scenario == nil && m.Finding != "" {
		// A finding records a disagreement between the two semantics; it
		// holds while they still disagree on it.
		if len(suite.Disagreements(m)) == 0 {
			return []string{"finding " + m.Finding + ": gep713 and sticky-overrides no longer disagree"}, nil
		}
		return nil, nil
	}
	if m.Scenario == nil {
		return nil, fmt.Errorf("%s: no Scenario document (apiVersion gepcheck.dev/v1alpha1, kind Scenario)", file)
	}
	sems, err := m.Scenario.SemanticsList()
	if err != nil {
		return nil, err
	}
	var diffs []string
	for _, sem := range sems {
		for _, d := range m.Scenario.Check(m.Run(sem, nil)) {
			diffs = append(diffs, fmt.Sprintf("[%s] %s", sem, d))
		}
	}
	return diffs, nil
}

func scenarioFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		err = filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

func newProfiles(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "profiles [NAME]",
		Short: "List the built-in policy profiles, or print one as YAML",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := profile.Builtins()
			if err != nil {
				return err
			}
			if len(args) == 1 {
				p, ok := b[args[0]]
				if !ok {
					return inputError{fmt.Errorf("no built-in profile %q (one of %s)", args[0], strings.Join(profile.BuiltinNames(), ", "))}
				}
				return render.Data(stdout, "yaml", p)
			}
			for _, n := range profile.BuiltinNames() {
				p := b[n]
				fmt.Fprintf(stdout, "%-20s %s.%s  %s\n", n, p.Spec.Policy.Kind, p.Spec.Policy.Group, p.Spec.Citation)
			}
			return nil
		},
	}
}
