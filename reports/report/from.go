package report

import (
	"path/filepath"
	"time"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/internal/buildinfo"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// NewResults starts the results of a run of the implementation who in
// mode ("offline", "cluster-PROVIDER") under sem (the implementation's
// own claim when empty), compared as caps says, in the status vocabulary
// caps claims.
func NewResults(who Implementation, mode string, sem engine.Semantics, caps observe.Capabilities) *Results {
	if sem == "" {
		sem = caps.Claim()
	}
	r := &Results{APIVersion: ResultsAPIVersion, Kind: ResultsKind, Implementation: who,
		Mode: mode, Semantics: string(sem), StatusVocabulary: string(caps.StatusVocabulary()), GatewayAPIVersion: cluster.GatewayAPIVersion, GatewayAPIChannel: "experimental",
		AncestorEntries: string(caps.AncestorEntries), Conditions: caps.Conditions, Date: time.Now().UTC().Format(time.RFC3339), Cases: []CaseResult{}}
	b := buildinfo.Read()
	r.Gepcheck = b.String()
	if !b.Modified {
		r.GepcheckCommit = b.Commit
	}
	for _, f := range caps.Features {
		r.Implementation.Features = append(r.Implementation.Features, string(f))
	}
	return r
}

// OfflineCases are the results of an offline run's cases.
func OfflineCases(results []differential.CaseResult, caps observe.Capabilities, replay func(file string) string) []CaseResult {
	var out []CaseResult
	for _, c := range results {
		file, step := c.Case.File, c.Case.Label()
		cr := CaseResult{Name: c.Name, File: file, Step: step, Scenario: c.Case.YAML, Profiles: c.Case.Profiles, docs: c.Case.Docs, Replay: replay(file)}
		switch {
		case c.Skipped != "":
			cr.Outcome, cr.Reason = Skipped, c.Skipped
		case c.Got.Error != "":
			cr.Outcome, cr.Reason = Errored, c.Got.Error
		case len(c.Diff) > 0:
			cr.Outcome = Failed
		default:
			cr.Outcome = Passed
		}
		cr.Differences, cr.Diff = compare.Strings(c.Diff), c.Diff
		if c.Skipped == "" {
			want, got := c.Want, c.Got
			cr.Expected, cr.Observed = &want, &got
			cr.Features = FeaturesOf(c.Case, &want, caps.Conditions, got.Targets != nil, step != "")
		} else {
			cr.Features = FeaturesOf(c.Case, nil, caps.Conditions, false, step != "")
		}
		out = append(out, cr)
	}
	return out
}

// ClusterCases are the results of a run in a cluster: one case per
// scenario file (its steps applied one after the other).
func ClusterCases(results []incluster.Result, replay func(file string) string, caps observe.Capabilities) []CaseResult {
	var out []CaseResult
	for _, r := range results {
		data, _ := load.ReadNamed(r.Plan.File, load.DefaultLimits.MaxBytes)
		c := observe.Case{Name: r.Plan.Name, YAML: string(data), Profiles: r.Plan.Profiles, Docs: r.Plan.Docs}
		// A random case is named by its file alone, not the temporary
		// directory it was drawn into (its first line is the gepcheck gen
		// command that prints it): the same run gives the same report.
		file := r.Plan.File
		if r.Plan.Random {
			file = filepath.Base(file)
		}
		cr := CaseResult{Name: r.Plan.Name, File: file, Step: r.Label(), Reason: r.Reason, Offline: r.Offline,
			Differences: compare.Strings(r.Diff), Diff: r.Diff, Scenario: c.YAML, Profiles: c.Profiles, Replay: replay(file)}
		switch r.Outcome {
		case incluster.Pass:
			cr.Outcome = Passed
		case incluster.Fail:
			cr.Outcome = Failed
		case incluster.Skip:
			cr.Outcome = Skipped
		default:
			cr.Outcome = Errored
		}
		var want *observe.Observation
		if cr.Outcome != Skipped {
			w, g := r.Want, r.Got
			cr.Expected, cr.Observed, want = &w, &g, &w
		}
		cr.Features = FeaturesOf(c, want, caps.Conditions, r.Got.Targets != nil, len(r.Plan.Steps) > 0)
		out = append(out, cr)
	}
	return out
}
