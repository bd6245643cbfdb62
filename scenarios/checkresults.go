package scenarios

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

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
