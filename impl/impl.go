// Package impl is the registry of implementations gepcheck can judge. Each
// implementation is a plug-in in a directory of its own under impl/
// that registers itself in an init function; cmd/gepcheck links the ones it
// ships with one import line each (docs/implementations.md says how to add
// one). Nothing outside impl/ names an implementation.
package impl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Implementation is one plug-in.
type Implementation interface {
	// Name is what --impl takes.
	Name() string
	// Doc says in a few words what runs, for --impl's help.
	Doc() string
	// Configure adds the implementation's own flags to fs (its version,
	// its binary, …; names no other implementation uses) and returns the
	// configuration they fill in, for one command.
	Configure(fs *pflag.FlagSet) Config
}

// Config is an implementation configured by its flags. Each capability is
// its own method, as controller-runtime splits client.Reader from
// client.Writer: an implementation without one returns ErrUnsupported.
type Config interface {
	// Offline returns the implementation run offline (a translator, a
	// command, the reference engine).
	Offline(ctx context.Context) (observe.Observer, error)
	// InCluster returns the implementation as a controller in a cluster.
	InCluster(ctx context.Context) (incluster.Implementation, error)
}

// Claimer is implemented by configurations that run under the semantics
// they are told to claim (the reference engine runs either): run and fuzz
// pass it their --semantics before asking for Offline or InCluster.
type Claimer interface {
	Claim(sem engine.Semantics)
}

// VocabularyClaimer is implemented by configurations that write the
// status vocabulary they are told to claim (the reference engine writes
// either, engine.Vocabulary): run and fuzz pass it their
// --status-vocabulary before asking for Offline or InCluster.
type VocabularyClaimer interface {
	ClaimVocabulary(v engine.Vocabulary)
}

// Reporter is implemented by configurations that say who they are, for
// the reports people publish (Gateway API's ConformanceReport
// implementation block, docs/reports.md).
type Reporter interface {
	Who() Who
}

// Who describes an implementation as a ConformanceReport does.
type Who struct {
	Organization, Project, URL, Version string
	Contact                             []string
}

// ErrUnsupported says an implementation has no such capability.
var ErrUnsupported = errors.New("not supported by this implementation")

// Tooled is implemented by configurations that run binaries gepcheck
// builds (gepcheck tools builds and lists them).
type Tooled interface {
	Tools() []Tool
}

// Tool is a binary an implementation builds once into gepcheck's cache.
type Tool struct {
	Name, Version string
	Build         func(ctx context.Context, log func(string)) (path string, err error)
}

// Commander is implemented by implementations with commands of their own
// (gepcheck egctl, gepcheck controller reference).
type Commander interface {
	// Commands returns top-level commands and, keyed "controller", the
	// subcommands of gepcheck controller.
	Commands(stdout, stderr io.Writer) map[string][]*cobra.Command
}

var (
	mu       sync.Mutex
	registry = map[string]Implementation{}
)

// Register adds an implementation; a second one of the same name panics
// (a programming error, found when the binary starts).
func Register(i Implementation) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[i.Name()]; dup {
		panic("impl: two implementations named " + i.Name())
	}
	registry[i.Name()] = i
}

// Names lists the registered implementations, sorted.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the implementation called name.
func Lookup(name string) (Implementation, error) {
	mu.Lock()
	i, ok := registry[name]
	mu.Unlock()
	if !ok {
		if name == "" {
			return nil, errors.New("pass --impl")
		}
		return nil, exitcode.Input{Err: fmt.Errorf("--impl %q: one of %s", name, strings.Join(Names(), ", "))}
	}
	return i, nil
}

// All returns the registered implementations, by name.
func All() []Implementation {
	var out []Implementation
	for _, n := range Names() {
		i, _ := Lookup(n)
		out = append(out, i)
	}
	return out
}

// Flags binds every registered implementation's flags on fs, and --impl.
type Flags struct {
	Impl    string
	configs map[string]Config
}

// AddFlags adds --impl and each implementation's own flags to fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) { f.AddFlagsAs(fs, "impl", "implementation") }

// AddFlagsAs is AddFlags with --impl called name.
func (f *Flags) AddFlagsAs(fs *pflag.FlagSet, name, usage string) {
	var docs []string
	f.configs = map[string]Config{}
	for _, i := range All() {
		docs = append(docs, i.Name()+" ("+i.Doc()+")")
		f.configs[i.Name()] = i.Configure(fs)
	}
	fs.StringVar(&f.Impl, name, "", usage+": "+strings.Join(docs, ", "))
}

// Selected returns the configuration of the implementation --impl names.
func (f *Flags) Selected() (Implementation, Config, error) {
	i, err := Lookup(f.Impl)
	if err != nil {
		return nil, nil, err
	}
	return i, f.configs[i.Name()], nil
}

// SelectedInCluster is the in-cluster form of the implementation the flag
// added as flag (AddFlagsAs) names, nil when it names none; an error
// naming the flag is an exitcode.Input.
func (f *Flags) SelectedInCluster(ctx context.Context, flag string) (incluster.Implementation, error) {
	if f.Impl == "" {
		return nil, nil
	}
	_, cfg, err := f.Selected()
	if err != nil {
		return nil, exitcode.Input{Err: fmt.Errorf("--%s: %w", flag, err)}
	}
	ic, err := cfg.InCluster(ctx)
	if err != nil {
		return nil, exitcode.Input{Err: fmt.Errorf("--%s %s: %w", flag, f.Impl, err)}
	}
	return ic, nil
}

// Configs returns every implementation's configuration, by name.
func (f *Flags) Configs() []Config {
	var out []Config
	for _, n := range slices.Sorted(maps.Keys(f.configs)) {
		out = append(out, f.configs[n])
	}
	return out
}
