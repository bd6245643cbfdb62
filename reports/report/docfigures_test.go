package report

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A figure a doc states about published results is marked with the
// results it comes from, and checked against them here (issue 30: docs
// said 12 of 28 pass where the report showed 16 of 32, and that a case
// conforms which the report showed failing):
//
//	<!-- results: FILE QUERY -->TEXT<!-- /results -->
//
// FILE is a results file of reports/ (results-MODE.json), relative to the
// repository; QUERY one of
//
//	passed | failed | skipped | errors | cases       scenario cases with that outcome, or all
//	under PREFIX[,PREFIX] passed|failed|...|cases    the same among the cases of files under PREFIX
//	outcome FILE                                     the outcome of every case of that scenario file
//	campaign KIND STEPS disagreed|checks|findings    a random campaign's figure (STEPS 0: none)
//
// TEXT is the number, or for outcome a word of it (passes, passed,
// conforms; fails, failed; skipped; error).
var figureRE = regexp.MustCompile(`(?s)<!-- results: (\S+) ([^>]*?) -->(.*?)<!-- /results -->`)

// outcomeWords are the words a doc may state an outcome with.
var outcomeWords = map[string]string{
	"passes": Passed, "passed": Passed, "pass": Passed, "conforms": Passed,
	"fails": Failed, "failed": Failed, "fail": Failed,
	"skipped": Skipped, "error": Errored, "errors": Errored,
}

// checkFigures checks every marked figure of doc (named name) against
// the results read by open; it returns one error per figure the results
// contradict or that cannot be read, and how many it checked.
func checkFigures(name string, doc []byte, open func(file string) (*Results, error)) (int, []error) {
	var errs []error
	ms := figureRE.FindAllSubmatch(doc, -1)
	for _, m := range ms {
		file, query, text := string(m[1]), strings.Fields(string(m[2])), strings.Join(strings.Fields(string(m[3])), " ")
		bad := func(format string, a ...any) {
			errs = append(errs, fmt.Errorf("%s: %s %s: %s", name, file, strings.Join(query, " "), fmt.Sprintf(format, a...)))
		}
		r, err := open(file)
		if err != nil {
			bad("%v", err)
			continue
		}
		want, err := figure(r, query)
		if err != nil {
			bad("%v", err)
			continue
		}
		got := text
		if query[0] == "outcome" {
			got = outcomeWords[strings.ToLower(text)]
		}
		if got != want {
			bad("the doc says %q, the results %q", text, want)
		}
	}
	return len(ms), errs
}

// figure is what the results say for query.
func figure(r *Results, query []string) (string, error) {
	count := func(cases []CaseResult, what string) (string, error) {
		n := 0
		for _, c := range cases {
			if what == "cases" || c.Outcome == what || what == "errors" && c.Outcome == Errored {
				n++
			}
		}
		switch what {
		case "cases", Passed, Failed, Skipped, "errors":
			return strconv.Itoa(n), nil
		}
		return "", fmt.Errorf("%q: want passed, failed, skipped, errors or cases", what)
	}
	switch {
	case len(query) == 1:
		return count(r.Cases, query[0])
	case query[0] == "under" && len(query) == 3:
		var cs []CaseResult
		for _, c := range r.Cases {
			for _, p := range strings.Split(query[1], ",") {
				if strings.HasPrefix(c.File, p) {
					cs = append(cs, c)
					break
				}
			}
		}
		if len(cs) == 0 {
			return "", fmt.Errorf("no case under %s", query[1])
		}
		return count(cs, query[2])
	case query[0] == "outcome" && len(query) == 2:
		out := ""
		for _, c := range r.Cases {
			if c.File != query[1] && c.Name != query[1] {
				continue
			}
			if out != "" && out != c.Outcome {
				return "", fmt.Errorf("its cases have outcomes %s and %s", out, c.Outcome)
			}
			out = c.Outcome
		}
		if out == "" {
			return "", fmt.Errorf("no such case")
		}
		return out, nil
	case query[0] == "campaign" && len(query) == 4:
		steps, err := strconv.Atoi(query[2])
		if err != nil {
			return "", fmt.Errorf("steps %q: want a number", query[2])
		}
		for _, c := range r.Campaigns {
			if c.Kind != query[1] || c.Steps != steps {
				continue
			}
			switch query[3] {
			case "disagreed":
				return strconv.Itoa(c.Disagreed), nil
			case "checks":
				return strconv.Itoa(c.Checks), nil
			case "findings":
				return strconv.Itoa(len(c.Findings)), nil
			}
			return "", fmt.Errorf("%q: want disagreed, checks or findings", query[3])
		}
		return "", fmt.Errorf("no campaign of %s with %d steps", query[1], steps)
	}
	return "", fmt.Errorf("unknown query")
}

// TestDocFiguresMatchResults: every figure the docs mark as coming from
// the published results says what those results say, and the pages about
// published results mark their figures.
func TestDocFiguresMatchResults(t *testing.T) {
	cache := map[string]*Results{}
	open := func(file string) (*Results, error) {
		if r, ok := cache[file]; ok {
			return r, nil
		}
		if !strings.HasPrefix(file, "reports/") {
			return nil, fmt.Errorf("not a published results file (reports/...)")
		}
		r, err := ReadResults(filepath.Join("../..", file))
		if err == nil {
			cache[file] = r
		}
		return r, err
	}
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	// The pages that state figures of the published results, and how
	// many they mark at least.
	least := map[string]int{"reports.md": 10, "envoy-gateway.md": 8, "contour-and-traefik.md": 5}
	total := 0
	for _, d := range append(docs, "../../README.md") {
		data, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		n, errs := checkFigures(filepath.Base(d), data, open)
		for _, err := range errs {
			t.Error(err)
		}
		if n < least[filepath.Base(d)] {
			t.Errorf("%s marks %d figures of the published results, want at least %d", d, n, least[filepath.Base(d)])
		}
		total += n
	}
	t.Logf("%d figures checked", total)
}

// TestDocFiguresCatchWrong: a planted wrong figure of each kind is
// caught, and the right one passes (the results are made here, not read).
func TestDocFiguresCatchWrong(t *testing.T) {
	r := &Results{Cases: []CaseResult{
		{Name: "a", File: "scenarios/x/a.yaml", Outcome: Passed},
		{Name: "b", File: "scenarios/x/b.yaml", Outcome: Failed},
		{Name: "c", File: "scenarios/y/c.yaml", Outcome: Passed},
	}, Campaigns: []Campaign{{Kind: "K", Checks: 300, Disagreed: 196, Findings: make([]CampaignFinding, 7)}}}
	open := func(string) (*Results, error) { return r, nil }
	m := func(q, text string) string {
		return "<!-- results: reports/r.json " + q + " -->" + text + "<!-- /results -->"
	}
	for _, tc := range []struct {
		q, right, wrong string
	}{
		{"passed", "2", "12"},
		{"cases", "3", "28"},
		{"under scenarios/x/ passed", "1", "2"},
		{"under scenarios/x/,scenarios/y/ cases", "3", "2"},
		{"outcome scenarios/x/b.yaml", "fails", "conforms"},
		{"outcome scenarios/x/a.yaml", "passes", "fails"},
		{"campaign K 0 disagreed", "196", "194"},
		{"campaign K 0 findings", "7", "6"},
	} {
		doc := "v1.9.1 passes " + m(tc.q, tc.right) + " of the\ncases."
		if n, errs := checkFigures("right.md", []byte(doc), open); n != 1 || len(errs) != 0 {
			t.Errorf("%s %s: %d checked, %v", tc.q, tc.right, n, errs)
		}
		doc = "v1.9.1 passes " + m(tc.q, tc.wrong) + " of the\ncases."
		if _, errs := checkFigures("wrong.md", []byte(doc), open); len(errs) != 1 || !strings.Contains(errs[0].Error(), "the doc says") {
			t.Errorf("%s: the wrong figure %s is not caught: %v", tc.q, tc.wrong, errs)
		}
	}
	// The published page with its first marked figure made wrong.
	open = func(file string) (*Results, error) { return ReadResults(filepath.Join("../..", file)) }
	page, err := os.ReadFile("../../docs/reports.md")
	if err != nil {
		t.Fatal(err)
	}
	loc := figureRE.FindSubmatchIndex(page)
	if loc == nil {
		t.Fatal("docs/reports.md marks no figure")
	}
	if _, errs := checkFigures("reports.md", page[:loc[1]], open); len(errs) != 0 {
		t.Fatalf("the first figure of docs/reports.md as published: %v", errs)
	}
	planted := string(page[:loc[6]]) + "12" + string(page[loc[7]:loc[1]])
	if _, errs := checkFigures("reports.md", []byte(planted), open); len(errs) != 1 {
		t.Errorf("docs/reports.md with its first figure %q planted as 12: %v, want one error", page[loc[6]:loc[7]], errs)
	} else {
		t.Logf("planted: %v", errs[0])
	}
	for _, q := range []string{"outcome scenarios/none.yaml", "campaign Other 0 checks", "under scenarios/z/ passed", "sometimes"} {
		if _, errs := checkFigures("bad.md", []byte(m(q, "1")), func(string) (*Results, error) { return r, nil }); len(errs) != 1 {
			t.Errorf("%s: %v, want an error", q, errs)
		}
	}
}
