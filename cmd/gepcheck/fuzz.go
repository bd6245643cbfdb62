package main

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite"
)

func newFuzz(stdout io.Writer) *cobra.Command {
	var (
		profileName, semantics, outDir, mutant string
		checks, workers                        int
		impl                                   implFlags
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
	_ = f.MarkHidden("mutant")
	return cmd
}
