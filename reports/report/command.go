package report

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/suite/findings"
)

// Command is gepcheck report and its subcommands (docs/reports.md): the
// reports written again from a run's results, the shards of a run merged,
// an implementation's versions and implementations side by side. Errors
// reading results are the user's (exitcode.Input).
type Command struct {
	// Out is where the reports are written, Known the kept findings the
	// failures are matched with (MarkKnown), Under the scenario paths
	// compare keeps.
	Out, Known string
	Under      []string
}

// AddFlags adds --out and --known to fs (report's persistent flags).
func (c *Command) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.Out, "out", "reports", "directory the reports are written under")
	fs.StringVar(&c.Known, "known", findings.Default, "kept findings (gepcheck findings) each failure is matched with: known (its triage and upstream links) or a regression; a directory that does not exist matches nothing")
}

// AddUnderFlag adds compare's --under to fs.
func (c *Command) AddUnderFlag(fs *pflag.FlagSet) {
	fs.StringSliceVar(&c.Under, "under", nil, "keep only the cases of scenario files under these paths")
}

// Report writes the reports of the results file, and says where.
func (c Command) Report(w io.Writer, file string) error {
	r, err := ReadResults(file)
	if err != nil {
		return exitcode.Input{Err: err}
	}
	return c.write(w, r)
}

// Merge writes the reports of the shards' results files merged, and says
// where.
func (c Command) Merge(w io.Writer, files []string) error {
	parts, err := ReadAll(files)
	if err != nil {
		return exitcode.Input{Err: err}
	}
	r, err := Merge(parts)
	if err != nil {
		return exitcode.Input{Err: err}
	}
	return c.write(w, r)
}

// Matrix prints the page of an implementation's reports directory over
// its versions.
func (c Command) Matrix(w io.Writer, dir string) error {
	rs, err := ReadVersions(dir)
	if err != nil {
		return exitcode.Input{Err: err}
	}
	_, err = w.Write(Matrix(rs))
	return err
}

// Compare prints the results files side by side, the cases under Under.
func (c Command) Compare(w io.Writer, files []string) error {
	rs, err := ReadAll(files)
	if err != nil {
		return exitcode.Input{Err: err}
	}
	_, err = w.Write(Compare(rs, c.Under))
	return err
}

// write matches r's failures with the kept findings in Known and writes
// its reports under Out.
func (c Command) write(w io.Writer, r *Results) error {
	if err := MarkKnown(r, c.Known); err != nil {
		return exitcode.Input{Err: fmt.Errorf("--known %s: %w", c.Known, err)}
	}
	dir, err := Write(c.Out, r)
	var missing *MissingError
	if errors.As(err, &missing) {
		return exitcode.Input{Err: fmt.Errorf("%w: the results file's implementation block must have them (a run sets them with its --report-* flags)", err)}
	}
	if err != nil {
		return exitcode.Input{Err: err}
	}
	fmt.Fprintf(w, "reports written to %s\n", ref.Printable(dir))
	return nil
}
