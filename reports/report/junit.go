package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/onsi/ginkgo/v2/reporters"
)

// JUnit is r as JUnit XML, with Ginkgo's JUnit types (the cluster run's
// reporter writes the same schema): one suite for the scenario files, one
// per random campaign (a case per finding, failed, and the agreeing count
// as a property). Times are left out so that the same inputs give the
// same bytes.
func JUnit(r *Results) ([]byte, error) {
	suites := reporters.JUnitTestSuites{}
	s := reporters.JUnitTestSuite{Name: "gepcheck " + r.Implementation.Name + " " + r.Mode, Package: r.Implementation.Project, Timestamp: r.Date,
		Properties: reporters.JUnitProperties{Properties: []reporters.JUnitProperty{
			{Name: "implementation", Value: r.Implementation.Name + " " + r.Implementation.Version},
			{Name: "semantics", Value: r.Semantics},
			{Name: "statusVocabulary", Value: r.StatusVocabularyRead()},
			{Name: "gatewayAPIVersion", Value: r.GatewayAPIVersion},
			{Name: "vocabulary", Value: VocabularyText(r.StatusVocabularyRead())},
			{Name: "ancestor-entries", Value: AncestorEntriesText(r.AncestorEntries)},
			{Name: "reading", Value: r.Reading()},
			{Name: "standing", Value: r.Standing()},
			{Name: "gepcheck", Value: r.Producer()},
		}}}
	for _, c := range r.Cases {
		tc := reporters.JUnitTestCase{Name: c.Name, Classname: c.File, Status: c.Outcome}
		switch c.Outcome {
		case Skipped:
			tc.Skipped = &reporters.JUnitSkipped{Message: "skipped - " + c.Reason}
			s.Skipped++
		case Failed:
			typ, desc := "disagreement", strings.Join(c.Differences, "\n")+"\nreplay: "+c.Replay
			if v := c.KnownVerdict(r.KnownFrom); v != "" {
				desc = v + "\n" + desc
				switch {
				case len(c.Known) > 0:
					typ = "known-finding"
				case c.Regression(r.KnownFrom):
					typ = "regression"
				}
			}
			tc.Failure = &reporters.JUnitFailure{Message: fmt.Sprintf("%d difference(s) with the reference", len(c.Differences)), Type: typ, Description: desc}
			s.Failures++
		case Errored:
			tc.Error = &reporters.JUnitError{Message: c.Reason, Type: "error", Description: strings.Join(c.Differences, "\n")}
			s.Errors++
		}
		s.TestCases = append(s.TestCases, tc)
	}
	s.Tests = len(s.TestCases)
	suites.TestSuites = append(suites.TestSuites, s)
	for _, c := range r.Campaigns {
		cs := reporters.JUnitTestSuite{Name: "gepcheck random " + c.Kind, Package: c.Profile, Timestamp: r.Date,
			Properties: reporters.JUnitProperties{Properties: []reporters.JUnitProperty{
				{Name: "seed", Value: fmt.Sprint(c.Seed)}, {Name: "checks", Value: fmt.Sprint(c.Checks)},
				{Name: "disagreed", Value: fmt.Sprint(c.Disagreed)}, {Name: "replay", Value: c.Replay},
			}}}
		for _, f := range c.Findings {
			cs.TestCases = append(cs.TestCases, reporters.JUnitTestCase{Name: f.Kind.String(), Classname: c.Profile, Status: Failed,
				Failure: &reporters.JUnitFailure{Message: fmt.Sprintf("finding %s (case %d)", f.Kind, f.Case), Type: "finding",
					Description: strings.TrimPrefix(Verdict(r.KnownFrom, f.Known)+"\n", "\n") + strings.Join(f.Differences, "\n")}})
			cs.Failures++
		}
		cs.Tests = len(cs.TestCases)
		suites.TestSuites = append(suites.TestSuites, cs)
	}
	for _, s := range suites.TestSuites {
		suites.Tests += s.Tests
		suites.Failures += s.Failures
		suites.Errors += s.Errors
	}
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(suites); err != nil {
		return nil, err
	}
	b.WriteString("\n")
	return b.Bytes(), nil
}
