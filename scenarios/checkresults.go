package scenarios

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gepcheck/gepcheck/admission"
	"github.com/gepcheck/gepcheck/admission/simulate"
	"github.com/gepcheck/gepcheck/internal/signals"
	"github.com/gepcheck/gepcheck/simulator"
)

// CheckFiles is gepcheck check: files checked in order (CheckBounded),
// each called with a file's differences once it is checked. It stops at
// the first file that does not check, a limit of an admission prediction
// (simulate.PredictionError) or a signal (ctx cancelled:
// signals.Stopped); every such error is the user's input (exit 2).
func CheckFiles(ctx context.Context, files []string, opts simulator.Options, b admission.Bounds, each func(file string, diffs []string)) (CheckResults, error) {
	res := CheckResults{Files: []CheckFile{}}
	for _, f := range files {
		if err := signals.Stopped(ctx); err != nil {
			return res, err
		}
		diffs, err := CheckBounded(ctx, f, opts, b)
		if errors.As(err, new(*admission.LimitError)) {
			return res, fmt.Errorf("%s: %w", f, simulate.PredictionError(ctx, err))
		}
		if err != nil {
			return res, err
		}
		res.Add(f, diffs)
		each(f, diffs)
	}
	return res, nil
}

// CheckResults is what gepcheck check found, as its -o json and -o yaml
// print it.
type CheckResults struct {
	Passed int         `json:"passed"`
	Failed int         `json:"failed"`
	Files  []CheckFile `json:"files"`
}

// CheckFile is one scenario file: its differences from the outcome it
// expects (none: passed).
type CheckFile struct {
	File        string   `json:"file"`
	Passed      bool     `json:"passed"`
	Differences []string `json:"differences,omitempty"`
}

// Add records file and its differences.
func (r *CheckResults) Add(file string, diffs []string) {
	r.Files = append(r.Files, CheckFile{File: file, Passed: len(diffs) == 0, Differences: diffs})
	if len(diffs) == 0 {
		r.Passed++
	} else {
		r.Failed++
	}
}

// JUnit writes r as JUnit XML: one suite, a test case per scenario file,
// failed with its differences. No times: the same files give the same
// bytes.
func (r *CheckResults) JUnit(w io.Writer) error {
	type failure struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Failure   *failure `xml:"failure,omitempty"`
	}
	type testsuite struct {
		XMLName  xml.Name   `xml:"testsuite"`
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	s := testsuite{Name: "gepcheck check", Tests: len(r.Files), Failures: r.Failed}
	for _, f := range r.Files {
		c := testcase{Name: f.File, Classname: "gepcheck.check"}
		if !f.Passed {
			c.Failure = &failure{Message: fmt.Sprintf("%d difference(s) from the expected outcome", len(f.Differences)), Text: strings.Join(f.Differences, "\n")}
		}
		s.Cases = append(s.Cases, c)
	}
	b, err := xml.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s%s\n", xml.Header, b)
	return err
}
