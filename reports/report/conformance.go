package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	confv1 "sigs.k8s.io/gateway-api/conformance/apis/v1"
	"sigs.k8s.io/yaml"
)

// ProfileName is the name of gepcheck's conformance profile for Policy
// Attachment in a ConformanceReport; random campaigns are profiles of
// their own, named RandomProfilePrefix + policy kind.
const (
	ProfileName         = "POLICY-ATTACHMENT"
	RandomProfilePrefix = "POLICY-ATTACHMENT-RANDOM-"
)

// ConformanceReport is r as Gateway API's ConformanceReport (module
// sigs.k8s.io/gateway-api/conformance, apis/v1): one profile whose core
// counts every case (each resolves targetRefs and checks the Accepted
// condition, and most the Conflict resolution rules) and whose extended
// counts the cases that use an extended feature, the extended features
// exercised by a case that ran being supported; its summary gives each
// feature's counts. Each random campaign
// is a profile of its own: agreeing cases passed, disagreeing ones failed,
// its findings the failed tests.
func ConformanceReport(r *Results) *confv1.ConformanceReport {
	rep := &confv1.ConformanceReport{
		TypeMeta: metav1.TypeMeta{APIVersion: confv1.GroupVersion.String(), Kind: "ConformanceReport"},
		Implementation: confv1.Implementation{
			Organization: r.Implementation.Organization, Project: r.Implementation.Project, URL: r.Implementation.URL,
			Version: r.Implementation.Version, Contact: r.Implementation.Contact,
		},
		Date: r.Date, GatewayAPIVersion: r.GatewayAPIVersion, GatewayAPIChannel: r.GatewayAPIChannel, Mode: r.Mode,
	}
	var core, ext confv1.Status
	ran := map[string]bool{}
	for _, c := range r.Cases {
		c.Name = testName(r.KnownFrom, c)
		count(&core, c)
		if slices.ContainsFunc(c.Features, func(f string) bool { return !IsCore(f) }) {
			count(&ext, c)
		}
		if c.Outcome != Skipped {
			for _, f := range c.Features {
				ran[f] = true
			}
		}
	}
	core.Result, ext.Result = result(core), result(ext)
	extended := &confv1.ExtendedStatus{Status: ext}
	for _, f := range ExtendedFeatures {
		if ran[f] {
			extended.SupportedFeatures = append(extended.SupportedFeatures, f)
		} else {
			extended.UnsupportedFeatures = append(extended.UnsupportedFeatures, f)
		}
	}
	rep.ProfileReports = append(rep.ProfileReports, confv1.ProfileReport{
		Name: ProfileName, Summary: summary(r), Core: core, Extended: extended,
	})
	for _, c := range r.Campaigns {
		st := confv1.Status{Statistics: confv1.Statistics{Passed: uint32(c.Checks - c.Disagreed), Failed: uint32(c.Disagreed)}}
		for _, f := range c.Findings {
			name := f.Kind.String()
			if v := Verdict(r.KnownFrom, f.Known); v != "" {
				name += " (" + v + ")"
			}
			st.FailedTests = append(st.FailedTests, name)
		}
		st.Result = result(st)
		steps := ""
		if c.Steps > 0 {
			steps = fmt.Sprintf(", up to %d steps each", c.Steps)
		}
		rep.ProfileReports = append(rep.ProfileReports, confv1.ProfileReport{
			Name: RandomProfilePrefix + c.Kind,
			Summary: fmt.Sprintf("Random cases of profile %s, seed %d: %d cases%s, %d disagree with the reference, %d findings (one per kind of difference, shrunk). Replay: %s",
				c.Profile, c.Seed, c.Checks, steps, c.Disagreed, len(c.Findings), c.Replay),
			Core: st,
		})
	}
	return rep
}

// testName is a case's name in the report's test lists: for a failure,
// with how it reads against the kept findings (Verdict), so that a known
// finding and a regression do not look the same.
func testName(knownFrom string, c CaseResult) string {
	if v := c.KnownVerdict(knownFrom); v != "" {
		return c.Name + " (" + v + ")"
	}
	return c.Name
}

func count(st *confv1.Status, c CaseResult) {
	switch c.Outcome {
	case Passed:
		st.Passed++
	case Skipped:
		st.Skipped++
		st.SkippedTests = append(st.SkippedTests, c.Name)
	default:
		st.Failed++
		st.FailedTests = append(st.FailedTests, c.Name)
	}
}

// result is failure when a test failed, partial when none failed and
// some were skipped, success otherwise.
func result(st confv1.Status) confv1.Result {
	switch {
	case st.Failed > 0:
		return confv1.Failure
	case st.Skipped > 0:
		return confv1.Partial
	}
	return confv1.Success
}

// summary gives each feature's counts, core features first.
func summary(r *Results) string {
	var parts []string
	for _, fc := range FeatureCounts(r) {
		if fc.Passed+fc.Failed+fc.Skipped > 0 {
			parts = append(parts, fmt.Sprintf("%s %d passed, %d failed, %d skipped", fc.Name, fc.Passed, fc.Failed, fc.Skipped))
		}
	}
	// One statement a line: YAML writes a string of several lines as a
	// literal block and folds none of them, so the line naming gepcheck's
	// build stays whole (hack/lib.sh, undated).
	return strings.Join([]string{r.Standing(), r.Reading(), r.Producer(),
		fmt.Sprintf("gepcheck %s run, semantics %s, status vocabulary %s. Per feature: %s.", r.Mode, r.Semantics, r.StatusVocabularyRead(), strings.Join(parts, "; "))}, "\n")
}

// MarshalConformanceReport writes rep as YAML and checks that it decodes
// strictly into the upstream types (no field they do not have) and that
// its implementation block is valid (confv1.Implementation.Validate).
func MarshalConformanceReport(rep *confv1.ConformanceReport) ([]byte, error) {
	data, err := yaml.Marshal(rep)
	if err != nil {
		return nil, err
	}
	if _, err := DecodeConformanceReport(data); err != nil {
		return nil, err
	}
	return data, nil
}

// DecodeConformanceReport decodes a ConformanceReport strictly with the
// upstream types and validates its implementation block.
func DecodeConformanceReport(data []byte) (*confv1.ConformanceReport, error) {
	var back confv1.ConformanceReport
	if err := yaml.UnmarshalStrict(data, &back); err != nil {
		return nil, fmt.Errorf("conformance report: %w", err)
	}
	if err := back.Implementation.Validate(); err != nil {
		return nil, fmt.Errorf("conformance report: %w", err)
	}
	if !bytes.Contains(data, []byte("kind: ConformanceReport")) {
		return nil, fmt.Errorf("conformance report: no kind")
	}
	return &back, nil
}
