package report

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/findings"
)

// Kept is a kept finding gepcheck findings verify and update are given:
// its file and the implementation it is a finding of ("" for a property's).
type Kept struct{ Path, Implementation string }

// KeptError is an error of the findings or the results given (exit 2),
// not of writing a finding (findings.WriteError) nor a finding that
// changed.
type KeptError struct{ Err error }

func (e KeptError) Error() string { return e.Err.Error() }
func (e KeptError) Unwrap() error { return e.Err }

// VerifyKept compares (or, with update, records) each kept finding with
// its case in r, the results file named results, and prints a line for
// each and the summary (docs/properties.md, Kept findings); changed are
// the findings that do not reproduce. Every finding is matched to a
// judged case before anything is written.
func VerifyKept(w io.Writer, kept []Kept, r *Results, results string, update bool) (changed []string, err error) {
	cases, err := casesByFile(r)
	if err != nil {
		return nil, KeptError{fmt.Errorf("%s: %w", results, err)}
	}
	var pairs []keptPair
	var missing []string
	for _, f := range kept {
		if f.Implementation == "" {
			return nil, KeptError{fmt.Errorf("%s: a finding of a property, not of an implementation: gepcheck check verifies it", f.Path)}
		}
		abs, err := filepath.Abs(f.Path)
		if err != nil {
			return nil, err
		}
		c := cases[abs]
		switch {
		case c == nil:
			missing = append(missing, f.Path)
			continue
		case c.Outcome == Skipped || c.Outcome == Errored:
			return nil, KeptError{fmt.Errorf("%s: the run did not judge it (%s: %s) in %s", f.Path, c.Outcome, c.Reason, results)}
		case len(c.Differences) > 0 && len(c.Diff) == 0:
			return nil, KeptError{fmt.Errorf("%s: its case in %s has no typed differences (diff): results written before gepcheck recorded them; run it again", f.Path, results)}
		}
		pairs = append(pairs, keptPair{f.Path, c.Diff})
	}
	if len(missing) > 0 {
		return nil, KeptError{fmt.Errorf("%d finding(s) not run in %s (each must be a case of the run, with no steps): %s", len(missing), results, strings.Join(missing, ", "))}
	}
	if len(pairs) == 0 {
		return nil, KeptError{errors.New("no finding compared")}
	}
	if update {
		return nil, updateKept(w, pairs, results)
	}
	diffs := 0
	for _, p := range pairs {
		n, err := findings.Verify(p.path, p.now)
		var re *suite.ReproduceError
		switch {
		case errors.As(err, &re):
			changed = append(changed, p.path)
			fmt.Fprintf(w, "CHANGED     %s: %s\n", ref.Printable(p.path), strings.ReplaceAll(err.Error(), "\n", "\n            "))
		case err != nil:
			return nil, KeptError{err}
		default:
			fmt.Fprintf(w, "reproduces  %s (%d differences)\n", ref.Printable(p.path), n)
		}
		diffs += n
	}
	fmt.Fprintf(w, "findings verify: %d of %d findings reproduce exactly (%d recorded differences compared) in %s\n", len(pairs)-len(changed), len(pairs), diffs, ref.Printable(results))
	return changed, nil
}

// keptPair is a kept finding and the differences its case shows now.
type keptPair struct {
	path string
	now  []compare.Difference
}

// updateKept records each finding's differences now.
func updateKept(w io.Writer, pairs []keptPair, results string) error {
	rewritten := 0
	for _, p := range pairs {
		did, err := findings.Update(p.path, p.now)
		var we *findings.WriteError
		switch {
		case errors.As(err, &we):
			return err // the environment's (exit 3)
		case err != nil:
			return KeptError{err}
		}
		if did {
			rewritten++
			fmt.Fprintf(w, "updated     %s (%d differences)\n", ref.Printable(p.path), len(p.now))
		}
	}
	fmt.Fprintf(w, "findings update: %d of %d findings rewritten from %s\n", rewritten, len(pairs), ref.Printable(results))
	return nil
}

// casesByFile indexes the cases of r by their file's absolute path; a
// file with more than one case (steps run offline) is left out: kept
// findings of implementations have no steps.
func casesByFile(r *Results) (map[string]*CaseResult, error) {
	out := map[string]*CaseResult{}
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

// VerifyFiles is VerifyKept of the findings files of args (findings.List)
// with the results file results: gepcheck findings verify and update. A
// file that does not read is a KeptError.
func VerifyFiles(w io.Writer, args []string, results string, update bool) (changed []string, err error) {
	r, err := ReadResults(results)
	if err != nil {
		return nil, KeptError{err}
	}
	files, err := findings.List(args)
	if err != nil {
		return nil, KeptError{err}
	}
	kept := make([]Kept, 0, len(files))
	for _, f := range files {
		kept = append(kept, Kept{Path: f.Path, Implementation: f.Implementation})
	}
	return VerifyKept(w, kept, r, results, update)
}

// Verify is gepcheck findings verify, and with update gepcheck findings
// update (named name), of the findings files of args with the results
// file results (VerifyFiles): a finding that changed is a failure
// (exitcode.Failure), one that does not read, no results file or no
// finding the user's input (exitcode.Input).
func Verify(w io.Writer, name string, args []string, results string, update bool) error {
	if results == "" {
		return exitcode.Input{Err: errors.New("--results: the results file of a run that included the findings (gepcheck run --report-dir)")}
	}
	if len(args) == 0 {
		return exitcode.Input{Err: fmt.Errorf("name the findings: gepcheck findings %s --results FILE FILE|DIR...", name)}
	}
	changed, err := VerifyFiles(w, args, results, update)
	var ke KeptError
	switch {
	case errors.As(err, &ke):
		return exitcode.Input{Err: ke.Err}
	case err != nil:
		return err
	case len(changed) > 0:
		return exitcode.Failure{Msg: fmt.Sprintf("%d kept finding(s) changed: %s", len(changed), strings.Join(changed, ", "))}
	}
	return nil
}
