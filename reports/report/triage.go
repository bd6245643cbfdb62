package report

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/findings"
	"github.com/gepcheck/gepcheck/suite/sidebyside"
)

// Triaged is how the kept findings triage one kind of difference a run
// found: Line says the verdict and file, or that the kind is new.
type Triaged struct {
	Kind compare.Found
	Line string
	New  bool
}

// Triage says, for each kind of difference a run found against an
// implementation's profile, whether a kept finding in dir (gepcheck
// findings) has the same kind and how it is triaged: the requirement the
// behaviour contradicts, or that it is new and untriaged. A kind seen
// after a change (compare.Found.AfterStep) is matched with the same kind
// at creation too.
//
// Findings are matched by profile (a finding's implementation field) and,
// as several implementations share a profile (Gateway API's
// BackendTLSPolicy), kept in dir/IMPL/ for implementation impl.
func Triage(dir, impl, profile string, kinds []compare.Found) ([]Triaged, error) {
	known, err := sidebyside.ReadKnown(dir, impl)
	if err != nil {
		return nil, err
	}
	var out []Triaged
	for _, kind := range kinds {
		t := Triaged{Kind: kind, Line: "new: no kept finding of this kind (verdict untriaged)", New: true}
		if f, ok := known.Name(profile, []string{kind.String(), kind.Kind}); ok {
			req := f.Triage.Requirement
			if req == "" {
				req = "-"
			}
			file := f.File
			if rel, err := filepath.Rel(dir, filepath.FromSlash(f.File)); err == nil {
				file = filepath.ToSlash(rel)
			}
			t.Line, t.New = fmt.Sprintf("%s %s (%s)", f.Triage.Verdict, req, file), false
			if f.Kind != kind.String() {
				t.Line += ", as at creation"
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// PrintTriage prints Triage's answer for kinds, nothing when there are
// none or dir does not exist.
func PrintTriage(w io.Writer, dir, impl, profile string, kinds []compare.Found) {
	(&Kinds{Dir: dir, Impl: impl, Profile: profile, Found: kinds}).Print(w)
}

// Kinds are the kinds of difference a run of Impl's Profile found, triaged
// against the kept findings in Dir once (Triage) for both what a run
// prints (Print) and fuzz --fail-on-new's verdict (New).
type Kinds struct {
	Dir, Impl, Profile string
	Found              []compare.Found

	triaged []Triaged
	err     error
	read    bool
}

// triage is Triage's answer, read the first time it is asked for.
func (k *Kinds) triage() ([]Triaged, error) {
	if !k.read {
		k.triaged, k.err = Triage(k.Dir, k.Impl, k.Profile, k.Found)
		k.read = true
	}
	return k.triaged, k.err
}

// Print prints the triage, nothing when no kind was found or Dir does not
// exist.
func (k *Kinds) Print(w io.Writer) {
	if len(k.Found) == 0 {
		return
	}
	if _, err := os.Stat(k.Dir); err != nil {
		return
	}
	ts, err := k.triage()
	if err != nil {
		fmt.Fprintf(w, "kept findings in %s not read: %v\n", k.Dir, err)
		return
	}
	fmt.Fprintf(w, "triage of the kept finding of each kind (%s; a kind is not always one behaviour: compare the files):\n", k.Dir)
	for _, t := range ts {
		fmt.Fprintf(w, "  %-45s %s\n", t.Kind, t.Line)
	}
}

// New is fuzz --fail-on-new: a run that compared no case, a case the
// implementation failed on, or a kind of difference no kept finding in
// Dir has (written to files[kind]) is a failure, which it returns (empty:
// none). It prints what it checked. An error is kept findings that do
// not read.
func (k *Kinds) New(w io.Writer, compared, implFailed int, files map[string]string) (failure string, err error) {
	if compared == 0 {
		return "no case was compared with the reference", nil
	}
	ts, err := k.triage()
	if err != nil {
		return "", err
	}
	var news []string
	for _, t := range ts {
		if t.New {
			news = append(news, fmt.Sprintf("%s (written to %s)", t.Kind, files[t.Kind.String()]))
		}
	}
	fmt.Fprintf(w, "--fail-on-new: %d cases compared, %d the implementation failed on; %d kinds of difference, %d of them without a kept finding in %s\n",
		compared, implFailed, len(ts), len(news), filepath.Join(k.Dir, k.Impl))
	var problems []string
	if implFailed > 0 {
		problems = append(problems, fmt.Sprintf("the implementation failed on %d case(s)", implFailed))
	}
	if len(news) > 0 {
		problems = append(problems, fmt.Sprintf("%d new kind(s) of difference, not kept in %s: %s; triage each (gepcheck findings, spec.triage) and keep it there",
			len(news), filepath.Join(k.Dir, k.Impl), strings.Join(news, ", ")))
	}
	return strings.Join(problems, "; "), nil
}

// MarkKnown matches r's failures with the kept findings in dir
// (scenarios/findings), so that a report tells a known finding from a
// regression (docs/reports.md, Known findings and regressions):
//
//   - a failed case whose file is a kept finding of the implementation
//     (dir/IMPL/...) is that finding when it shows exactly the
//     differences the finding records (findings.Verify, the check of
//     gepcheck findings verify); one that shows others is a regression;
//   - any other failed case is known when each kind of difference it
//     shows (compare.Kinds) is the kind of a kept finding of the
//     implementation for one of the case's profiles;
//   - a random campaign's finding is known when its kind, or the same
//     kind at creation for one after a step, is the kind of a kept
//     finding of the campaign's profile (Triage).
//
// A directory that does not exist leaves r unmatched (KnownFrom empty);
// one that does not read is an error.
func MarkKnown(r *Results, dir string) error {
	if dir == "" {
		return nil
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	kept, err := findings.List([]string{dir})
	if err != nil {
		return err
	}
	impl := r.Implementation.Name
	r.KnownFrom = filepath.ToSlash(dir)
	var own []findings.Listed
	for _, f := range kept {
		if strings.HasPrefix(f.File, impl+"/") {
			own = append(own, f)
		}
	}
	for i := range r.Cases {
		markCase(&r.Cases[i], own)
	}
	for i := range r.Campaigns {
		c := &r.Campaigns[i]
		for j := range c.Findings {
			f := &c.Findings[j]
			f.Known = nil
			for _, kind := range []string{f.Kind.String(), f.Kind.Kind} {
				k := slices.IndexFunc(own, func(o findings.Listed) bool {
					return o.Kind == kind && o.Profile == c.Profile
				})
				if k >= 0 {
					f.Known = []Known{knownOf(own[k])}
					break
				}
			}
		}
	}
	return nil
}

// markCase is MarkKnown for one case, own the implementation's kept
// findings.
func markCase(c *CaseResult, own []findings.Listed) {
	c.Known = nil
	if c.Outcome != Failed {
		return
	}
	if i := slices.IndexFunc(own, func(f findings.Listed) bool { return filepath.Clean(f.Path) == filepath.Clean(c.File) }); i >= 0 {
		if _, err := findings.Verify(own[i].Path, c.Diff); err == nil {
			c.Known = []Known{knownOf(own[i])}
		}
		return
	}
	kinds := compare.Kinds(c.Diff)
	if len(kinds) == 0 {
		return
	}
	var ks []Known
	for _, kind := range kinds {
		i := slices.IndexFunc(own, func(f findings.Listed) bool {
			return f.Kind == kind && f.Implementation != "" &&
				(len(c.Profiles) == 0 || slices.Contains(c.Profiles, f.Profile))
		})
		if i < 0 {
			return
		}
		if k := knownOf(own[i]); !slices.ContainsFunc(ks, func(o Known) bool { return o.Finding == k.Finding }) {
			ks = append(ks, k)
		}
	}
	c.Known = ks
}

// knownOf is a kept finding as a report names it.
func knownOf(f findings.Listed) Known {
	return Known{Finding: f.File, Verdict: string(f.Triage.Verdict), Requirement: f.Triage.Requirement, Upstream: f.Triage.Upstream}
}
