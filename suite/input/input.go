// Package input reads what simulate, explain, diff and simulate --impl
// take as their objects (docs/input.md): files, folders, standard input
// and kustomizations, or a live cluster's objects with a change applied
// (docs/cluster.md, Reading a cluster), and the hint for an input that is
// another command's (scenario files, admission configurations, a Helm
// chart's templates).
package input

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// EnvironmentOr classifies an error of a command that reads both the
// user's files and the environment (a cluster): a file that does not exist
// or does not load is bad input (Error), anything else (a cluster that
// does not answer) is the environment's.
func EnvironmentOr(err error) error {
	var le load.Errors
	var e1 *load.Error
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, exec.ErrNotFound) || errors.As(err, &le) || errors.As(err, &e1) {
		return exitcode.Input{Err: err}
	}
	return err
}

// PrintWarnings writes warnings to w (standard error), one a line, as
// "gepcheck: warning: ...": besides the output's own WARNINGS, so that
// they are seen when the output is piped or is JSON.
func PrintWarnings(w io.Writer, warnings []string) {
	for _, m := range warnings {
		fmt.Fprintln(w, "gepcheck: warning: "+ref.Printable(m))
	}
}

// Source is what a command's -f and -k name, or, with --from-cluster
// (Cluster set), the cluster's objects with those files applied over them.
type Source struct {
	Files          []string // -f: files, folders, "-" for Stdin
	Kustomizations []string // -k: folders rendered as kubectl kustomize renders them
	Stdin          io.Reader
	Cluster        *Cluster  // --from-cluster; nil: none
	Command        string    // the command's name, for hints
	Stderr         io.Writer // where warnings are written
}

// Empty says whether s names nothing to read.
func (s Source) Empty() bool {
	return len(s.Files)+len(s.Kustomizations) == 0 && s.Cluster == nil
}

func (s Source) input() simulator.Input {
	return simulator.Input{Files: s.Files, Kustomizations: s.Kustomizations, Stdin: s.Stdin}
}

// Model is the model of s, its warnings on Stderr, refused when it has
// nothing to simulate: the hint when the files are another command's.
func (s Source) Model(opts simulator.Options) (*simulator.Model, error) {
	var m *simulator.Model
	if s.Cluster != nil {
		docs, err := s.clusterDocs(opts)
		if err != nil {
			return nil, err
		}
		if m, err = simulator.Build(docs, opts); err != nil {
			return nil, exitcode.Input{Err: err}
		}
	} else {
		var err error
		m, err = simulator.LoadInput(s.input(), opts)
		if le := (*simulator.LoadError)(nil); errors.As(err, &le) {
			PrintWarnings(s.Stderr, le.Warnings)
		}
		if err != nil {
			// A Helm chart's templates do not parse; scenario files,
			// each with its own objects, collide: the hint, not every
			// error.
			return nil, s.hintOr(err, opts.Limits)
		}
		if len(m.Kinds) == 0 {
			// The input of another command: the hint alone, not a
			// warning per kind it ignored.
			for _, h := range []string{scenariosHint(s.Files, opts.Limits), admissionHint(s.Files, opts.Limits)} {
				if h != "" {
					return nil, exitcode.Input{Err: errors.New(h)}
				}
			}
		}
	}
	PrintWarnings(s.Stderr, m.Warnings)
	return m, check(m)
}

// check refuses a model with nothing to simulate.
func check(m *simulator.Model) error {
	if len(m.Kinds) == 0 {
		return exitcode.Input{Err: errors.New("no policy kind to simulate: the input has no policies of a known kind; pass --profile")}
	}
	if err := m.HasPolicies(); err != nil {
		return exitcode.Input{Err: err}
	}
	return nil
}

// Docs reads s as Model reads it: the cluster's objects with the files of
// -f and -k applied over them, else the files and kustomizations;
// warnings on Stderr.
func (s Source) Docs(opts simulator.Options) ([]*load.Doc, error) {
	if s.Cluster != nil {
		return s.clusterDocs(opts)
	}
	docs, warns, err := simulator.ReadInput(s.input(), opts.Limits)
	PrintWarnings(s.Stderr, warns)
	if err != nil {
		return nil, s.hintOr(err, opts.Limits)
	}
	return docs, nil
}

// hintOr is the error for input that does not load: the hint where it is
// a Helm chart's templates or scenario files, else err.
func (s Source) hintOr(err error, limits load.Limits) error {
	if h := helmHint(s.Files, "gepcheck "+s.Command+" -f -"); h != "" {
		return exitcode.Input{Err: errors.New(h)}
	}
	if h := scenariosHint(s.Files, limits); h != "" {
		return exitcode.Input{Err: errors.New(h)}
	}
	return exitcode.Input{Err: err}
}

// clusterDocs are the cluster's objects with the files of -f and -k (if
// any) applied over them (simulator.Apply).
func (s Source) clusterDocs(opts simulator.Options) ([]*load.Doc, error) {
	docs, err := s.Cluster.read(opts)
	if err != nil {
		return nil, err
	}
	if len(s.Files)+len(s.Kustomizations) > 0 {
		change, err := s.change(opts)
		if err != nil {
			return nil, err
		}
		docs = simulator.Apply(docs, change, s.Cluster.ApplyNamespace())
	}
	return docs, nil
}

// change reads the files (-f) and kustomizations (-k) applied over the
// cluster's objects, as Docs reads them, warnings on Stderr.
func (s Source) change(opts simulator.Options) ([]*load.Doc, error) {
	docs, warns, err := simulator.ReadInput(s.input(), opts.Limits)
	PrintWarnings(s.Stderr, warns)
	if err != nil {
		return nil, exitcode.Input{Err: err}
	}
	return docs, nil
}

// Pair reads diff's two states: OLD and NEW (args, files or folders), or,
// with a cluster, its objects as they are and with the change made: the
// objects of deletes deleted, then the files of -f and -k applied
// (docs/diff.md, The two states).
func (s Source) Pair(args, deletes []string, opts simulator.Options) (before, after []*load.Doc, err error) {
	if s.Cluster != nil {
		if len(args) > 0 || len(s.Files)+len(s.Kustomizations)+len(deletes) == 0 {
			return nil, nil, exitcode.Input{Err: errors.New("with --from-cluster, pass the change as -f FILE|DIR|-, -k DIR or --delete FILE|DIR|- (and no OLD NEW)")}
		}
		if slices.Contains(deletes, "-") && slices.Contains(s.Files, "-") {
			return nil, nil, exitcode.Input{Err: errors.New("--delete - and -f - cannot both be read from standard input")}
		}
		return s.clusterPair(deletes, opts)
	}
	if len(deletes) > 0 {
		return nil, nil, exitcode.Input{Err: errors.New("--delete deletes from the cluster's state: pass --from-cluster (between OLD and NEW, an object NEW lacks is deleted)")}
	}
	if len(args) != 2 || len(s.Files)+len(s.Kustomizations) > 0 {
		return nil, nil, exitcode.Input{Err: errors.New("pass OLD and NEW (files or folders), or --from-cluster -f CHANGE")}
	}
	if args[0] == "-" && args[1] == "-" {
		return nil, nil, exitcode.Input{Err: errors.New("OLD and NEW cannot both be - (standard input is read once)")}
	}
	return s.filePair(args[0], args[1], opts)
}

// filePair reads OLD and NEW, what they share decoded once
// (simulator.ReadPair; docs/performance.md, gepcheck diff).
func (s Source) filePair(old, new string, opts simulator.Options) (before, after []*load.Doc, err error) {
	docs, warns, errs := simulator.ReadPair(old, new, s.Stdin, opts.Limits)
	PrintWarnings(s.Stderr, warns)
	if err := errors.Join(errs[0], errs[1]); err != nil {
		for i, p := range []string{old, new} {
			if errs[i] == nil {
				continue
			}
			// A Helm chart: the hint, not its templates' errors; its
			// rendering on standard input in its place.
			args := []string{old, new}
			args[i] = "-"
			if h := helmHint([]string{p}, "gepcheck diff "+strings.Join(args, " ")); h != "" {
				return nil, nil, exitcode.Input{Err: errors.New(h)}
			}
		}
		return nil, nil, exitcode.Input{Err: err}
	}
	return docs[0], docs[1], nil
}

// clusterPair reads the cluster once: its objects, and the same with
// deletes deleted (simulator.Delete, as kubectl delete -f) and the files
// of -f and -k applied (simulator.Apply, as kubectl apply -f).
func (s Source) clusterPair(deletes []string, opts simulator.Options) (before, after []*load.Doc, err error) {
	docs, err := s.Cluster.read(opts)
	if err != nil {
		return nil, nil, err
	}
	next := docs
	ns := s.Cluster.ApplyNamespace()
	if len(deletes) > 0 {
		gone, warns, err := simulator.ReadInput(simulator.Input{Files: deletes, Stdin: s.Stdin}, opts.Limits)
		PrintWarnings(s.Stderr, warns)
		if err != nil {
			return nil, nil, exitcode.Input{Err: fmt.Errorf("--delete: %w", err)}
		}
		// kubectl delete -f deletes what gepcheck does not read too
		// (a Deployment, a Secret, another namespace's objects): those
		// are left out of the simulation with a warning, not NotFound.
		read, unread := simulator.Covered(gone, ns, s.Cluster.covers)
		for _, d := range unread {
			PrintWarnings(s.Stderr, []string{fmt.Sprintf("--delete: %s: %s is not read from the cluster (docs/cluster.md, Reading a cluster): its deletion changes nothing gepcheck simulates", d.Source, d.Object())})
		}
		if next, err = simulator.Delete(docs, read, ns); err != nil {
			return nil, nil, exitcode.Input{Err: fmt.Errorf("--delete: %w", err)}
		}
	}
	if len(s.Files)+len(s.Kustomizations) > 0 {
		change, err := s.change(opts)
		if err != nil {
			return nil, nil, err
		}
		next = simulator.Apply(next, change, ns)
	}
	return docs, next, nil
}

// Case is s as one case for an implementation (simulate --impl): the
// documents read as Docs reads them, built once as Model builds them so
// that an error names the file, document and line read (the case is read
// back from YAML), what storing pruned warned of on Stderr.
func (s Source) Case(opts simulator.Options) (observe.Case, error) {
	docs, err := s.Docs(opts)
	if err != nil {
		return observe.Case{}, err
	}
	m, err := simulator.Build(docs, opts)
	if err != nil {
		return observe.Case{}, s.hintOr(err, opts.Limits)
	}
	PrintWarnings(s.Stderr, m.Warnings)
	yaml, err := load.Marshal(docs)
	if err != nil {
		return observe.Case{}, exitcode.Input{Err: err}
	}
	return observe.Case{Name: "input", YAML: yaml, Profiles: opts.Profiles}, nil
}
