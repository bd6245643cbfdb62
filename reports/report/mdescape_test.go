package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/reporters"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/gepcheck/gepcheck/suite/compare"
)

// hostile is a results file whose free-text fields try to break out of
// where the Markdown writers put them: a newline then a raw HTML block, a
// backtick closing a code span, a pipe adding a table cell, a link, a
// fence closing the Reproduce block, a terminal escape.
func hostile(t *testing.T) *Results {
	r := sampleResults(t)
	r.Implementation.Project = "p\n\n<img src=x onerror=alert(1)>"
	r.Cases[0].Name = "b` <img src=x onerror=alert(2)> `"
	r.Cases[0].Reason = "[click](javascript:alert(3))"
	r.Cases[0].Outcome = Errored
	r.Cases[0].Differences = []string{"d`\n<script>alert(4)</script>"}
	r.Cases[1].Name = "a | <b>cell</b>"
	r.Cases[1].Replay = "gepcheck run\n```\n<img src=x onerror=alert(5)>\n```"
	r.Campaigns[0].Replay = "fuzz ```\n<img src=x onerror=alert(6)>"
	r.Campaigns[0].Findings[0].Kind = compare.Found{Kind: "k|<i>x</i>"}
	r.Cases[2].Name = "c\x1b[31m"
	return r
}

// TestMarkdownInjection: rendered as GitHub renders Markdown (GFM), no
// string from a results file becomes HTML, a link or a table cell, in the
// README, the matrix and the comparison page; and no raw control
// character is written.
func TestMarkdownInjection(t *testing.T) {
	r := hostile(t)
	r2 := hostile(t)
	r2.Implementation.Version = "v2"
	pages := map[string][]byte{"README": Markdown([]*Results{r}), "matrix": Matrix([]*Results{r, r2}), "compare": Compare([]*Results{r, r2}, nil)}
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	for name, page := range pages {
		if bytes.ContainsAny(page, "\x1b\r") {
			t.Errorf("%s: a raw control character:\n%s", name, page)
		}
		var html bytes.Buffer
		if err := md.Convert(page, &html); err != nil {
			t.Fatal(err)
		}
		h := html.String()
		for _, bad := range []string{"<img", "<script", "<b>", "<i>", `href="javascript`} {
			if strings.Contains(h, bad) {
				t.Errorf("%s: %q rendered as HTML:\n%s\n--- from ---\n%s", name, bad, h, page)
			}
		}
		// Every row of a table has as many cells as its header.
		for _, table := range strings.Split(h, "<table>")[1:] {
			rows := strings.Split(strings.Split(table, "</table>")[0], "<tr>")[1:]
			want := strings.Count(rows[0], "<th")
			for _, row := range rows[1:] {
				if got := strings.Count(row, "<td"); got != want {
					t.Errorf("%s: a row with %d cells under %d headers: %s", name, got, want, row)
				}
			}
		}
	}
}

// TestJUnitHostile: JUnit XML of a results file whose strings hold markup
// and control characters (which XML 1.0 cannot carry) is well-formed, and
// every case is there under its name.
func TestJUnitHostile(t *testing.T) {
	r := hostile(t)
	r.Cases[1].Name = "a]]><x/>\x00\x07"
	data, err := JUnit(r)
	if err != nil {
		t.Fatal(err)
	}
	var suites reporters.JUnitTestSuites
	if err := xml.Unmarshal(data, &suites); err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, data)
	}
	if n := len(suites.TestSuites[0].TestCases); n != len(r.Cases) {
		t.Errorf("%d test cases, want %d", n, len(r.Cases))
	}
	if bytes.Contains(data, []byte("<x/>")) || bytes.Contains(data, []byte("<img")) {
		t.Errorf("markup from a name written raw:\n%s", data)
	}
}
