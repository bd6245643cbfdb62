// Package reports prints what the conformance pipeline found: the result
// of an offline run, of a run in a cluster, and of a differential fuzz run.
// Differences are values (package compare) until they are printed here.
// Findings files are written by package differential; JUnit by Ginkgo.
package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/incluster"
)

// OfflineRun prints one line per case, its differences below, and the
// count; it returns how many cases failed.
func OfflineRun(w io.Writer, results []differential.CaseResult) int {
	failed, skipped := 0, 0
	for _, r := range results {
		switch {
		case r.Skipped != "":
			skipped++
			fmt.Fprintf(w, "skip      %s (%s)\n", r.Name, r.Skipped)
		case len(r.Diff) == 0:
			fmt.Fprintf(w, "agree     %s\n", r.Name)
		default:
			failed++
			fmt.Fprintf(w, "DISAGREE  %s\n          %s\n", r.Name, strings.Join(compare.Strings(r.Diff), "\n          "))
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", len(results)-failed-skipped, failed, skipped)
	return failed
}

// ClusterRun prints a table of the scenarios run in a cluster, with the
// differences of each that did not pass, and the counts.
func ClusterRun(w io.Writer, s *incluster.Summary) {
	fmt.Fprintf(w, "\n%-6s %-8s %s\n", "RESULT", "TIME", "SCENARIO")
	for _, r := range s.Results {
		fmt.Fprintf(w, "%-6s %7.1fs %s (%s)\n", r.Outcome, r.Duration.Seconds(), r.Plan.Name, r.Plan.File)
		for _, l := range faultLines(r) { // none for a case without faults
			fmt.Fprintf(w, "               %s\n", l)
		}
		if r.Outcome == incluster.Pass {
			continue
		}
		lines := compare.Strings(r.Diff)
		if r.Reason != "" {
			lines = append([]string{r.Reason}, lines...)
		}
		if step := r.Label(); step != "" {
			lines = append([]string{"at " + step}, lines...)
		}
		if r.Offline != "" {
			lines = append(lines, r.Offline)
		}
		for _, d := range lines {
			fmt.Fprintf(w, "               %s\n", d)
		}
	}
	for _, sh := range s.Shrunk {
		fmt.Fprintf(w, "shrunk in the cluster for %s: %s (%d rounds, %d candidates applied; %s)\n", sh.Kind, sh.File, sh.Rounds, sh.Tried, sh.Stopped)
		if d := sh.Determinism(); d != "" {
			fmt.Fprintf(w, "               %s\n", d)
		}
		for _, d := range slices.Concat([]string{sh.Result.Reason}, compare.Strings(sh.Result.Diff), []string{sh.Result.Offline}) {
			if d != "" {
				fmt.Fprintf(w, "               %s\n", d)
			}
		}
	}
	fmt.Fprintf(w, "%s on %s: %d passed, %d failed, %d errors, %d skipped (of %d scenarios; %d filtered out)\n",
		s.Impl, s.Cluster, s.Count(incluster.Pass), s.Count(incluster.Fail), s.Count(incluster.Error), s.Count(incluster.Skip), s.Plans, s.Plans-len(s.Results))
}

// Fuzz prints the end of a batched differential run: the conditions the
// implementation writes that GEP-713 does not define, and the counts.
func Fuzz(w io.Writer, impl string, s *differential.Summary) {
	if len(s.Extra) > 0 {
		fmt.Fprintf(w, "conditions %s writes beside Accepted, Enforced and Programmed (policies), with the reference's Enforced or Programmed on the same policies:\n", impl)
		for _, k := range s.ExtraConditions() {
			var refs []string
			for _, r := range slices.Sorted(maps.Keys(s.ExtraVsReference[k])) {
				refs = append(refs, fmt.Sprintf("%s %d", r, s.ExtraVsReference[k][r]))
			}
			fmt.Fprintf(w, "  %-50s %d  (reference: %s)\n", k, s.Extra[k], strings.Join(refs, ", "))
			switch m, defined, contradicts := s.Meaning(k); {
			case !defined:
				fmt.Fprintf(w, "      no spec defines it\n")
			case contradicts > 0:
				fmt.Fprintf(w, "      contradicts GEP-713 on %d of %d: %q holds only where the reference has Enforced or Programmed %s\n", contradicts, s.Extra[k], m.Quote, strings.Join(m.Holds, ", "))
			default:
				fmt.Fprintf(w, "      agrees with GEP-713's meaning: %q\n", m.Quote)
			}
		}
	}
	fmt.Fprintf(w, "%d agree, %d disagree (findings are evidence, not failures)\n", s.Checks-len(s.Disagree), len(s.Disagree))
}

// Coverage prints the coverage report of a batched fuzz run: each
// combination declared or drawn, how often it was drawn and how often a
// scenario drawing it disagreed; "!" marks a declared one never drawn, "+"
// one drawn but not declared.
func Coverage(w io.Writer, c *differential.Coverage) {
	fmt.Fprintf(w, "coverage (field @ level / merge option):\n  %-60s %6s %6s\n", "COMBINATION", "DRAWN", "DISAGREED")
	for _, r := range c.Rows() {
		mark := " "
		switch {
		case r.Declared && r.Drawn == 0:
			mark = "!"
		case !r.Declared:
			mark = "+"
		}
		fmt.Fprintf(w, "%s %-60s %6d %6d\n", mark, r.Combination, r.Drawn, r.Disagreed)
	}
}

// Property prints the outcome of one property of a fuzz run: ok with the
// checks made, or the failure's note, the counterexample written to
// outDir and the command that replays it. It reports whether the property
// passed.
func Property(w io.Writer, out suite.Outcome, checks int, outDir string) bool {
	if out.Passed {
		fmt.Fprintf(w, "%-40s ok    %d checks in %s\n", out.Property, checks, out.Elapsed.Round(time.Millisecond))
		return true
	}
	verdict := "FAIL"
	if p, _ := suite.Lookup(out.Property); p.Finding {
		verdict = "FOUND"
	}
	fmt.Fprintf(w, "%-40s %s  after %s\n", out.Property, verdict, out.Elapsed.Round(time.Millisecond))
	_, _, note := out.Capture.Last()
	for _, l := range strings.Split(strings.TrimSpace(note), "\n") {
		fmt.Fprintf(w, "      %s\n", l)
	}
	file, err := suite.WriteCounterexample(outDir, out)
	if err != nil {
		fmt.Fprintf(w, "      (no counterexample written: %v)\n", err)
	} else {
		fmt.Fprintf(w, "      counterexample: %s\n      simulate it:    gepcheck simulate -f %s\n", file, file)
	}
	fmt.Fprintf(w, "      replay:         %s\n", suite.ReplayCommand(out))
	return false
}

// faultLines say what the faults and oracles of a faulted case did
// (docs/faults.md): nothing for a case without faults.
func faultLines(r incluster.Result) []string {
	if len(r.Faults) == 0 && len(r.Oracles) == 0 {
		return nil
	}
	var made []string
	for _, f := range r.Faults {
		made = append(made, f.String())
	}
	lines := []string{"faults: " + strings.Join(made, "; ")}
	if len(r.Oracles) > 0 {
		var ran []string
		for _, o := range r.Oracles {
			ran = append(ran, fmt.Sprintf("%s (%d compared)", o.Name, o.Compared))
		}
		lines = append(lines, fmt.Sprintf("oracles: %s; quiet period: %d status writes, %d flipping; %d controller restarts", strings.Join(ran, ", "), r.QuietWrites, r.Flips, r.Restarts))
	}
	return lines
}
