package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/suite/findings"
)

// defaultFindings is where gepcheck keeps its findings (README.md, Layout).
const defaultFindings = "scenarios/findings"

// findingOut is one finding as `gepcheck findings -o json` prints it: the
// file as the table names it (relative to the directory argument), the
// path it was read from, and the Finding document's summary and triage.
type findingOut struct {
	findings.Entry
	Path string `json:"path"`
}

func newFindings(stdout io.Writer) *cobra.Command {
	var output string
	var noHeaders bool
	formats := []string{formatTable, formatWide, formatJSON, formatYAML}
	cmd := &cobra.Command{
		Use:   "findings [DIR|FILE...] [-o table|wide|json|yaml] [--no-headers]",
		Short: "List the findings files and how each is triaged",
		Long: `findings reads findings files (default ` + defaultFindings + `, walked for .yaml
and .yml files) and prints one row per file: the implementation, its version
and the mode of the run that found it (offline, or the cluster; read from
the replay command the file records; - for a finding of a property), the
policy profile the run named the finding after, the kind of difference, and
its triage (spec.triage):

  contradicts-must    contradicts a MUST or MUST NOT (requirement and quote)
  contradicts-should  contradicts a SHOULD or SHOULD NOT (requirement and quote)
  undefined           the specs do not say, or say it two ways
  profile-gap         gepcheck's profile misdescribes the policy kind
  untriaged           not read against the specs yet (gepcheck fuzz writes this)

with the known upstream issues. A file that is not a finding, or whose
triage is missing or invalid (a verdict not listed, a quote not in the
requirement gepcheck requirements lists, an upstream entry not an https
URL), is bad input (exit 2). The table fits 120 columns; -o wide prints every
cell in full, -o json and -o yaml every field.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output, formats...); err != nil {
				return err
			}
			if len(args) == 0 {
				args = []string{defaultFindings}
			}
			found, err := readFindings(args)
			if err != nil {
				return inputError{err}
			}
			if output == formatJSON || output == formatYAML {
				return writeData(stdout, output, found)
			}
			files := make([]findings.Entry, len(found))
			for i, f := range found {
				files[i] = f.Entry
			}
			return report.Findings(stdout, files, render.TableOptions{Wide: output == formatWide, NoHeaders: noHeaders})
		},
	}
	addOutputFlag(cmd, &output, formats...)
	addNoHeadersFlag(cmd, &noHeaders)
	cmd.AddCommand(newFindingsVerify(stdout, false), newFindingsVerify(stdout, true))
	return cmd
}

// readFindings reads every findings file of args, sorted by file; the
// error lists every file that is not a valid finding.
func readFindings(args []string) ([]findingOut, error) {
	var out []findingOut
	var errs []error
	for _, a := range args {
		files, err := scenarios.Files([]string{a})
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			ff, err := findings.Read(f)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if rel, err := filepath.Rel(a, f); st.IsDir() && err == nil {
				ff.File = filepath.ToSlash(rel)
			}
			out = append(out, findingOut{Entry: ff, Path: f})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no findings files (.yaml, .yml) in %s", strings.Join(args, ", "))
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Path < out[j].Path
	})
	return out, nil
}
