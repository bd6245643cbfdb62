package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/findings"
)

// markKnown matches r's failures with the kept findings in dir
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
//   - a random campaign's finding is known when its kind is the kind of a
//     kept finding of the campaign's profile (triageKinds).
//
// A directory that does not exist leaves r unmatched (KnownFrom empty);
// one that does not read is an error.
func markKnown(r *report.Results, dir string) error {
	if dir == "" {
		return nil
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	kept, err := readFindings([]string{dir})
	if err != nil {
		return err
	}
	impl := r.Implementation.Name
	r.KnownFrom = filepath.ToSlash(dir)
	known := func(f findingOut) report.Known {
		return report.Known{Finding: f.File, Verdict: string(f.Triage.Verdict), Requirement: f.Triage.Requirement, Upstream: f.Triage.Upstream}
	}
	byPath := func(file string) (findingOut, bool) {
		for _, f := range kept {
			if strings.HasPrefix(f.File, impl+"/") && filepath.Clean(f.Path) == filepath.Clean(file) {
				return f, true
			}
		}
		return findingOut{}, false
	}
	for i := range r.Cases {
		c := &r.Cases[i]
		c.Known = nil
		if c.Outcome != report.Failed {
			continue
		}
		if f, ok := byPath(c.File); ok {
			if _, err := findings.Verify(f.Path, c.Diff); err == nil {
				c.Known = []report.Known{known(f)}
			}
			continue
		}
		kinds := compare.Kinds(c.Diff)
		if len(kinds) == 0 {
			continue
		}
		var ks []report.Known
		for _, kind := range kinds {
			i := slices.IndexFunc(kept, func(f findingOut) bool {
				return strings.HasPrefix(f.File, impl+"/") && f.Kind == kind && f.Implementation != "" &&
					(len(c.Profiles) == 0 || slices.Contains(c.Profiles, strings.TrimPrefix(f.Implementation, "cluster-")))
			})
			if i < 0 {
				ks = nil
				break
			}
			if k := known(kept[i]); !slices.ContainsFunc(ks, func(o report.Known) bool { return o.Finding == k.Finding }) {
				ks = append(ks, k)
			}
		}
		c.Known = ks
	}
	for i := range r.Campaigns {
		c := &r.Campaigns[i]
		for j := range c.Findings {
			f := &c.Findings[j]
			f.Known = nil
			for _, base := range []string{f.Kind, strings.TrimSuffix(f.Kind, "-after-step")} {
				k := slices.IndexFunc(kept, func(o findingOut) bool {
					return strings.HasPrefix(o.File, impl+"/") && o.Kind == base && strings.TrimPrefix(o.Implementation, "cluster-") == c.Profile
				})
				if k >= 0 {
					f.Known = []report.Known{known(kept[k])}
					break
				}
			}
		}
	}
	return nil
}
