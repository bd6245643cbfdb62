package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"testing"

	"github.com/gepcheck/gepcheck/admission/simulate"
	"github.com/gepcheck/gepcheck/suite/campaign"
	"github.com/gepcheck/gepcheck/suite/input"
	"github.com/gepcheck/gepcheck/suite/runner"
)

// TestExitCode: the packages' errors get the exits their commands gave
// when each command mapped them itself (run's runError, fuzz's fuzzError).
func TestExitCode(t *testing.T) {
	down := errors.New("the cluster does not answer")
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"cmd failed", failedError{"differences"}, exitFailed},
		{"campaign failed", campaign.FailedError{Msg: "--fail-on-new: new"}, exitFailed},
		{"cmd input", inputError{down}, exitBadInput},
		{"input", input.Error{Err: down}, exitBadInput},
		{"admission input", simulate.InputError{Err: down}, exitBadInput},
		{"runner input, wrapped", fmt.Errorf("shard: %w", runner.BadInput{Err: down}), exitBadInput},
		{"campaign input", campaign.InputError{Err: down}, exitBadInput},
		{"setup of a missing file", runner.Setup{Err: fs.ErrNotExist}, exitBadInput},
		{"setup of the environment", runner.Setup{Err: down}, exitInternal},
		{"start of a missing tool", campaign.StartError{Err: exec.ErrNotFound}, exitBadInput},
		{"start of the environment", campaign.StartError{Err: down}, exitInternal},
		{"a flag", errors.New("--seed: not a number"), exitBadInput},
		{"anything else", down, exitInternal},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("%s: exitCode(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}
