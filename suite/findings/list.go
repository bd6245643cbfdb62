package findings

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/scenarios"
)

// Listed is one finding as `gepcheck findings -o json` prints it: the
// file as the table names it (relative to the directory it was found
// under), the path it was read from, and the Finding document's summary
// and triage.
type Listed struct {
	Entry
	Path string `json:"path"`
}

// Default is where gepcheck keeps its findings (README.md, Layout).
const Default = "scenarios/findings"

// ListArgs is gepcheck findings' List: of args, Default when there are
// none; a file that is not a valid finding is the user's input
// (exitcode.Input).
func ListArgs(args []string) ([]Listed, error) {
	if len(args) == 0 {
		args = []string{Default}
	}
	found, err := List(args)
	if err != nil {
		return nil, exitcode.Input{Err: err}
	}
	return found, nil
}

// List reads every findings file of args (directories walked for .yaml
// and .yml files), sorted by file; the error lists every file that is not
// a valid finding (Read).
func List(args []string) ([]Listed, error) {
	var out []Listed
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
			ff, err := Read(f)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if rel, err := filepath.Rel(a, f); st.IsDir() && err == nil {
				ff.File = filepath.ToSlash(rel)
			}
			out = append(out, Listed{Entry: ff, Path: f})
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
