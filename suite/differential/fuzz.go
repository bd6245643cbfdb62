package differential

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Run is a batched differential run.
type Run struct {
	Observer observe.Observer
	// Profile the reference reads the scenarios with; Generate draws
	// scenario i in a namespace of its own.
	Profile  string
	Generate func(i int) *generators.Scenario
	Checks   int
	// Batch scenarios go to the implementation at once (100 when zero).
	Batch int
	// Replay is the command that repeats the run; ProfileSource says whose
	// description of the policy kind the profile follows. Both go into
	// findings files.
	Replay, ProfileSource string
	// Write writes a finding, shrunk for one kind of difference, and
	// returns where (reports.WriteFinding); nil: findings are not written.
	Write func(r Run, kind string, d Disagreement) (string, error)
	// Declared are the combinations the coverage report expects drawn
	// (FuzzKind.Combinations).
	Declared []string
	// Shard, when set, runs only its part of the Checks cases.
	Shard suite.Shard
}

// Summary is what a Run found.
type Summary struct {
	Checks   int
	Elapsed  time.Duration
	Disagree []Disagreement
	Findings []Finding
	// Extra counts the policy conditions the implementation wrote that
	// GEP-713 does not define, by "Type=Status/Reason".
	Extra map[string]int
	// ExtraVsReference counts, for each of Extra, the reference's Enforced
	// condition (Programmed in merged GEP-713's vocabulary) on the same
	// policy ("Status/Reason", "none"): what the policy's state is where
	// the implementation wrote it (Meaning).
	ExtraVsReference map[string]map[string]int
	// Coverage counts what the scenarios drew (Combinations).
	Coverage *Coverage
}

// Finding is a disagreement shrunk for one kind of difference and written.
type Finding struct {
	Kind  string
	Case  int
	File  string
	Small Disagreement
}

// Fuzz runs r: scenarios in batches; for each kind of difference, the
// first scenario that shows it is shrunk for it and written as a finding
// (so that the findings of shards, merged, are the unsharded run's).
// Progress lines go to log.
func Fuzz(ctx context.Context, r Run, log io.Writer) (*Summary, error) {
	start := time.Now()
	caps := r.Observer.Capabilities()
	sum := &Summary{Checks: r.Checks, Extra: map[string]int{}, ExtraVsReference: map[string]map[string]int{}, Coverage: newCoverage(r.Declared)}
	progress := func(done, disagree int) {
		fmt.Fprintf(log, "  %d/%d scenarios, %d disagree (%s)\n", done, r.Checks, disagree, time.Since(start).Round(time.Second))
	}
	observed := func(r Disagreement) {
		sum.Coverage.add(r.Scenario, len(r.Diff) > 0)
		sum.countExtra(r)
	}
	batch := r.Batch
	if batch == 0 {
		batch = 100
	}
	cases := r.Shard.Indices(r.Checks)
	sum.Checks = len(cases)
	gen := func(k int) *generators.Scenario { return r.Generate(cases[k]) }
	found, err := BatchRun(ctx, r.Observer, r.Profile, gen, len(cases), batch, caps, progress, observed)
	if err != nil {
		return nil, err
	}
	for i := range found {
		found[i].Seed = cases[found[i].Seed]
	}
	sum.Disagree, sum.Elapsed = found, time.Since(start)
	fmt.Fprintf(log, "%d scenarios in %s (%.1f scenarios/s), %d disagree with the reference\n", sum.Checks, sum.Elapsed.Round(time.Millisecond), float64(sum.Checks)/sum.Elapsed.Seconds(), len(found))
	covered := map[string]bool{}
	for _, dis := range found {
		if dis.Got.Error != "" {
			fmt.Fprintf(log, "  case %d: the implementation failed: %s\n", dis.Seed, ref.Printable(dis.Got.Error))
			continue
		}
		for _, kind := range compare.Kinds(dis.Diff) {
			if covered[kind] {
				continue
			}
			small := Shrink(ctx, r.Observer, r.Profile, dis, caps, kind)
			covered[kind] = true
			var file string
			if r.Write != nil {
				if file, err = r.Write(r, kind, small); err != nil {
					return sum, err
				}
			}
			sum.Findings = append(sum.Findings, Finding{Kind: kind, Case: dis.Seed, File: file, Small: small})
			fmt.Fprintf(log, "  finding %s (case %d, shrunk to %d policies): %s\n    %s\n", kind, dis.Seed, len(small.Scenario.Policies), file, strings.Join(compare.Strings(small.Diff), "\n    "))
		}
	}
	return sum, nil
}

// countExtra counts the conditions r's implementation wrote that GEP-713
// does not define as the reference writes them, with the reference's
// Enforced (or, in merged GEP-713's vocabulary, Programmed) condition on
// the same policy. Accepted, Enforced and Programmed are the policy
// conditions of either vocabulary: not extra.
func (s *Summary) countExtra(r Disagreement) {
	enforced := map[string]string{}
	for _, p := range r.Want.Policies {
		for _, c := range p.Conditions {
			if c.Type == "Enforced" || c.Type == "Programmed" {
				enforced[p.Ref] = c.Status + "/" + draftReason[c.Reason]
			}
		}
	}
	for _, p := range r.Got.Policies {
		for _, c := range p.Conditions {
			if c.Type == "Accepted" || c.Type == "Enforced" || c.Type == "Programmed" {
				continue
			}
			k := c.Type + "=" + c.Status + "/" + c.Reason
			s.Extra[k]++
			ref := enforced[p.Ref]
			if ref == "" {
				ref = "none"
			}
			if s.ExtraVsReference[k] == nil {
				s.ExtraVsReference[k] = map[string]int{}
			}
			s.ExtraVsReference[k][ref]++
		}
	}
}

// draftReason is the reason of the reference's Enforced or Programmed
// condition in the draft's words, which Meanings are written in: merged
// GEP-713's Programmed and PartiallyProgrammed are the draft's Enforced and
// PartiallyEnforced (docs/semantics.md, Status vocabularies).
var draftReason = map[string]string{
	"Programmed": "Enforced", "PartiallyProgrammed": "PartiallyEnforced",
	"Enforced": "Enforced", "PartiallyEnforced": "PartiallyEnforced",
	"Overridden": "Overridden", "Unknown": "Unknown",
}

// A Meaning is what GEP-713 says a condition an implementation writes
// means, where it names it (Policy status: "The basic status conditions
// are: Accepted, Enforced, PartiallyEnforced, Overridden"), and the
// reference's Enforced conditions under which that holds (Programmed in
// merged GEP-713's vocabulary, "Status reporting": PartiallyProgrammed and
// Overridden are its reasons).
type Meaning struct {
	Quote string
	// Holds lists the reference's Enforced (or Programmed) "Status/Reason"
	// that agree.
	Holds []string
}

// Meanings are GEP-713's basic status conditions other than Accepted and
// Enforced, which the reference writes as reasons of Enforced.
var Meanings = map[string]Meaning{
	"PartiallyEnforced": {Quote: "PartiallyEnforced: parts of the policy's spec is guaranteed to be enforced, while other parts are known to have been superseded by other specs", Holds: []string{"True/PartiallyEnforced", "True/PartiallyProgrammed"}},
	"Overridden":        {Quote: "Overridden: the policy's spec is known to have been fully overridden by other specs", Holds: []string{"False/Overridden"}},
}

// Meaning says, for an extra condition k ("Type=Status/Reason") written as
// True, whether GEP-713 defines its type and, if so, how often the
// reference's state of the same policies contradicts it.
func (s *Summary) Meaning(k string) (m Meaning, defined bool, contradicts int) {
	typ, rest, _ := strings.Cut(k, "=")
	m, defined = Meanings[typ]
	if !defined || !strings.HasPrefix(rest, "True/") {
		return m, defined, 0
	}
	for ref, n := range s.ExtraVsReference[k] {
		if !slices.Contains(m.Holds, ref) {
			contradicts += n
		}
	}
	return m, true, contradicts
}

// ExtraConditions lists Extra, sorted.
func (s *Summary) ExtraConditions() []string { return slices.Sorted(maps.Keys(s.Extra)) }
