package report

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Flags are run's and fuzz's flags for the reports people publish
// (docs/reports.md).
type Flags struct {
	Dir   string
	Who   impl.Who // --report-*, over the implementation's own
	Shard string
	// Known is the directory of kept findings the failures are matched
	// with (MarkKnown): run's and report's --known, fuzz's own --known.
	Known string
}

// AddFlags adds --report-dir, --report-* and --shard to fs (not --known,
// whose help each command words for itself).
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.Dir, "report-dir", "", "write the run's reports (ConformanceReport YAML, JUnit, Markdown, HTML, and the results they come from) into DIR/<implementation>/<version>/")
	fs.StringVar(&f.Who.Organization, "report-organization", "", "the implementation's organization in reports (default: the implementation's own)")
	fs.StringVar(&f.Who.Project, "report-project", "", "the implementation's project in reports (default: the implementation's own)")
	fs.StringVar(&f.Who.URL, "report-url", "", "the implementation's URL in reports (default: the implementation's own)")
	fs.StringVar(&f.Who.Version, "report-version", "", "the implementation's version in reports (default: the implementation's own)")
	fs.StringArrayVar(&f.Who.Contact, "report-contact", nil, "the implementation's contact in reports; repeatable (default: the implementation's own)")
	fs.StringVar(&f.Shard, "shard", "", "run only shard i of N (i/N): scenario files in path order, random cases by index, case k in shard k mod N + 1; gepcheck report merge puts the shards' results together (docs/reports.md)")
}

// ParseShard reads --shard.
func (f *Flags) ParseShard() (suite.Shard, error) {
	sh, err := suite.ParseShard(f.Shard)
	if err != nil {
		return sh, exitcode.Input{Err: err}
	}
	return sh, nil
}

// Results starts the results of a run of im in mode under sem.
func (f *Flags) Results(im impl.Implementation, cfg impl.Config, mode string, sem engine.Semantics, caps observe.Capabilities) *Results {
	r := NewResults(Reported(im, cfg, f.Who), mode, sem, caps)
	if f.Shard != "" {
		r.Shards = []string{f.Shard}
	}
	return r
}

// Write writes r's reports when --report-dir is set (Publish), and says
// where.
func (f *Flags) Write(w io.Writer, r *Results) error {
	if f.Dir == "" || r == nil {
		return nil
	}
	dir, err := Publish(f.Dir, f.Known, r)
	var de DirError
	var ke KnownError
	var missing *MissingError
	switch {
	case errors.As(err, &de):
		return exitcode.Input{Err: fmt.Errorf("--report-dir: %w (--report-version sets the version)", de.Err)}
	case errors.As(err, &ke):
		return exitcode.Input{Err: fmt.Errorf("--known %s: %w", f.Known, ke.Err)}
	case errors.As(err, &missing):
		return exitcode.Input{Err: fmt.Errorf("--report-dir: %w: pass --report-organization, --report-project, --report-url, --report-version, --report-contact", err)}
	case err != nil:
		return exitcode.Input{Err: fmt.Errorf("--report-dir: %w", err)}
	}
	fmt.Fprintf(w, "reports written to %s\n", ref.Printable(dir))
	return nil
}

// Reported is the implementation as the reports name it: its own
// (impl.Reporter), with what the run was told (--report-*) over it.
func Reported(im impl.Implementation, cfg impl.Config, told impl.Who) Implementation {
	var who impl.Who
	if r, ok := cfg.(impl.Reporter); ok {
		who = r.Who()
	}
	for _, f := range []struct {
		dst *string
		v   string
	}{{&who.Organization, told.Organization}, {&who.Project, told.Project}, {&who.URL, told.URL}, {&who.Version, told.Version}} {
		if f.v != "" {
			*f.dst = f.v
		}
	}
	if len(told.Contact) > 0 {
		who.Contact = told.Contact
	}
	return Implementation{Name: im.Name(), Organization: who.Organization, Project: who.Project, URL: who.URL, Version: who.Version, Contact: who.Contact}
}
