package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/reports"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/findings"
)

// newFindingsVerify: gepcheck findings verify, and with update=true
// gepcheck findings update, over the results of a run that included the
// kept findings (docs/properties.md, Kept findings).
func newFindingsVerify(stdout io.Writer, update bool) *cobra.Command {
	var results string
	use, short, long := "verify --results FILE FILE|DIR...",
		"Check that kept findings show exactly the differences they record, in a run's results",
		`verify reads the results of a run (gepcheck run --report-dir writes
results-*.json) that included kept findings of an implementation, and
checks that each finding given (directories walked; every one must be a
case of the run, judged: not skipped, not an error) shows in that run exactly the differences it
records in spec.differences: the same kind, path, fields, object,
condition, want and got (the reference's messages are not compared). A
finding that changed
prints the recorded and the new differences; gepcheck findings update
records the new ones, deliberately.

Exit 0 when every finding reproduces, 1 when one changed, 2 when a
finding is not in the results or its case was not judged, is not a
finding of an implementation, or no finding is given.`
	if update {
		use, short, long = "update --results FILE FILE|DIR...",
			"Record in kept findings the differences a run's results show on them",
			`update rewrites the spec.differences of each kept finding given with
the differences the run's results show on it (its other fields, the
comment lines above and the scenario after stay as they are). Review
the change (git diff) as any other: a finding's differences are evidence.`
	}
	cmd := &cobra.Command{
		Use: use, Short: short, Long: long,
		RunE: func(cmd *cobra.Command, args []string) error {
			if results == "" {
				return inputError{errors.New("--results: the results file of a run that included the findings (gepcheck run --report-dir)")}
			}
			if len(args) == 0 {
				return inputError{fmt.Errorf("name the findings: gepcheck findings %s --results FILE FILE|DIR...", cmd.Name())}
			}
			r, err := reports.ReadResults(results)
			if err != nil {
				return inputError{err}
			}
			files, err := readFindings(args)
			if err != nil {
				return inputError{err}
			}
			cases, err := casesByFile(r)
			if err != nil {
				return inputError{fmt.Errorf("%s: %w", results, err)}
			}
			return verifyFindings(stdout, files, cases, results, update)
		},
	}
	cmd.Flags().StringVar(&results, "results", "", "results file of a run that included the findings (results-*.json)")
	return cmd
}

// casesByFile indexes the cases of r by their file's absolute path; a
// file with more than one case (steps run offline) is left out: kept
// findings of implementations have no steps.
func casesByFile(r *reports.Results) (map[string]*reports.CaseResult, error) {
	out := map[string]*reports.CaseResult{}
	count := map[string]int{}
	for i := range r.Cases {
		abs, err := filepath.Abs(r.Cases[i].File)
		if err != nil {
			return nil, err
		}
		out[abs] = &r.Cases[i]
		count[abs]++
	}
	for f, n := range count {
		if n > 1 {
			delete(out, f)
		}
	}
	return out, nil
}

// verifyFindings compares (or, with update, records) each finding with
// its case; the summary counts the findings and differences compared.
// Every finding is matched to a judged case before anything is written.
func verifyFindings(w io.Writer, files []findingOut, cases map[string]*reports.CaseResult, results string, update bool) error {
	var missing, changed []string
	type pair struct {
		f   findingOut
		now []compare.Difference
	}
	var pairs []pair
	for _, f := range files {
		if f.Implementation == "" {
			return inputError{fmt.Errorf("%s: a finding of a property, not of an implementation: gepcheck check verifies it", f.Path)}
		}
		abs, err := filepath.Abs(f.Path)
		if err != nil {
			return err
		}
		c := cases[abs]
		switch {
		case c == nil:
			missing = append(missing, f.Path)
			continue
		case c.Outcome == reports.Skipped || c.Outcome == reports.Errored:
			return inputError{fmt.Errorf("%s: the run did not judge it (%s: %s) in %s", f.Path, c.Outcome, c.Reason, results)}
		case len(c.Differences) > 0 && len(c.Diff) == 0:
			return inputError{fmt.Errorf("%s: its case in %s has no typed differences (diff): results written before gepcheck recorded them; run it again", f.Path, results)}
		}
		pairs = append(pairs, pair{f, c.Diff})
	}
	if len(missing) > 0 {
		return inputError{fmt.Errorf("%d finding(s) not run in %s (each must be a case of the run, with no steps): %s", len(missing), results, strings.Join(missing, ", "))}
	}
	if len(pairs) == 0 {
		return inputError{errors.New("no finding compared")}
	}
	compared, diffs, rewritten := 0, 0, 0
	for _, p := range pairs {
		if update {
			did, err := findings.Update(p.f.Path, p.now)
			var we *findings.WriteError
			switch {
			case errors.As(err, &we):
				return err // the environment's (exit 3)
			case err != nil:
				return inputError{err}
			}
			if did {
				rewritten++
				fmt.Fprintf(w, "updated     %s (%d differences)\n", ref.Printable(p.f.Path), len(p.now))
			}
			compared++
			continue
		}
		n, err := findings.Verify(p.f.Path, p.now)
		var re *suite.ReproduceError
		switch {
		case errors.As(err, &re):
			changed = append(changed, p.f.Path)
			fmt.Fprintf(w, "CHANGED     %s: %s\n", ref.Printable(p.f.Path), strings.ReplaceAll(err.Error(), "\n", "\n            "))
		case err != nil:
			return inputError{err}
		default:
			fmt.Fprintf(w, "reproduces  %s (%d differences)\n", ref.Printable(p.f.Path), n)
		}
		compared++
		diffs += n
	}
	if update {
		fmt.Fprintf(w, "findings update: %d of %d findings rewritten from %s\n", rewritten, compared, ref.Printable(results))
		return nil
	}
	fmt.Fprintf(w, "findings verify: %d of %d findings reproduce exactly (%d recorded differences compared) in %s\n", compared-len(changed), compared, diffs, ref.Printable(results))
	if len(changed) > 0 {
		return failedError{fmt.Sprintf("%d kept finding(s) changed: %s", len(changed), strings.Join(changed, ", "))}
	}
	return nil
}
