package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// printKnown says, for each kind of difference a run found against an
// implementation's profile, whether a kept finding in dir (gepcheck
// findings) has the same kind and how it is triaged: the requirement the
// behaviour contradicts, or that it is new and untriaged. A kind seen
// after a change (KIND-after-step) is matched with the same kind at
// creation too. Nothing is printed when dir does not exist.
//
// Findings are matched by profile (a finding's implementation field) and,
// as several implementations share a profile (Gateway API's
// BackendTLSPolicy), kept in dir/IMPL/ for implementation impl.
func printKnown(w io.Writer, dir, impl, profile string, kinds []string) {
	if len(kinds) == 0 {
		return
	}
	if _, err := os.Stat(dir); err != nil {
		return
	}
	known, err := readFindings([]string{dir})
	if err != nil {
		fmt.Fprintf(w, "kept findings in %s not read: %v\n", dir, err)
		return
	}
	fmt.Fprintf(w, "triage of the kept finding of each kind (%s; a kind is not always one behaviour: compare the files):\n", dir)
	for _, kind := range kinds {
		line := "new: no kept finding of this kind (verdict untriaged)"
		for _, base := range []string{kind, strings.TrimSuffix(kind, "-after-step")} {
			for _, f := range known {
				// A finding kept from a cluster run names its profile
				// "cluster-PROFILE" (run --cluster --random).
				if f.Implementation != profile && f.Implementation != "cluster-"+profile || f.Kind != base || !strings.HasPrefix(f.File, impl+"/") {
					continue
				}
				t := f.Triage
				req := t.Requirement
				if req == "" {
					req = "-"
				}
				line = fmt.Sprintf("%s %s (%s)", t.Verdict, req, f.File)
				if base != kind {
					line += ", as at creation"
				}
				break
			}
			if !strings.HasPrefix(line, "new") {
				break
			}
		}
		fmt.Fprintf(w, "  %-45s %s\n", kind, line)
	}
}
