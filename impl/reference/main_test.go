package reference

import (
	"fmt"
	"io"
	"os"
	"testing"
)

// TestMain runs the tests, or, started as "controller reference …" (by
// InCluster.Start, whose executable is this test binary), gepcheck
// controller reference itself: the local tests start gepcheck-reference as
// a process, so that cluster.Kill can crash it as the restart fault does.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "controller" && os.Args[2] == "reference" {
		os.Exit(runController(os.Args[3:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// runController runs gepcheck controller reference with args.
func runController(args []string, stdout, stderr io.Writer) int {
	cmd := plugin{}.Commands(stdout, stderr)["controller"][0]
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.SilenceUsage = true
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}
