package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gepcheck/gepcheck/internal/outpath"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// ResultsKind is the kind of a results file: what a run of `gepcheck run`
// or `gepcheck fuzz` with --report-dir keeps, from which `gepcheck report`
// writes the reports people publish (docs/reports.md), and which `gepcheck
// report merge` merges across shards.
const ResultsKind = "RunResults"

// Results is a run's results: who was run, how, and each case's outcome.
type Results struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Implementation says who was run (Gateway API's ConformanceReport
	// implementation block), Name how gepcheck calls it (--impl).
	Implementation Implementation `json:"implementation"`
	// Mode is "offline", "cluster-PROVIDER" (local, kind, kubeconfig) or,
	// from suite/conformance's test suite in a cluster it did not start,
	// "cluster".
	Mode string `json:"mode"`
	// Semantics is the reading of GEP-713 the implementation claims
	// (docs/semantics.md); every comparison followed it.
	Semantics string `json:"semantics"`
	// StatusVocabulary is the status vocabulary the implementation claims
	// (engine.Vocabulary: merged GEP-713's or its draft's); every
	// comparison followed it. Empty in results written before it was
	// recorded, which were compared in the draft's (StatusVocabularyRead).
	StatusVocabulary string `json:"statusVocabulary,omitempty"`
	// AncestorEntries is the reading of status per ancestor the
	// implementation claims when it is not one entry per Gateway
	// (simulator.AncestorEntries: "listener"); every comparison followed
	// it.
	AncestorEntries string `json:"ancestorEntries,omitempty"`
	// Gepcheck is the gepcheck that ran (buildinfo.Info.String: version,
	// commit, Go version); empty in results written before it was kept.
	Gepcheck string `json:"gepcheck,omitempty"`
	// GepcheckCommit is the commit it was built from, when the work tree
	// was clean: the one a replay checks out (Markdown, Reproduce).
	GepcheckCommit string `json:"gepcheckCommit,omitempty"`
	// KnownFrom is the directory of kept findings (scenarios/findings)
	// each failed case and campaign finding was matched with (Known);
	// empty: not matched, so no failure is called known or a regression.
	KnownFrom string `json:"knownFrom,omitempty"`
	// Conditions are the policy condition types compared (empty: all);
	// the implementation's others are shown, not compared.
	Conditions []string `json:"conditions,omitempty"`
	// GatewayAPIVersion and GatewayAPIChannel are those of the Gateway API
	// CRDs the run used.
	GatewayAPIVersion string `json:"gatewayAPIVersion"`
	GatewayAPIChannel string `json:"gatewayAPIChannel"`
	// Date is when the run ended (RFC 3339): the only field that differs
	// between two runs of the same inputs and seed.
	Date string `json:"date"`
	// Shards, when the run is one shard of several or a merge of them,
	// lists the shards ("1/4").
	Shards []string `json:"shards,omitempty"`
	// Cases are the scenario files' cases, sorted by name.
	Cases []CaseResult `json:"cases"`
	// Campaigns are random-case runs (gepcheck fuzz --impl, run --random).
	Campaigns []Campaign `json:"campaigns,omitempty"`
}

// Implementation describes the implementation run.
type Implementation struct {
	Name         string   `json:"name"`
	Organization string   `json:"organization"`
	Project      string   `json:"project"`
	URL          string   `json:"url"`
	Version      string   `json:"version"`
	Contact      []string `json:"contact"`
	// Features are the features the implementation declares
	// (features.Set; empty: all).
	Features []string `json:"features,omitempty"`
}

// Outcomes of a case.
const (
	Passed  = "passed"
	Failed  = "failed"
	Skipped = "skipped"
	Errored = "error"
)

// CaseResult is one case of a scenario file (one step of a scenario with
// steps offline, the whole file in a cluster).
type CaseResult struct {
	Name string `json:"name"`
	File string `json:"file"`
	// Outcome is passed, failed, skipped or error; Reason why a case was
	// skipped or is an error.
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
	// Step is the step the outcome is of, for a scenario with steps.
	Step string `json:"step,omitempty"`
	// Features are the features the case exercises (FeaturesOf).
	Features []string `json:"features"`
	// Differences are the comparison's, as gepcheck prints them; Diff
	// the same as values, which a kept finding's are compared with
	// (gepcheck findings verify, compare.Reproduce).
	Differences []string             `json:"differences,omitempty"`
	Diff        []compare.Difference `json:"diff,omitempty"`
	// Expected and Observed are the reference's and the implementation's
	// observations.
	Expected *observe.Observation `json:"expected,omitempty"`
	Observed *observe.Observation `json:"observed,omitempty"`
	// Scenario is the case's YAML, drawn in the HTML report with
	// Profiles (empty: the scenario's own).
	Scenario string   `json:"scenario"`
	Profiles []string `json:"profiles,omitempty"`
	// docs are Scenario's documents as the run loaded them
	// (observe.Case.Docs), nil in results read back: the picture is
	// drawn from them instead of parsing Scenario again.
	docs []*load.Doc
	// Replay is the command that runs the case again.
	Replay string `json:"replay"`
	// Offline says, for a failure in a cluster, what the implementation's
	// offline form does with it.
	Offline string `json:"offline,omitempty"`
	// Known are the kept findings a failed case shows (under the
	// results' KnownFrom); a failed case with none, when KnownFrom is
	// set, is a regression.
	Known []Known `json:"known,omitempty"`
}

// Known is a kept finding (scenarios/findings, gepcheck findings) that a
// failure shows, with its triage.
type Known struct {
	// Finding is the findings file, relative to the results' KnownFrom.
	Finding string `json:"finding"`
	// Verdict and Requirement are its triage's (suite.Triage):
	// contradicts-must GEP-713-019, undefined, ...
	Verdict     string `json:"verdict"`
	Requirement string `json:"requirement,omitempty"`
	// Upstream are the known upstream issues and pull requests.
	Upstream []string `json:"upstream,omitempty"`
}

// String is "FINDING, VERDICT REQUIREMENT, LINK..." (no link: "no
// upstream issue known").
func (k Known) String() string {
	t := k.Verdict
	if k.Requirement != "" {
		t += " " + k.Requirement
	}
	link := "no upstream issue known"
	if len(k.Upstream) > 0 {
		link = strings.Join(k.Upstream, ", ")
	}
	return k.Finding + ", " + t + ", " + link
}

// Regression says whether c is a failure no kept finding shows, when the
// results were matched with kept findings (knownFrom set) and keep c's
// typed differences (results written before they were kept are not
// matched: Unmatched).
func (c CaseResult) Regression(knownFrom string) bool {
	return knownFrom != "" && c.Outcome == Failed && len(c.Known) == 0 && len(c.Diff) > 0
}

// Unmatched is what a failure of results that keep no typed differences
// (written before they were kept) says instead of known or regression.
const Unmatched = "not matched with the kept findings: these results keep no typed differences"

// KnownVerdict is Verdict for a case: empty but for a failure, Unmatched
// for a failure without typed differences.
func (c CaseResult) KnownVerdict(knownFrom string) string {
	if knownFrom == "" || c.Outcome != Failed {
		return ""
	}
	if len(c.Known) == 0 && len(c.Diff) == 0 {
		return Unmatched
	}
	return Verdict(knownFrom, c.Known)
}

// Verdict is how a failure reads against the kept findings: "known: ..."
// for each kept finding it shows, "regression: ..." for one none shows,
// empty when the results were not matched (knownFrom empty).
func Verdict(knownFrom string, known []Known) string {
	if knownFrom == "" {
		return ""
	}
	if len(known) == 0 {
		return "regression: no kept finding in " + knownFrom + " shows these differences"
	}
	var parts []string
	for _, k := range known {
		parts = append(parts, "known: "+k.String())
	}
	return strings.Join(parts, "; ")
}

// Campaign is a run of random cases.
type Campaign struct {
	Kind      string `json:"kind"`
	Profile   string `json:"profile"`
	Seed      uint64 `json:"seed"`
	Checks    int    `json:"checks"`
	Steps     int    `json:"steps,omitempty"`
	Disagreed int    `json:"disagreed"`
	// Replay is the command that repeats the campaign.
	Replay   string            `json:"replay"`
	Findings []CampaignFinding `json:"findings"`
}

// CampaignFinding is a disagreement shrunk for one kind of difference.
type CampaignFinding struct {
	// Kind is the kind of difference, and whether it was first seen
	// after a step; written KIND or KIND-after-step.
	Kind        compare.Found `json:"kind"`
	Case        int           `json:"case"`
	Differences []string      `json:"differences"`
	// Scenario is the shrunk case's YAML; File where it was written.
	Scenario string   `json:"scenario"`
	Profiles []string `json:"profiles,omitempty"`
	File     string   `json:"file,omitempty"`
	// Known are the kept findings of the same kind of difference.
	Known []Known `json:"known,omitempty"`
}

// Counts counts the cases by outcome.
func (r *Results) Counts() (passed, failed, skipped, errored int) {
	for _, c := range r.Cases {
		switch c.Outcome {
		case Passed:
			passed++
		case Failed:
			failed++
		case Skipped:
			skipped++
		default:
			errored++
		}
	}
	return
}

// Sort puts cases in name order and campaigns in kind order: the order of
// every report, whatever the order the cases ran in.
func (r *Results) Sort() {
	slices.SortStableFunc(r.Cases, func(a, b CaseResult) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(a.File, b.File)
	})
	slices.SortStableFunc(r.Campaigns, func(a, b Campaign) int {
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return a.Steps - b.Steps
	})
	slices.Sort(r.Shards)
}

// WriteResults writes r as indented JSON. A file gepcheck could not read
// back (more than MaxResultsBytes once indented) is not written.
func WriteResults(file string, r *Results) error {
	r.Sort()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return err
	}
	if b.Len() > MaxResultsBytes {
		return fmt.Errorf("%s: the results would be %d bytes, more than the %d a results file may have (docs/limits.md)", file, b.Len(), MaxResultsBytes)
	}
	return os.WriteFile(file, b.Bytes(), 0o644)
}

// MaxResultsBytes bounds a results file read or written (docs/limits.md).
const MaxResultsBytes = 256 << 20

// ReadResults reads a results file strictly: a regular file of at most
// MaxResultsBytes (load.ReadRegular), one JSON object and nothing after
// it, no unknown field, and values Validate accepts. Errors name the
// file.
func ReadResults(file string) (*Results, error) {
	data, err := load.ReadRegular(file, MaxResultsBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	r, err := ParseResults(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return r, nil
}

// ParseResults decodes and validates the bytes of a results file.
func ParseResults(data []byte) (*Results, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Results
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a results file: %w", err)
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		return nil, fmt.Errorf("not a results file: %d bytes after its JSON object", len(rest))
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return &r, nil
}

// ResultsAPIVersion is the apiVersion of a results file.
const ResultsAPIVersion = "gepcheck.dev/v1alpha1"

// Validate says what in r no run of gepcheck writes: the kind and
// version, names that become paths (implementation name and version,
// mode, channel: each a DNS-1123 label or a version string, outpath.Elem),
// a known semantics, date and shards, every outcome one of the four, and
// counts that are not negative (a campaign's disagreements at most its
// checks).
func (r *Results) Validate() error {
	if r.APIVersion != ResultsAPIVersion || r.Kind != ResultsKind {
		return fmt.Errorf("apiVersion %q, kind %q: want %s, %s", r.APIVersion, r.Kind, ResultsAPIVersion, ResultsKind)
	}
	var p problems
	r.validateHead(&p)
	for i := range r.Cases {
		r.Cases[i].validate(&p, fmt.Sprintf("cases[%d]", i))
	}
	for i := range r.Campaigns {
		r.Campaigns[i].validate(&p, fmt.Sprintf("campaigns[%d]", i))
	}
	errs := []error(p)
	if len(errs) > 10 {
		errs = append(errs[:10], fmt.Errorf("and %d more", len(errs)-10))
	}
	return errors.Join(errs...)
}

// problems are what Validate finds, each naming its field.
type problems []error

func (p *problems) bad(field, format string, args ...any) {
	*p = append(*p, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
}

// elem checks v, a name that becomes a path (outpath.Elem).
func (p *problems) elem(field, v string) {
	if err := outpath.Elem(v); err != nil {
		p.bad(field, "%v", err)
	}
}

// validateHead is Validate of r's fields but its cases and campaigns.
func (r *Results) validateHead(p *problems) {
	p.elem("implementation.name", r.Implementation.Name)
	p.elem("implementation.version", r.Implementation.Version)
	p.elem("mode", r.Mode)
	if r.Mode != "offline" && r.Mode != "cluster" && !strings.HasPrefix(r.Mode, "cluster-") {
		p.bad("mode", "%q: want offline, cluster or cluster-PROVIDER", r.Mode)
	}
	if r.GatewayAPIChannel != "standard" && r.GatewayAPIChannel != "experimental" {
		p.bad("gatewayAPIChannel", "%q: want standard or experimental", r.GatewayAPIChannel)
	}
	p.elem("gatewayAPIVersion", r.GatewayAPIVersion)
	if _, err := engine.ParseSemantics(r.Semantics); err != nil {
		p.bad("semantics", "%v", err)
	}
	if r.StatusVocabulary != "" {
		if _, err := engine.ParseVocabulary(r.StatusVocabulary); err != nil {
			p.bad("statusVocabulary", "%v", err)
		}
	}
	if r.AncestorEntries != "" {
		if _, err := simulator.ParseAncestorEntries(r.AncestorEntries); err != nil {
			p.bad("ancestorEntries", "%v", err)
		}
	}
	if _, err := time.Parse(time.RFC3339, r.Date); err != nil {
		p.bad("date", "%q is not an RFC 3339 time", r.Date)
	}
	for i, s := range r.Shards {
		if _, err := suite.ParseShard(s); err != nil || s == "" {
			p.bad(fmt.Sprintf("shards[%d]", i), "%q: want i/N with 1 ≤ i ≤ N ≤ %d", s, suite.MaxShards)
		}
	}
}

// validate is Validate of case c, at field f.
func (c *CaseResult) validate(p *problems, f string) {
	switch c.Outcome {
	case Passed, Failed, Skipped, Errored:
	default:
		p.bad(f+".outcome", "%q: want one of %s, %s, %s, %s", c.Outcome, Passed, Failed, Skipped, Errored)
	}
	if c.Name == "" {
		p.bad(f+".name", "is empty")
	}
	// The typed differences are the printed ones as values.
	if c.Diff != nil && len(c.Diff) != len(c.Differences) {
		p.bad(f+".diff", "%d differences, %d printed", len(c.Diff), len(c.Differences))
	}
}

// validate is Validate of campaign c, at field f.
func (c *Campaign) validate(p *problems, f string) {
	switch {
	case c.Checks < 0:
		p.bad(f+".checks", "%d is negative", c.Checks)
	case c.Disagreed < 0 || c.Disagreed > c.Checks:
		p.bad(f+".disagreed", "%d: want 0 to checks (%d)", c.Disagreed, c.Checks)
	}
	if c.Steps < 0 {
		p.bad(f+".steps", "%d is negative", c.Steps)
	}
	for j, fd := range c.Findings {
		if fd.Case < 0 {
			p.bad(fmt.Sprintf("%s.findings[%d].case", f, j), "%d is negative", fd.Case)
		}
	}
}

// Merge merges the results of shards of one run: the same implementation,
// mode and semantics; cases and campaigns are put together (a case in two
// shards is an error: shards do not overlap), the date is the latest.
func Merge(parts []*Results) (*Results, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("nothing to merge")
	}
	out := *parts[0]
	out.Cases, out.Campaigns, out.Shards = nil, nil, nil
	seen := map[string]string{}
	for _, p := range parts {
		if p.Implementation.Name != out.Implementation.Name || p.Implementation.Version != out.Implementation.Version || p.Mode != out.Mode || p.Semantics != out.Semantics || p.StatusVocabularyRead() != out.StatusVocabularyRead() || p.AncestorEntries != out.AncestorEntries {
			return nil, fmt.Errorf("cannot merge results of %s %s (%s, %s, %s) with %s %s (%s, %s, %s)",
				p.Implementation.Name, p.Implementation.Version, p.Mode, p.Semantics, p.StatusVocabularyRead(), out.Implementation.Name, out.Implementation.Version, out.Mode, out.Semantics, out.StatusVocabularyRead())
		}
		for _, c := range p.Cases {
			k := c.File + "\x00" + c.Name
			if prev, dup := seen[k]; dup {
				return nil, fmt.Errorf("case %s is in shards %s and %s: shards must not overlap", c.Name, prev, strings.Join(p.Shards, ","))
			}
			seen[k] = strings.Join(p.Shards, ",")
			out.Cases = append(out.Cases, c)
		}
		out.Campaigns = append(out.Campaigns, p.Campaigns...)
		out.Shards = append(out.Shards, p.Shards...)
		if p.Date > out.Date {
			out.Date = p.Date
		}
	}
	out.Campaigns = mergeCampaigns(out.Campaigns)
	out.Sort()
	return &out, nil
}

// Combine adds next to prev, two runs of the same implementation, version,
// mode and reading (else next alone): next's cases replace prev's when
// next has any, and next's campaigns replace prev's of the same kind and
// steps.
func Combine(prev, next *Results) *Results {
	if prev.Implementation.Name != next.Implementation.Name || prev.Implementation.Version != next.Implementation.Version ||
		prev.Mode != next.Mode || prev.Semantics != next.Semantics || prev.StatusVocabularyRead() != next.StatusVocabularyRead() ||
		prev.AncestorEntries != next.AncestorEntries {
		return next
	}
	out := *next
	if len(next.Cases) == 0 {
		out.Cases = prev.Cases
	}
	out.Campaigns = slices.Clone(next.Campaigns)
	for _, c := range prev.Campaigns {
		if !slices.ContainsFunc(next.Campaigns, func(n Campaign) bool { return n.Kind == c.Kind && n.Steps == c.Steps }) {
			out.Campaigns = append(out.Campaigns, c)
		}
	}
	out.Sort()
	return &out
}

// mergeCampaigns merges the shards of one campaign (same kind, profile,
// seed and steps): checks and disagreements add up, and of the findings
// the first of each kind of difference, by case, is kept, as an
// unsharded campaign keeps the first.
func mergeCampaigns(cs []Campaign) []Campaign {
	var out []Campaign
	for _, c := range cs {
		i := slices.IndexFunc(out, func(o Campaign) bool {
			return o.Kind == c.Kind && o.Profile == c.Profile && o.Seed == c.Seed && o.Steps == c.Steps
		})
		if i < 0 {
			out = append(out, c)
			continue
		}
		out[i].Checks += c.Checks
		out[i].Disagreed += c.Disagreed
		out[i].Findings = append(out[i].Findings, c.Findings...)
	}
	for i := range out {
		fs := out[i].Findings
		slices.SortStableFunc(fs, func(a, b CampaignFinding) int { return a.Case - b.Case })
		var kept []CampaignFinding
		for _, f := range fs {
			if !slices.ContainsFunc(kept, func(k CampaignFinding) bool { return k.Kind == f.Kind }) {
				kept = append(kept, f)
			}
		}
		out[i].Findings = kept
	}
	return out
}

// StatusVocabularyRead is the status vocabulary r's comparisons were made
// in: StatusVocabulary, or the draft's for results written before it was
// recorded (the reference wrote only the draft's conditions then).
func (r *Results) StatusVocabularyRead() string {
	if r.StatusVocabulary == "" {
		return string(engine.VocabularyDraft)
	}
	return r.StatusVocabulary
}
