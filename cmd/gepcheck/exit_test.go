package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"testing"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/suite/input"
)

// TestExitCode: the packages' errors (exitcode.Input, exitcode.Failure,
// and input.EnvironmentOr of an implementation that could not start) get
// the exits their commands gave when each command mapped them itself;
// cobra's own errors are bad input.
func TestExitCode(t *testing.T) {
	down := errors.New("the cluster does not answer")
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"failed", exitcode.Failure{Msg: "differences"}, exitcode.Failed},
		{"failed, naming its flag", exitcode.Failure{Msg: "--fail-on: 1 tripped"}, exitcode.Failed},
		{"failed, wrapped", fmt.Errorf("campaign: %w", exitcode.Failure{Msg: "--fail-on-new: new"}), exitcode.Failed},
		{"input", exitcode.Input{Err: down}, exitcode.BadInput},
		{"input, wrapped", fmt.Errorf("shard: %w", exitcode.Input{Err: down}), exitcode.BadInput},
		{"start on a missing file", input.EnvironmentOr(fs.ErrNotExist), exitcode.BadInput},
		{"start without a tool", input.EnvironmentOr(exec.ErrNotFound), exitcode.BadInput},
		{"start in a broken environment", input.EnvironmentOr(down), exitcode.Internal},
		{"a flag", exitcode.Input{Err: errors.New("--seed: not a number")}, exitcode.BadInput},
		// An error is bad input by its type, not by naming a flag.
		{"naming a flag, untyped", errors.New("--seed: the disk is full"), exitcode.Internal},
		{"a command cobra does not know", errors.New(`unknown command "simulat" for "gepcheck"`), exitcode.BadInput},
		{"anything else", down, exitcode.Internal},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("%s: exitCode(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}
