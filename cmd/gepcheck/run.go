package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/google/shlex"
	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/suite/driver"
)

// implFlags selects an implementation driver.
type implFlags struct {
	impl, execCommand, egVersion, egBuild string
	timeout                               time.Duration
}

func (f *implFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.impl, "impl", "", "implementation: reference, envoy-gateway (egctl x translate, built and cached by gepcheck), or exec (with --exec-command)")
	cmd.Flags().StringVar(&f.egVersion, "envoy-gateway-version", driver.EnvoyGatewayVersion, "Envoy Gateway version whose egctl to build and run")
	cmd.Flags().StringVar(&f.egBuild, "egctl-build", driver.EgctlFast, "which build of egctl: fast (validation compiled once per CRD; output checked identical to stock) or stock (go install, unmodified); see gepcheck egctl --help")
	cmd.Flags().StringVar(&f.execCommand, "exec-command", "", "command speaking docs/exec-protocol.md, for --impl exec")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 10*time.Second, "time limit per case")
}

func (f *implFlags) driver() (driver.Driver, error) {
	switch f.impl {
	case "reference":
		return driver.Reference{}, nil
	case "exec":
		args, err := shlex.Split(f.execCommand)
		if err != nil || len(args) == 0 {
			return nil, inputError{fmt.Errorf("--impl exec needs --exec-command: %v", err)}
		}
		return &driver.Exec{Command: args, Timeout: f.timeout, Parallelism: 2}, nil
	case "envoy-gateway":
		if f.egBuild != driver.EgctlFast && f.egBuild != driver.EgctlStock {
			return nil, inputError{fmt.Errorf("--egctl-build %q: one of fast, stock", f.egBuild)}
		}
		bin, err := driver.Egctl(context.Background(), f.egVersion, f.egBuild)
		if err != nil {
			return nil, err
		}
		return &driver.EnvoyGateway{Egctl: bin}, nil
	case "":
		return nil, inputError{errors.New("pass --impl")}
	}
	return nil, inputError{fmt.Errorf("--impl %q: one of reference, envoy-gateway, exec", f.impl)}
}

func newRun(stdout io.Writer) *cobra.Command {
	var f implFlags
	var cf clusterFlags
	var rf runClusterFlags
	var files, profiles []string
	cmd := &cobra.Command{
		Use:   "run --impl reference|envoy-gateway|exec [--cluster local|kind|kubeconfig] [-f] FILE|DIR...",
		Short: "Run scenario files through an implementation (offline, or in a cluster) and compare with the reference engine",
		Long: `run runs scenario files through an implementation and compares what it does
with the reference engine.

Offline (no --cluster): reference, exec (docs/exec-protocol.md) or
envoy-gateway (egctl x translate).

In a cluster (--cluster local|kind|kubeconfig; docs/cluster.md): each scenario
is applied in fresh namespaces labelled gepcheck.dev/managed-by=gepcheck, the
implementation's status is awaited, the objects are read back as stored and
the expectation is computed from them; --impl reference runs gepcheck-reference,
--impl envoy-gateway Envoy Gateway's controller. Everything created is removed
at the end, after a failure and on SIGINT/SIGTERM.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			files = append(files, args...)
			if cf.cluster != "" {
				rf.egVersion = f.egVersion
				return runCluster(stdout, &cf, f.impl, files, rf)
			}
			d, err := f.driver()
			if err != nil {
				return err
			}
			paths, err := scenarioFiles(files)
			if err != nil {
				return inputError{err}
			}
			var cases []driver.Case
			for _, p := range paths {
				m, err := simulator.LoadFiles([]string{p}, nil, simulator.Options{Profiles: profiles})
				if err != nil {
					return inputError{err}
				}
				data, err := os.ReadFile(p)
				if err != nil {
					return inputError{err}
				}
				c := driver.Case{Name: p, YAML: string(data), Profiles: profiles}
				if len(c.Profiles) == 0 && m.Scenario != nil {
					c.Profiles = m.Scenario.Spec.Profiles
				}
				cases = append(cases, c)
			}
			want, _ := driver.Reference{}.Observe(context.Background(), cases)
			got, err := d.Observe(context.Background(), cases)
			if err != nil {
				return err
			}
			failed := 0
			for i, c := range cases {
				diff := driver.DiffConditions(want[i], got[i], d.Conditions())
				if len(diff) == 0 {
					fmt.Fprintf(stdout, "agree     %s\n", c.Name)
					continue
				}
				failed++
				fmt.Fprintf(stdout, "DISAGREE  %s\n          %s\n", c.Name, strings.Join(diff, "\n          "))
			}
			fmt.Fprintf(stdout, "%d passed, %d failed\n", len(cases)-failed, failed)
			if failed > 0 {
				return failedError{fmt.Sprintf("%s disagrees with the reference on %d case(s)", d.Name(), failed)}
			}
			return nil
		},
	}
	f.add(cmd)
	cf.add(cmd, true)
	rf.add(cmd)
	cmd.Flags().StringArrayVarP(&files, "filename", "f", nil, "scenario file or directory; repeatable")
	cmd.Flags().StringArrayVar(&profiles, "profile", nil, "profile of the cases (default: each scenario's own)")
	return cmd
}
