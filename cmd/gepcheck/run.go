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
	impl, execCommand, egVersion string
	timeout                      time.Duration
}

func (f *implFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.impl, "impl", "", "implementation: reference, envoy-gateway (egctl x translate, built and cached by gepcheck), or exec (with --exec-command)")
	cmd.Flags().StringVar(&f.egVersion, "envoy-gateway-version", driver.EnvoyGatewayVersion, "Envoy Gateway version whose egctl to build and run")
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
		bin, err := driver.Egctl(context.Background(), f.egVersion)
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
	var files, profiles []string
	cmd := &cobra.Command{
		Use:   "run --impl reference|exec [--exec-command CMD] -f FILE|DIR...",
		Short: "Run scenario files through an implementation and compare with the reference engine",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
	cmd.Flags().StringArrayVarP(&files, "filename", "f", nil, "scenario file or directory; repeatable")
	cmd.Flags().StringArrayVar(&profiles, "profile", nil, "profile of the cases (default: each scenario's own)")
	return cmd
}
