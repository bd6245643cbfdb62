// Package campaign runs a differential fuzz campaign against an
// implementation offline, end to end (gepcheck fuzz --impl of an
// implementation that fuzzes in batches, docs/implementations.md): the
// batched run of cases with or without steps (differential.Fuzz), each
// finding written (report.WriteFinding), the run's summary printed, the
// campaign a report is written from, the --coverage check, and the
// caller's triage and --fail-on-new verdict on the kinds found. Fuzz is
// gepcheck fuzz as a whole: its values checked, then such a campaign or
// the named properties (suite.RunAll) run and printed.
package campaign

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Config is one campaign.
type Config struct {
	// Impl names the implementation; Fuzzer is its configuration and
	// Observer its offline form, claiming the semantics and status
	// vocabulary the comparison follows.
	Impl     string
	Fuzzer   differential.Fuzzer
	Observer observe.Observer
	// Kind is the policy kind to fuzz ("": the first Fuzzer names).
	Kind string
	// Case i is drawn with Seed+i; with Steps > 0 it changes up to Steps
	// times.
	Seed          uint64
	Checks, Steps int
	// OutDir is where findings files go.
	OutDir string
	Shard  suite.Shard
	// Coverage prints how often each combination was drawn and fails
	// when one the implementation declares never is (fuzz --coverage).
	Coverage bool
	// Known, when set, is told the campaign and the kinds its findings
	// show, after the summary: the kept findings' triage, the reports.
	Known func(c report.Campaign, found []compare.Found) error
	// New, when set, judges the kinds found against the kept findings
	// (fuzz --fail-on-new): files are the findings files by kind,
	// compared the cases compared, implFailed those the implementation
	// failed on. It returns why the campaign fails ("" if it does not).
	New func(c report.Campaign, found []compare.Found, files map[string]string, compared, implFailed int) (string, error)
}

// Run runs c, printing to w, and returns the campaign and why it fails
// (none: it passes; findings are evidence, not failures).
func Run(ctx context.Context, c Config, w io.Writer) (report.Campaign, []string, error) {
	r, err := differential.FuzzRun(c.Impl, c.Fuzzer, c.Observer, c.Kind, c.Seed, c.Checks, c.Steps)
	if err != nil {
		return report.Campaign{}, nil, exitcode.Input{Err: err}
	}
	r.Shard = c.Shard
	r.Write = func(r differential.Run, kind compare.Found, dis differential.Disagreement) (string, error) {
		return report.WriteFinding(c.OutDir, r.Profile, r.Replay, kind.String(), r.ProfileSource, dis)
	}
	upTo := ""
	if c.Steps > 0 {
		upTo = fmt.Sprintf(", up to %d steps", c.Steps)
	}
	fmt.Fprintf(w, "seed: %d\nimplementation: %s, profile %s%s\n", c.Seed, c.Fuzzer.Describe(), r.Profile, upTo)
	sum, err := differential.Fuzz(ctx, r, w)
	if err != nil {
		return report.Campaign{}, nil, err
	}
	if c.Steps > 0 {
		fmt.Fprintf(w, "%d agree, %d disagree (findings are evidence, not failures)\n", sum.Checks-len(sum.Disagree), len(sum.Disagree))
	} else {
		report.Fuzz(w, c.Impl, sum)
	}
	camp, found := campaignOf(c, r, sum)
	if c.Known != nil {
		if err := c.Known(camp, found); err != nil {
			return camp, nil, err
		}
	}
	var failed []string
	if c.Coverage {
		report.Coverage(w, sum.Coverage)
		if missing := sum.Coverage.Missing(); len(missing) > 0 {
			failed = append(failed, fmt.Sprintf("%d declared combination(s) never drawn in %d scenarios: %s", len(missing), c.Checks, strings.Join(missing, "; ")))
		}
	}
	if c.New != nil {
		files := map[string]string{}
		for _, fd := range camp.Findings {
			files[fd.Kind.String()] = filepath.Join(c.OutDir, fd.File)
		}
		implFailed := sum.ImplFailed()
		why, err := c.New(camp, found, files, sum.Checks-implFailed, implFailed)
		if err != nil {
			return camp, failed, err
		}
		if why != "" {
			failed = append(failed, why)
		}
	}
	return camp, failed, nil
}

// campaignOf is the campaign of run r of c, which found sum, and the kinds
// of its findings.
func campaignOf(c Config, r differential.Run, sum *differential.Summary) (report.Campaign, []compare.Found) {
	kind := c.Kind
	if kind == "" {
		kind = c.Fuzzer.FuzzKinds()[0].Kind
	}
	camp := report.Campaign{Kind: kind, Profile: r.Profile, Seed: c.Seed, Checks: sum.Checks, Steps: c.Steps, Disagreed: len(sum.Disagree), Replay: r.Replay}
	var found []compare.Found
	for _, fd := range sum.Findings {
		camp.Findings = append(camp.Findings, report.CampaignFinding{Kind: fd.Kind, Case: fd.Case, Differences: compare.Strings(fd.Small.Diff),
			Scenario: string(fd.Small.Case.YAML()), Profiles: []string{r.Profile}, File: filepath.Base(fd.File)})
		found = append(found, fd.Kind)
	}
	return camp, found
}
