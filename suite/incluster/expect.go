package incluster

import (
	"fmt"
	"regexp"
	"sort"
)

// Ran is one scenario file's outcome in a run, with its reason.
type Ran struct {
	File    string
	Outcome Outcome
	Reason  string
}

// SkipReasons name the reasons NewPlan skips a scenario for (a step's
// reason after its label): a skip for any other reason is unexplained.
var SkipReasons = []struct {
	Name string
	Re   *regexp.Regexp
}{
	{"defines its own PolicyProfile", regexp.MustCompile(`^defines its own PolicyProfile; implementations in a cluster serve built-in profiles$`)},
	{"holds under the other semantics", regexp.MustCompile(`^holds under [a-z0-9, -]+; the implementation claims [a-z0-9-]+$`)},
	{"needs a feature the implementation does not declare", regexp.MustCompile(`^needs feature \S+, which the implementation does not declare$`)},
	{"uses a profile the implementation does not claim", regexp.MustCompile(`^uses profile \S+; the implementation claims \S+$`)},
	{"uses a policy kind the implementation does not serve", regexp.MustCompile(`^uses \S+, which the implementation does not serve$`)},
	{"a generic Topology", regexp.MustCompile(`^a generic Topology has no cluster objects$`)},
	{"uses ObjectFields", regexp.MustCompile(`^uses ObjectFields, which the implementation does not read$`)},
	{"has a fault this run cannot make", regexp.MustCompile(`^fault [a-z]+ at state \d+[^:]*: `)},
}

var stepLabel = regexp.MustCompile(`^step \d+ \([^)]*\): `)

// skipReason is the name of the SkipReasons entry reason is, "" if none.
func skipReason(reason string) string {
	reason = stepLabel.ReplaceAllString(reason, "")
	for _, r := range SkipReasons {
		if r.Re.MatchString(reason) {
			return r.Name
		}
	}
	return ""
}

// Expect holds a run of catalogue files to what the catalogue says for
// target t: every file ran once; a file whose plan (NewPlan) does not
// skip it passed; one it skips was skipped with the plan's reason, one
// of SkipReasons. It returns the files skipped, by reason, and the
// problems: none when the run is as the catalogue says, one when files
// is empty (a check that compared nothing).
func Expect(files []string, ran []Ran, t Target) (skipped map[string][]string, problems []string) {
	skipped = map[string][]string{}
	if len(files) == 0 {
		return skipped, []string{"no scenario files to expect outcomes of"}
	}
	passed := 0
	byFile := map[string][]Ran{}
	for _, r := range ran {
		byFile[r.File] = append(byFile[r.File], r)
	}
	for _, f := range files {
		rs := byFile[f]
		delete(byFile, f)
		if len(rs) != 1 {
			problems = append(problems, fmt.Sprintf("%s ran %d times, want once", f, len(rs)))
			continue
		}
		r := rs[0]
		p, err := NewPlan(f, t)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", f, err))
			continue
		}
		switch {
		case p.Skip == "" && r.Outcome != Pass:
			problems = append(problems, fmt.Sprintf("%s: %s (%s), want pass", f, r.Outcome, r.Reason))
		case p.Skip == "":
			passed++
		case p.Skip != "" && (r.Outcome != Skip || r.Reason != p.Skip):
			problems = append(problems, fmt.Sprintf("%s: %s (%s), want skipped: %s", f, r.Outcome, r.Reason, p.Skip))
		case p.Skip != "":
			name := skipReason(p.Skip)
			if name == "" {
				problems = append(problems, fmt.Sprintf("%s: skipped for a reason not among incluster.SkipReasons: %s", f, p.Skip))
				continue
			}
			skipped[name] = append(skipped[name], f)
		}
	}
	extra := make([]string, 0, len(byFile))
	for f := range byFile {
		extra = append(extra, f)
	}
	sort.Strings(extra)
	for _, f := range extra {
		problems = append(problems, fmt.Sprintf("%s ran, but is not a file of the catalogue", f))
	}
	if passed == 0 {
		problems = append(problems, fmt.Sprintf("none of %d files passed: nothing was compared", len(files)))
	}
	return skipped, problems
}
