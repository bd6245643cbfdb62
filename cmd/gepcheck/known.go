package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/sidebyside"
)

// triaged is how the kept findings triage one kind of difference a run
// found: Line says the verdict and file, or that the kind is new.
type triaged struct {
	Kind, Line string
	New        bool
}

// triageKinds says, for each kind of difference a run found against an
// implementation's profile, whether a kept finding in dir (gepcheck
// findings) has the same kind and how it is triaged: the requirement the
// behaviour contradicts, or that it is new and untriaged. A kind seen
// after a change (compare.Found.AfterStep) is matched with the same kind
// at creation too.
//
// Findings are matched by profile (a finding's implementation field) and,
// as several implementations share a profile (Gateway API's
// BackendTLSPolicy), kept in dir/IMPL/ for implementation impl.
func triageKinds(dir, impl, profile string, kinds []compare.Found) ([]triaged, error) {
	known, err := sidebyside.ReadKnown(dir, impl)
	if err != nil {
		return nil, err
	}
	var out []triaged
	for _, kind := range kinds {
		t := triaged{Kind: kind.String(), Line: "new: no kept finding of this kind (verdict untriaged)", New: true}
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
			if f.Kind != t.Kind {
				t.Line += ", as at creation"
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// printKnown prints triageKinds' answer for kinds, nothing when there are
// none or dir does not exist.
func printKnown(w io.Writer, dir, impl, profile string, kinds []compare.Found) {
	if len(kinds) == 0 {
		return
	}
	if _, err := os.Stat(dir); err != nil {
		return
	}
	ts, err := triageKinds(dir, impl, profile, kinds)
	if err != nil {
		fmt.Fprintf(w, "kept findings in %s not read: %v\n", dir, err)
		return
	}
	fmt.Fprintf(w, "triage of the kept finding of each kind (%s; a kind is not always one behaviour: compare the files):\n", dir)
	for _, t := range ts {
		fmt.Fprintf(w, "  %-45s %s\n", t.Kind, t.Line)
	}
}

// failOnNew is fuzz --fail-on-new: a run that compared no case, a case
// the implementation failed on, or a kind of difference no kept finding
// in dir has (written to files[kind]) is a failure (exit 1). It prints
// what it checked.
func failOnNew(w io.Writer, dir, impl, profile string, compared, implFailed int, kinds []compare.Found, files map[string]string) error {
	if compared == 0 {
		return failedError{"--fail-on-new: no case was compared with the reference"}
	}
	ts, err := triageKinds(dir, impl, profile, kinds)
	if err != nil {
		return inputError{fmt.Errorf("--fail-on-new: %w", err)}
	}
	var news []string
	for _, t := range ts {
		if t.New {
			news = append(news, fmt.Sprintf("%s (written to %s)", t.Kind, files[t.Kind]))
		}
	}
	fmt.Fprintf(w, "--fail-on-new: %d cases compared, %d the implementation failed on; %d kinds of difference, %d of them without a kept finding in %s\n",
		compared, implFailed, len(ts), len(news), filepath.Join(dir, impl))
	var problems []string
	if implFailed > 0 {
		problems = append(problems, fmt.Sprintf("the implementation failed on %d case(s)", implFailed))
	}
	if len(news) > 0 {
		problems = append(problems, fmt.Sprintf("%d new kind(s) of difference, not kept in %s: %s; triage each (gepcheck findings, spec.triage) and keep it there",
			len(news), filepath.Join(dir, impl), strings.Join(news, ", ")))
	}
	if len(problems) > 0 {
		return failedError{"--fail-on-new: " + strings.Join(problems, "; ")}
	}
	return nil
}
