// Package exitcode is the exit a gepcheck command ends with, and the
// errors that carry it (README.md, Exit codes): 0 ok, 1 a check found
// differences, 2 the user's input or flags, 3 anything else (the
// environment, or a bug).
package exitcode

import "errors"

// The exit codes.
const (
	OK       = 0
	Failed   = 1 // a check found differences, or --fail-on tripped
	BadInput = 2 // unusable input or flags, a limit of docs/limits.md hit
	Internal = 3 // could not finish: the environment (a cluster, a tool build) or a bug
)

// Coder is an error that knows its exit code.
type Coder interface {
	error
	ExitCode() int
}

// Of is the exit code of a command that returned err: the first error in
// its chain that is a Coder decides; an error none decides is Internal.
func Of(err error) int {
	if err == nil {
		return OK
	}
	var c Coder
	if errors.As(err, &c) {
		return c.ExitCode()
	}
	return Internal
}

// Input is an error of the user's input or flags (exit 2).
type Input struct{ Err error }

func (e Input) Error() string { return e.Err.Error() }
func (e Input) Unwrap() error { return e.Err }
func (Input) ExitCode() int   { return BadInput }

// Failure is a run that worked and found differences (exit 1).
type Failure struct{ Msg string }

func (e Failure) Error() string { return e.Msg }
func (Failure) ExitCode() int   { return Failed }
