package main

import (
	"fmt"
	"io"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/suite/compare"
)

// failOnNew is fuzz --fail-on-new (report.NewKinds): a failure is exit 1,
// kept findings that do not read are bad input.
func failOnNew(w io.Writer, dir, impl, profile string, compared, implFailed int, kinds []compare.Found, files map[string]string) error {
	failure, err := report.NewKinds(w, dir, impl, profile, compared, implFailed, kinds, files)
	if err != nil {
		return exitcode.Input{Err: fmt.Errorf("--fail-on-new: %w", err)}
	}
	if failure != "" {
		return exitcode.Failure{Msg: "--fail-on-new: " + failure}
	}
	return nil
}
