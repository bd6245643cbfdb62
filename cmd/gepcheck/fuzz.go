package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/driver"
)

func newFuzz(stdout io.Writer) *cobra.Command {
	var (
		profileName, semantics, outDir, mutant string
		checks, workers                        int
		impl                                   implFlags
		kind                                   string
		seed                                   uint64
		properties                             []string
	)
	cmd := &cobra.Command{
		Use:   "fuzz [--profile P] [--semantics S] [--checks N] [--seed S] [--property NAME]...",
		Short: "Check the engine's properties on random scenarios",
		Long: `fuzz runs gepcheck's named properties (the same as go test ./suite/) on
random scenarios. It prints the seed; on failure it writes the shrunk
counterexample as a scenario file and prints the one command that replays it.

Properties marked as findings look for disagreements between specs; they are
skipped unless named with --property.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts := suite.Options{Profile: profileName}
			if semantics != "" {
				sem, err := engine.ParseSemantics(semantics)
				if err != nil {
					return inputError{fmt.Errorf("--semantics: %w", err)}
				}
				opts.Semantics = sem
			}
			if checks < 1 {
				return inputError{fmt.Errorf("--checks must be at least 1")}
			}
			var ps []suite.Property
			if impl.impl == "envoy-gateway" {
				return fuzzEnvoyGateway(stdout, impl, seed, checks, outDir, kind)
			}
			if impl.impl != "" {
				// Differential: the implementation against the reference.
				d, err := impl.driver()
				if err != nil {
					return err
				}
				if profileName == "" {
					return inputError{errors.New("--impl needs --profile: the policy kind and semantics to draw scenarios for")}
				}
				ps = append(ps, suite.Differential(d, profileName, generators.Scenarios(generators.Config{Profile: profileName})))
			} else if len(properties) == 0 {
				for _, p := range suite.Properties() {
					if !p.Finding {
						ps = append(ps, p)
					}
				}
			}
			for _, n := range properties {
				p, ok := suite.Lookup(n)
				if !ok {
					var names []string
					for _, p := range suite.Properties() {
						names = append(names, p.Name)
					}
					return inputError{fmt.Errorf("no property %q (one of %s)", n, strings.Join(names, ", "))}
				}
				ps = append(ps, p)
			}
			if seed == 0 {
				var b [8]byte
				_, _ = rand.Read(b[:])
				seed = binary.LittleEndian.Uint64(b[:])>>1 | 1
			}
			fmt.Fprintf(stdout, "seed: %d\n", seed)
			failed := 0
			report := func(out suite.Outcome) {
				p, _ := suite.Lookup(out.Property)
				if out.Passed {
					fmt.Fprintf(stdout, "%-40s ok    %d checks in %s\n", out.Property, checks, out.Elapsed.Round(time.Millisecond))
					return
				}
				failed++
				kind := "FAIL"
				if p.Finding {
					kind = "FOUND"
				}
				fmt.Fprintf(stdout, "%-40s %s  after %s\n", out.Property, kind, out.Elapsed.Round(time.Millisecond))
				_, _, note := out.Capture.Last()
				for _, l := range strings.Split(strings.TrimSpace(note), "\n") {
					fmt.Fprintf(stdout, "      %s\n", l)
				}
				file, err := suite.WriteCounterexample(outDir, out)
				if err != nil {
					fmt.Fprintf(stdout, "      (no counterexample written: %v)\n", err)
				} else {
					fmt.Fprintf(stdout, "      counterexample: %s\n      simulate it:    gepcheck simulate -f %s\n", file, file)
				}
				fmt.Fprintf(stdout, "      replay:         %s\n", suite.ReplayCommand(out))
			}
			suite.RunAll(ps, engine.Mutant(mutant), seed, checks, opts, workers, report)
			fmt.Fprintf(stdout, "%d passed, %d failed\n", len(ps)-failed, failed)
			if failed > 0 {
				return failedError{fmt.Sprintf("%d propert(ies) failed; seed %d", failed, seed)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&profileName, "profile", "", "profile for properties that accept any: color-direct, color-inherited, backendtlspolicy or all-levels")
	f.StringVar(&semantics, "semantics", "", "only this path semantics (default: both, drawn at random)")
	f.IntVar(&checks, "checks", 100, "random cases per property")
	f.IntVar(&workers, "parallel", runtime.GOMAXPROCS(0), "properties checked at once")
	f.Uint64Var(&seed, "seed", 0, "random seed (default: a new one, printed)")
	f.StringArrayVar(&properties, "property", nil, "property to run; repeatable (default: all but findings)")
	f.StringVar(&outDir, "out", "gepcheck-counterexamples", "directory for counterexample files")
	f.StringVar(&mutant, "mutant", "", "run against a deliberately broken engine (see suite/): to see a property fail")
	impl.add(cmd)
	f.StringVar(&kind, "kind", "BackendTrafficPolicy", "policy kind for --impl envoy-gateway")
	_ = f.MarkHidden("mutant")
	return cmd
}

// fuzzEnvoyGateway is the batched differential run against Envoy Gateway's
// translator: scenarios in batches of one egctl process, each disagreement
// shrunk (in batches too) and written as a finding, one per kind of
// difference.
func fuzzEnvoyGateway(stdout io.Writer, f implFlags, seed uint64, checks int, outDir, policyKind string) error {
	profile := "envoy-gateway-backendtrafficpolicy"
	gen := func(i int) *generators.Scenario {
		return generators.EnvoyGatewayScenarios(fmt.Sprintf("case-%d", i), 4).Example(int(seed) + i)
	}
	switch policyKind {
	case "BackendTrafficPolicy":
	case "ClientTrafficPolicy":
		profile = "envoy-gateway-clienttrafficpolicy"
		gen = func(i int) *generators.Scenario {
			return generators.EnvoyGatewayClientScenarios(fmt.Sprintf("case-%d", i), 4).Example(int(seed) + i)
		}
	case "SecurityPolicy":
		profile = "envoy-gateway-securitypolicy"
		gen = func(i int) *generators.Scenario {
			return generators.EnvoyGatewaySecurityScenarios(fmt.Sprintf("case-%d", i), 4).Example(int(seed) + i)
		}
	default:
		return inputError{fmt.Errorf("--kind %s: one of BackendTrafficPolicy, ClientTrafficPolicy, SecurityPolicy", policyKind)}
	}
	d, err := f.driver()
	if err != nil {
		return err
	}
	if seed == 0 {
		var b [4]byte
		_, _ = rand.Read(b[:])
		seed = uint64(binary.LittleEndian.Uint32(b[:]))
	}
	fmt.Fprintf(stdout, "seed: %d\nimplementation: envoy-gateway %s (egctl x translate, %s build), profile %s\n", seed, f.egVersion, f.egBuild, profile)
	start := time.Now()
	progress := func(done, disagree int) {
		fmt.Fprintf(stdout, "  %d/%d scenarios, %d disagree (%s)\n", done, checks, disagree, time.Since(start).Round(time.Second))
	}
	// Verdict 2: conditions the implementation writes that GEP-713 does
	// not define, counted by type, status and reason.
	extra := map[string]int{}
	observed := func(o driver.Observation) {
		for _, p := range o.Policies {
			for _, c := range p.Conditions {
				if c.Type != "Accepted" && c.Type != "Enforced" {
					extra[c.Type+"="+c.Status+"/"+c.Reason]++
				}
			}
		}
	}
	found, err := suite.BatchRun(context.Background(), d, profile, gen, checks, 100, d.Conditions(), progress, observed)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	fmt.Fprintf(stdout, "%d scenarios in %s (%.1f scenarios/s), %d disagree with the reference\n", checks, elapsed.Round(time.Millisecond), float64(checks)/elapsed.Seconds(), len(found))
	// One finding per kind of difference (suite.Kinds): a disagreement
	// showing a kind no finding shows yet is shrunk for that kind, and
	// what the shrunk scenario shows is covered.
	covered := map[string]bool{}
	replay := fmt.Sprintf("gepcheck fuzz --impl envoy-gateway --kind %s --seed %d --checks %d", policyKind, seed, checks)
	if f.egBuild != driver.EgctlFast {
		replay += " --egctl-build " + f.egBuild
	}
	for _, dis := range found {
		if dis.Got.Error != "" {
			fmt.Fprintf(stdout, "  case %d: the implementation failed: %s\n", dis.Seed, dis.Got.Error)
			continue
		}
		for _, kind := range suite.Kinds(dis.Diff) {
			if covered[kind] {
				continue
			}
			small := suite.Shrink(context.Background(), d, profile, dis, []string{"Accepted"}, kind)
			for _, k := range suite.Kinds(small.Diff) {
				covered[k] = true
			}
			covered[kind] = true
			file, err := suite.WriteDisagreement(outDir, profile, replay, kind, small)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "  finding %s (case %d, shrunk to %d policies): %s\n    %s\n", kind, dis.Seed, len(small.Scenario.Policies), file, strings.Join(small.Diff, "\n    "))
		}
	}
	if len(extra) > 0 {
		fmt.Fprintf(stdout, "conditions Envoy Gateway writes that GEP-713 does not define (policies):\n")
		for _, k := range slices.Sorted(maps.Keys(extra)) {
			fmt.Fprintf(stdout, "  %-50s %d\n", k, extra[k])
		}
	}
	fmt.Fprintf(stdout, "%d agree, %d disagree (findings are evidence, not failures)\n", checks-len(found), len(found))
	return nil
}
