package campaign

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// testImpl is an implementation named "test" whose configuration is cfg.
type testImpl struct{ cfg impl.Config }

func (testImpl) Name() string                           { return "test" }
func (testImpl) Doc() string                            { return "a test" }
func (i testImpl) Configure(*pflag.FlagSet) impl.Config { return i.cfg }

// offline runs observer offline (err: it cannot), in no cluster.
type offline struct {
	observer observe.Observer
	err      error
}

func (o offline) Offline(context.Context) (observe.Observer, error) { return o.observer, o.err }
func (offline) InCluster(context.Context) (incluster.Implementation, error) {
	return nil, impl.ErrUnsupported
}

// batchedColors is offline fuzzing in batches (colors).
type batchedColors struct {
	offline
	colors
}

func selecting(cfg impl.Config) func() (impl.Implementation, impl.Config, error) {
	return func() (impl.Implementation, impl.Config, error) { return testImpl{cfg}, cfg, nil }
}

// Each value Validate refuses is refused with the message naming its flag,
// an exitcode.Input (exit 2); a run that asks nothing wrong passes.
func TestFuzzValidate(t *testing.T) {
	ok := Fuzz{Checks: 1, Workers: 1}
	unreadable := func(string) error { return errors.New("unreadable") }
	for _, tc := range []struct {
		name string
		edit func(f *Fuzz)
		want string
	}{
		{"valid", func(*Fuzz) {}, ""},
		{"semantics", func(f *Fuzz) { f.Semantics = "bogus" }, "--semantics: "},
		{"checks", func(f *Fuzz) { f.Checks = 0 }, "--checks must be at least 1"},
		{"parallel", func(f *Fuzz) { f.Workers = 0 }, "--parallel 0: at least 1"},
		{"shard", func(f *Fuzz) { f.Shard = "3/2" }, `--shard "3/2"`},
		{"profile", func(f *Fuzz) { f.Profile = "bogus" }, "--profile: "},
		{"steps without impl", func(f *Fuzz) { f.Steps = 1 }, "--steps needs --impl"},
		{"steps too many", func(f *Fuzz) { f.Impl, f.Steps = "test", 99 }, "--steps 99: between 1 and"},
		{"steps and coverage", func(f *Fuzz) { f.Impl, f.Steps, f.Coverage = "test", 1, true }, "--coverage counts scenarios without steps"},
		{"shard without impl", func(f *Fuzz) { f.Shard = "1/2" }, "--shard needs --impl"},
		{"shard without seed", func(f *Fuzz) { f.Impl, f.Shard = "test", "1/2" }, "--shard needs --seed"},
		{"known unreadable", func(f *Fuzz) { f.FailOnNew, f.Known, f.ReadKnown = true, "k", unreadable }, "--fail-on-new: --known k: unreadable"},
		{"vocabulary without impl", func(f *Fuzz) { f.Vocabulary = "draft" }, "--status-vocabulary needs --impl"},
		{"coverage without impl", func(f *Fuzz) { f.Coverage = true }, "--coverage needs --impl"},
	} {
		f := ok
		tc.edit(&f)
		_, err := f.Validate()
		var in exitcode.Input
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!errors.As(err, &in) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v (%T), want an exitcode.Input with %q", tc.name, err, err, tc.want)
		}
	}
}

// The named properties run against a planted mistake (engine.MutantNewerWins)
// fail, an exitcode.Failure naming the seed; against the reference they pass.
func TestFuzzProperties(t *testing.T) {
	f := Fuzz{Checks: 50, Workers: 1, Seed: 1, Properties: []string{"ordering/rules-1-3"}, OutDir: t.TempDir(), ShrinkTime: 1e8}
	var out bytes.Buffer
	if err := f.Run(&out); err != nil || !strings.Contains(out.String(), "seed: 1\n") || !strings.HasSuffix(out.String(), "1 passed, 0 failed\n") {
		t.Errorf("the reference: %v\n%s", err, out.String())
	}
	f.Mutant = string(engine.MutantNewerWins)
	out.Reset()
	var failed exitcode.Failure
	if err := f.Run(&out); !errors.As(err, &failed) || failed.Msg != "1 propert(ies) failed; seed 1" {
		t.Errorf("newer wins: %v (%T)\n%s", err, err, out.String())
	}
	f.Mutant, f.Set = "", []Flag{{Name: "kind", Values: []string{"X"}}}
	var in exitcode.Input
	if err := f.Run(&out); !errors.As(err, &in) || err.Error() != "--kind needs --impl of an implementation that fuzzes in batches" {
		t.Errorf("--kind without --impl: %v", err)
	}
}

// An implementation that fuzzes in batches runs a campaign (the reference
// against itself: nothing to shrink): the command's hooks hear of it, and
// the reason --fail-on-new gives fails the run.
func TestFuzzBatched(t *testing.T) {
	cfg := batchedColors{offline: offline{observer: newerWins("")}}
	known := false
	f := Fuzz{Checks: 5, Workers: 1, Seed: 1, OutDir: t.TempDir(), Impl: "test", Select: selecting(cfg), FailOnNew: true,
		Hooks: func(c *Config, im impl.Implementation, _ impl.Config) {
			if im.Name() != "test" || c.Impl != "test" || c.Seed != 1 {
				t.Errorf("hooks of %s: %+v", im.Name(), c)
			}
			c.Known = func(report.Campaign, []compare.Found) error { known = true; return nil }
			c.New = func(report.Campaign, []compare.Found, map[string]string, int, int) (string, error) {
				return "new kinds", nil
			}
		}}
	var out bytes.Buffer
	var failed exitcode.Failure
	if err := f.Run(&out); !errors.As(err, &failed) || failed.Msg != "new kinds" || !known {
		t.Errorf("%v (%T), triage called %v:\n%s", err, err, known, out.String())
	}
}

// An implementation that does not fuzz in batches is one more property:
// what only a campaign reads is refused, its replay repeats the flags
// given but the run's own, quoted; one that runs only in a cluster, or
// cannot start, is refused or left to the caller.
func TestFuzzProperty(t *testing.T) {
	cfg := offline{observer: newerWins("")}
	f := Fuzz{Checks: 1, Workers: 1, Impl: "test", Select: selecting(cfg), Profile: "color-direct",
		Set: []Flag{{"checks", []string{"1"}}, {"impl", []string{"test"}}, {"profile", []string{"color-direct"}}, {"property", []string{"a", "b"}}, {"x", []string{"a b"}}}}
	p, err := f.differential(context.Background(), nil)
	if err != nil || p.Replay != "--impl=test --profile=color-direct --x='a b'" {
		t.Errorf("%v, replay %q", err, p.Replay)
	}
	for _, tc := range []struct {
		name string
		edit func(f *Fuzz)
		want string
	}{
		{"report-dir", func(f *Fuzz) { f.Set = append(f.Set, Flag{Name: "report-dir"}) }, "--report-dir: fuzz --impl test checks one property"},
		{"coverage", func(f *Fuzz) { f.Coverage = true }, "--coverage: --impl test declares no combinations"},
		{"no profile", func(f *Fuzz) { f.Profile = "" }, "--impl needs --profile"},
		{"steps", func(f *Fuzz) { f.Steps = 1 }, "--steps: --impl test does not fuzz in batches"},
		{"vocabulary", func(f *Fuzz) { f.Vocabulary = "bogus" }, "--status-vocabulary: "},
		{"cluster only", func(f *Fuzz) { f.Select = selecting(offline{err: impl.ErrUnsupported}) }, "--impl test runs only in a cluster"},
	} {
		g := f
		tc.edit(&g)
		var in exitcode.Input
		if _, err := g.differential(context.Background(), nil); !errors.As(err, &in) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v (%T), want an exitcode.Input with %q", tc.name, err, err, tc.want)
		}
	}
	// Could not start: the environment's (exit 3), or a file of the
	// user's (exit 2; input.EnvironmentOr).
	f.Select = selecting(offline{err: errors.New("no docker")})
	if _, err := f.differential(context.Background(), nil); err == nil || exitcode.Of(err) != exitcode.Internal {
		t.Errorf("an implementation that cannot start: %v (%T), want the environment's error", err, err)
	}
	f.Select = selecting(offline{err: fs.ErrNotExist})
	if _, err := f.differential(context.Background(), nil); exitcode.Of(err) != exitcode.BadInput {
		t.Errorf("an implementation that misses a file: %v (%T), want bad input", err, err)
	}
}
