package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/suite/runner"
)

func newRun(stdout, stderr io.Writer) *cobra.Command {
	var f runner.Flags
	cmd := &cobra.Command{
		Use:   "run --impl NAME [--cluster local|kind|kubeconfig] [-f] FILE|DIR...",
		Short: "Run scenario files through an implementation (offline, or in a cluster) and compare with the reference engine",
		Long: `run runs scenario files through an implementation and compares what it does
with the reference engine.

Offline (no --cluster): the implementation's offline form (the reference
engine, a command speaking docs/exec-protocol.md, a translator).

In a cluster (--cluster local|kind|kubeconfig; docs/cluster.md): each scenario
is applied in fresh namespaces labelled gepcheck.dev/managed-by=gepcheck, the
implementation's status is awaited, the objects are read back as stored and
the expectation is computed from them. Everything created is removed at the
end, after a failure and on SIGINT/SIGTERM.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := f.Run(args, func(s string) { fmt.Fprintf(stderr, "gepcheck: %s\n", s) })
			if err != nil {
				return err
			}
			return res.Print(stdout)
		},
	}
	f.AddFlags(cmd.Flags())
	return cmd
}
