package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/scenarios"
)

func newCheck(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "check FILE|DIR...",
		Short: "Run scenario files and compare with the outcome they expect",
		Long: `check runs every scenario file (a YAML file whose first document is a
Scenario, see scenarios/README.md) through the engine under each semantics the
scenario names, and reports every difference from the expected outcome.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			files, err := scenarios.Files(args)
			if err != nil {
				return inputError{err}
			}
			if len(files) == 0 {
				return inputError{fmt.Errorf("no scenario files (.yaml, .yml) in %s", strings.Join(args, ", "))}
			}
			failed, passed := 0, 0
			for _, f := range files {
				diffs, err := scenarios.Check(f)
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
