package requirements

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/render"
)

// Formats are gepcheck requirements' outputs (-o), the first the default:
// the table, its quotes in full, the IDs, every entry in full.
var Formats = []string{"table", "wide", "name", "json", "yaml"}

// Flags are gepcheck requirements' flags: -o and --no-headers (the
// command adds them, as every command's), --spec and --uncovered.
type Flags struct {
	Output    string // one of Formats
	NoHeaders bool
	Spec      string // one of Specs, or "" for every spec
	Uncovered bool
}

// AddFlags adds --spec and --uncovered to fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Spec, "spec", "", "only this spec: "+strings.Join(Specs, ", "))
	fs.BoolVar(&f.Uncovered, "uncovered", false, "only the requirements that are pending or partial")
}

// Run writes to w the requirements of ids (Pick) as f.Output; a bad flag
// or an unknown ID is an exitcode.Input.
func (f *Flags) Run(w io.Writer, ids []string) error {
	if !slices.Contains(Formats, f.Output) {
		return exitcode.Input{Err: fmt.Errorf("--output %q: one of %s", f.Output, strings.Join(Formats, ", "))}
	}
	if f.Spec != "" && !slices.Contains(Specs, f.Spec) {
		return exitcode.Input{Err: fmt.Errorf("--spec %q: one of %s", f.Spec, strings.Join(Specs, ", "))}
	}
	all, err := Load()
	if err != nil {
		return err
	}
	inSpec, shown, err := Pick(all, ids, f.Spec, f.Uncovered)
	if err != nil {
		return exitcode.Input{Err: err}
	}
	switch f.Output {
	case "json", "yaml":
		return render.Document(w, f.Output, List(shown))
	case "name":
		for _, r := range shown {
			fmt.Fprintln(w, r.ID)
		}
		return nil
	}
	return WriteTable(w, Coverage(inSpec), shown, render.TableOptions{Wide: f.Output == "wide", NoHeaders: f.NoHeaders})
}
