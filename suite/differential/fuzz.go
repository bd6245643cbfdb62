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
	// Profile the reference reads the cases with; Generate draws case i
	// in a namespace of its own: a scenario, or one with up to Steps
	// changes over time (generators.Cases).
	Profile  string
	Generate func(i int) generators.Case
	Checks   int
	Steps    int
	// Batch cases go to the implementation at once, state by state (100
	// when zero, 50 with steps).
	Batch int
	// Replay is the command that repeats the run; ProfileSource says whose
	// description of the policy kind the profile follows. Both go into
	// findings files.
	Replay, ProfileSource string
	// Write writes a finding, shrunk for one kind of difference, and
	// returns where (report.WriteFinding); nil: findings are not written.
	Write func(r Run, kind compare.Found, d Disagreement) (string, error)
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

// Finding is a disagreement shrunk for one kind of difference and written:
// from how many steps and objects, in how many rounds of how many
// candidates.
type Finding struct {
	Kind                   compare.Found
	Case                   int
	File                   string
	Small                  Disagreement
	StepsFrom, ObjectsFrom int
	Rounds, Tried          int
}

// ImplFailed counts the disagreements on which the implementation failed.
func (s *Summary) ImplFailed() int {
	n := 0
	for _, d := range s.Disagree {
		if d.Got.Error != "" {
			n++
		}
	}
	return n
}

// Fuzz runs r: cases in batches; for each kind of difference, the first
// case that shows it is shrunk for it (Shrink) and written as a finding
// (so that the findings of shards, merged, are the unsharded run's).
// Progress lines go to log.
func Fuzz(ctx context.Context, r Run, log io.Writer) (*Summary, error) {
	start := time.Now()
	sum, err := judgeAll(ctx, r, log, start)
	if err != nil {
		return sum, err
	}
	sum.Elapsed = time.Since(start)
	if r.Steps > 0 {
		fmt.Fprintf(log, "%d cases with steps in %s, %d disagree with the reference\n", sum.Checks, sum.Elapsed.Round(time.Millisecond), len(sum.Disagree))
	} else {
		fmt.Fprintf(log, "%d scenarios in %s (%.1f scenarios/s), %d disagree with the reference\n", sum.Checks, sum.Elapsed.Round(time.Millisecond), float64(sum.Checks)/sum.Elapsed.Seconds(), len(sum.Disagree))
	}
	covered := map[compare.Found]bool{}
	for _, dis := range sum.Disagree {
		if dis.Got.Error != "" {
			fmt.Fprintf(log, "  case %d: the implementation failed: %s\n", dis.Seed, ref.Printable(dis.Got.Error))
			continue
		}
		for _, kind := range dis.Kinds() {
			if covered[kind] {
				continue
			}
			f := Shrink(ctx, r, dis, kind)
			covered[kind] = true
			if r.Write != nil {
				if f.File, err = r.Write(r, kind, f.Small); err != nil {
					return sum, err
				}
			}
			sum.Findings = append(sum.Findings, f)
			logFinding(log, r, dis, f)
		}
	}
	return sum, nil
}

// judgeAll judges r's cases in batches, counting what they drew and the
// conditions the implementation wrote, and lists those that disagree.
func judgeAll(ctx context.Context, r Run, log io.Writer, start time.Time) (*Summary, error) {
	caps := r.Observer.Capabilities()
	batch, noun := r.Batch, "scenarios"
	if batch == 0 {
		batch = 100
		if r.Steps > 0 {
			batch = 50
		}
	}
	if r.Steps > 0 {
		noun = "cases"
	}
	all := r.Shard.Indices(r.Checks)
	sum := &Summary{Checks: len(all), Extra: map[string]int{}, ExtraVsReference: map[string]map[string]int{}, Coverage: newCoverage(r.Declared)}
	for first := 0; first < len(all); first += batch {
		var cases []generators.Case
		for _, i := range all[first:min(len(all), first+batch)] {
			cases = append(cases, r.Generate(i))
		}
		res, err := judge(ctx, r.Observer, r.Profile, cases, caps)
		if err != nil {
			return sum, err
		}
		for k, d := range res {
			if d.Case.Scenario != nil {
				sum.Coverage.add(d.Case.Scenario, d.disagrees())
			}
			sum.countExtra(d)
			if d.disagrees() {
				d.Seed = all[first+k]
				sum.Disagree = append(sum.Disagree, d)
			}
		}
		fmt.Fprintf(log, "  %d/%d %s, %d disagree (%s)\n", min(len(all), first+batch), len(all), noun, len(sum.Disagree), time.Since(start).Round(time.Second))
	}
	return sum, nil
}

// logFinding prints finding f of dis, found by r.
func logFinding(log io.Writer, r Run, dis Disagreement, f Finding) {
	diffs := strings.Join(compare.Strings(f.Small.Diff), "\n    ")
	if r.Steps > 0 {
		fmt.Fprintf(log, "  finding %s (case %d, at %s; shrunk in %d rounds of %d candidates from %d steps and %d objects to %d and %d): %s\n    %s\n",
			f.Kind, dis.Seed, f.Small.Label(), f.Rounds, f.Tried, f.StepsFrom, f.ObjectsFrom, len(f.Small.Case.Steps), f.Small.Case.Objects(), f.File, diffs)
		return
	}
	fmt.Fprintf(log, "  finding %s (case %d, shrunk to %d policies): %s\n    %s\n", f.Kind, dis.Seed, f.Small.Case.Policies(), f.File, diffs)
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
