// Package conformance is gepcheck's entry point for an implementation's own
// `go test`, as Gateway API's conformance suite is: it runs gepcheck's
// scenario catalogue (or the implementation's own scenarios) against the
// implementation's controller in a cluster, or its offline translator,
// compares each with gepcheck's reference engine, reports every scenario
// as a subtest, and writes the reports people publish (docs/reports.md).
//
//	func TestPolicyAttachment(t *testing.T) {
//		conformance.Run(t, conformance.Options{
//			Implementation: report.Implementation{Name: "mine", Organization: "me", Project: "mine", URL: "https://example.com/mine", Version: "v1.0.0", Contact: []string{"@me"}},
//			InCluster:      myimpl.InCluster{}, Kubeconfig: os.Getenv("KUBECONFIG"),
//			ReportDir:      "conformance-reports",
//		})
//	}
package conformance

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/features"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
	"pgregory.net/rapid"
)

// Options say what to run and where.
type Options struct {
	// Implementation says who runs, for the reports; Name is required.
	Implementation report.Implementation
	// Offline, when set, is the implementation's offline form (a
	// translator): the scenarios run through it.
	Offline observe.Observer
	// InCluster, when set (and Offline is not), is the implementation in
	// a cluster: Cluster, or the cluster of Kubeconfig and Context.
	InCluster           incluster.Implementation
	Cluster             *cluster.Cluster
	Kubeconfig, Context string
	// StartController starts the implementation's controller as a local
	// process (incluster.Implementation.Start); leave it false when the
	// controller already runs in the cluster.
	StartController bool
	// Scenarios are scenario files or directories; empty: gepcheck's
	// catalogue (scenarios.WriteCatalogue).
	Scenarios []string
	// Skip names scenarios not to run: a scenario's metadata.name, or its
	// file's name without .yaml.
	Skip []string
	// Features, when set, are the features the implementation supports
	// (policy kinds, features.SectionName, …): scenarios needing another
	// are skipped. Default: its capabilities' own.
	Features features.Set
	// Semantics is the reading of GEP-713 the implementation claims
	// (docs/semantics.md); default: its capabilities' own.
	Semantics engine.Semantics
	// Vocabulary is the status vocabulary the implementation claims
	// (merged GEP-713's or its draft's, docs/semantics.md); default: its
	// capabilities' own.
	Vocabulary engine.Vocabulary
	// StepTimeout bounds each step of a scenario in a cluster (default
	// 30s).
	StepTimeout time.Duration
	// ReportDir, when set, gets the reports, in
	// ReportDir/<implementation>/<version>/.
	ReportDir string
	// Random, when its Count is set, adds random cases to the scenarios.
	Random Random
}

// Random cases are drawn by gepcheck's generators for a profile, as
// gepcheck fuzz (offline) and gepcheck run --random (in a cluster) draw
// them: case i from seed Seed+i, in a namespace of its own.
type Random struct {
	// Count cases; 0: none.
	Count int
	// Seed of the first case; 0: from the clock (logged, with the
	// command that replays the cases).
	Seed uint64
	// Profile the cases are drawn for: the policy kind and how the
	// implementation documents it (gepcheck profiles; an implementation's
	// own from its plug-in). Default: color-inherited.
	Profile string
	// Steps, when set, gives each case up to this many changes over time
	// (gepcheck gen --steps).
	Steps int
}

func (r Random) profile() string {
	if r.Profile == "" {
		return "color-inherited"
	}
	return r.Profile
}

// seed is r's seed, drawn from the clock and logged when unset.
func (r *Random) seed(t *testing.T) {
	if r.Seed == 0 {
		r.Seed = uint64(time.Now().UnixNano()%1_000_000_000) + 1
	}
	t.Logf("random cases: %d of profile %s from seed %d (replay: conformance.Random{Count: %d, Seed: %d, Profile: %q, Steps: %d})",
		r.Count, r.profile(), r.Seed, r.Count, r.Seed, r.profile(), r.Steps)
}

// Run runs the scenarios of o as subtests of t, one per scenario (and,
// offline, one per step of a scenario with steps): a subtest fails with
// the differences from the reference, or is skipped with the reason.
func Run(t *testing.T, o Options) {
	t.Helper()
	if o.Implementation.Name == "" {
		t.Fatal("conformance.Options.Implementation.Name is required")
	}
	files := o.Scenarios
	catalogue := len(files) == 0
	if catalogue {
		var err error
		if files, err = scenarios.WriteCatalogue(t.TempDir()); err != nil {
			t.Fatal(err)
		}
	}
	// Each file is read once (issue 32): its documents go to the
	// offline cases or the cluster plans.
	loaded, err := scenarios.LoadPolicy(files)
	if err != nil {
		t.Fatal(err)
	}
	loaded = slices.DeleteFunc(loaded, func(l scenarios.Loaded) bool { return skipped(o.Skip, l.File) })
	if catalogue {
		var unreadable map[string]error
		loaded, unreadable = Readable(loaded)
		for _, p := range slices.Sorted(maps.Keys(unreadable)) {
			t.Run(strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)), func(t *testing.T) { t.Skipf("not readable in this test binary: %v", unreadable[p]) })
		}
	}
	var res *report.Results
	switch {
	case o.Offline != nil:
		res = runOffline(t, o, loaded)
	case o.InCluster != nil:
		res = runInCluster(t, o, loaded)
	default:
		t.Fatal("conformance.Options: set Offline or InCluster")
	}
	if o.ReportDir != "" && res != nil {
		dir, err := report.Write(o.ReportDir, res)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("reports written to %s", dir)
	}
}

// Readable splits catalogue files, as read (scenarios.LoadPolicy), into
// those this binary reads and those it does not, with why (by file): the
// catalogue holds scenarios of implementations' own policy kinds, whose
// profiles only their plug-ins register.
func Readable(loaded []scenarios.Loaded) (readable []scenarios.Loaded, unreadable map[string]error) {
	unreadable = map[string]error{}
	for _, l := range loaded {
		err := l.Err
		if err == nil {
			_, err = simulator.Build(l.Docs, simulator.Options{})
		}
		if err != nil {
			unreadable[l.File] = err
			continue
		}
		readable = append(readable, l)
	}
	return readable, unreadable
}

// skipped says whether a scenario file is named in skip, by file name or
// scenario name (the scenario's name is its file's in the catalogue).
func skipped(skip []string, path string) bool {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return slices.ContainsFunc(skip, func(s string) bool { return s == base || strings.HasSuffix(s, "-"+base) || s == path })
}

// declared overrides an observer's features, semantics and status
// vocabulary.
type declared struct {
	observe.Observer
	features features.Set
	sem      engine.Semantics
	voc      engine.Vocabulary
}

func (d declared) Capabilities() observe.Capabilities {
	caps := d.Observer.Capabilities()
	if d.features != nil {
		caps.Features = d.features
	}
	if d.sem != "" {
		caps.Semantics = d.sem
	}
	if d.voc != "" {
		caps.Vocabulary = d.voc
	}
	return caps
}

func runOffline(t *testing.T, o Options, loaded []scenarios.Loaded) *report.Results {
	d := declared{Observer: o.Offline, features: o.Features, sem: o.Semantics, voc: o.Vocabulary}
	cases, err := observe.LoadedCases(loaded, nil)
	if err != nil {
		t.Fatal(err)
	}
	results, err := differential.Cases(context.Background(), d, cases)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		// Subtests are named as in a cluster: the scenario file's name
		// (and the step).
		t.Run(strings.Replace(filepath.Base(r.Name), ".yaml", "", 1), func(t *testing.T) {
			switch {
			case r.Skipped != "":
				t.Skip(r.Skipped)
			case len(r.Diff) > 0:
				t.Errorf("%s disagrees with the reference:\n  %s", o.Implementation.Name, strings.Join(compare.Strings(r.Diff), "\n  "))
			}
		})
	}
	res := report.NewResults(o.Implementation, "offline", o.Semantics, d.Capabilities())
	res.Cases = report.OfflineCases(results, d.Capabilities(), func(file string) string {
		return "go test -run '" + t.Name() + "' (" + file + ")"
	})
	if o.Random.Count > 0 {
		if c := randomOffline(t, o, d); c != nil {
			res.Campaigns = []report.Campaign{*c}
		}
	}
	return res
}

// randomOffline runs o's random cases through d in batches, one subtest
// per kind of difference, failing with the case shrunk for it.
func randomOffline(t *testing.T, o Options, d observe.Observer) *report.Campaign {
	r := o.Random
	r.seed(t)
	prof := r.profile()
	// A profile with a generator of its own draws each case in a
	// namespace of its own, and cases go in batches; the others draw
	// scenarios that may span namespaces, one case at a time.
	batch := 0
	draw := func(i int) *rapid.Generator[*generators.Scenario] {
		g, _ := generators.For(prof, fmt.Sprintf("case-%d", i), 4)
		return g
	}
	if _, ok := generators.For(prof, "case-0", 4); !ok {
		cfg := generators.Config{Profile: prof}
		if err := cfg.Validate(); err != nil {
			t.Errorf("conformance.Random: %v", err)
			return nil
		}
		g := generators.Scenarios(cfg)
		batch = 1
		draw = func(int) *rapid.Generator[*generators.Scenario] { return g }
	}
	replay := fmt.Sprintf("go test -run '%s/random' (conformance.Random{Count: %d, Seed: %d, Profile: %q, Steps: %d})", t.Name(), r.Count, r.Seed, prof, r.Steps)
	c := &report.Campaign{Kind: prof, Profile: prof, Seed: r.Seed, Steps: r.Steps, Replay: replay}
	var log strings.Builder
	type finding struct {
		kind     compare.Found
		scenario string
		diff     []compare.Difference
	}
	var found []finding
	sum, err := differential.Fuzz(context.Background(), differential.Run{Observer: d, Profile: prof, Checks: r.Count, Steps: r.Steps, Batch: batch, Replay: replay,
		Generate: func(i int) generators.Case {
			if r.Steps > 0 {
				return generators.Cases(draw(i), r.Steps).Example(int(r.Seed) + i)
			}
			return generators.Case{Scenario: draw(i).Example(int(r.Seed) + i)}
		}}, &log)
	if err != nil {
		t.Errorf("random cases: %v", err)
		return nil
	}
	c.Checks, c.Disagreed = sum.Checks, len(sum.Disagree)
	for _, f := range sum.Findings {
		found = append(found, finding{f.Kind, string(f.Small.Case.YAML()), f.Small.Diff})
	}
	t.Run("random", func(t *testing.T) {
		t.Logf("%d random cases, %d disagree with the reference", c.Checks, c.Disagreed)
		for _, f := range found {
			c.Findings = append(c.Findings, report.CampaignFinding{Kind: f.kind, Differences: compare.Strings(f.diff), Scenario: f.scenario, Profiles: []string{prof}})
			t.Run(f.kind.String(), func(t *testing.T) {
				t.Errorf("%s disagrees with the reference:\n  %s\nshrunk case:\n%s", o.Implementation.Name, strings.Join(compare.Strings(f.diff), "\n  "), f.scenario)
			})
		}
	})
	return c
}

// declaredInCluster overrides an implementation's features, semantics and
// status vocabulary.
type declaredInCluster struct {
	incluster.Implementation
	features features.Set
	sem      engine.Semantics
	voc      engine.Vocabulary
}

func (d declaredInCluster) Capabilities() incluster.Capabilities {
	caps := d.Implementation.Capabilities()
	if d.features != nil {
		caps.Features = d.features
	}
	if d.sem != "" {
		caps.Semantics = d.sem
	}
	if d.voc != "" {
		caps.Vocabulary = d.voc
	}
	return caps
}

func runInCluster(t *testing.T, o Options, loaded []scenarios.Loaded) *report.Results {
	ctx := context.Background()
	im := declaredInCluster{Implementation: o.InCluster, features: o.Features, sem: o.Semantics, voc: o.Vocabulary}
	c := o.Cluster
	if c == nil {
		var err error
		if c, err = cluster.FromKubeconfig(o.Kubeconfig, o.Context); err != nil {
			t.Fatal(err)
		}
		if err := c.Reachable(ctx, cluster.Timeouts.Reachable); err != nil {
			t.Fatal(err)
		}
	}
	if err := incluster.InstallCRDs(ctx, c, im); err != nil {
		t.Fatal(err)
	}
	if o.StartController {
		stop, err := im.Start(ctx, c, t.TempDir(), func(s string) { t.Log(s) })
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
	}
	k, err := cluster.NewKube(c)
	if err != nil {
		t.Fatal(err)
	}
	timeout := o.StepTimeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	if o.Random.Count > 0 {
		// Random cases are files as gepcheck gen prints them, run as
		// the scenarios are (not shrunk here: gepcheck run --cluster
		// --random shrinks them).
		r := o.Random
		r.seed(t)
		dir := t.TempDir()
		for i := range r.Count {
			seed := int(r.Seed) + i
			data, err := generators.Print(generators.PrintOptions{Seed: seed, Profile: r.profile(), Steps: r.Steps})
			if err != nil {
				t.Fatalf("conformance.Random: %v", err)
			}
			name := filepath.Join(dir, fmt.Sprintf("random-%s-%d.yaml", r.profile(), seed))
			if err := os.WriteFile(name, data, 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := scenarios.LoadPolicy([]string{name})
			if err != nil {
				t.Fatal(err)
			}
			loaded = append(loaded, l...)
		}
	}
	run := fmt.Sprintf("gt%d", time.Now().UnixNano()%100000)
	r := &incluster.Runner{Kube: k, Impl: im, Run: run, Opts: incluster.Options{StepTimeout: timeout}}
	var results []incluster.Result
	for i, l := range loaded {
		p, err := incluster.PlanOf(l, incluster.TargetFor(im, run, i))
		if err != nil {
			t.Errorf("%s: %v", l.File, err)
			continue
		}
		var res incluster.Result
		t.Run(p.Name, func(t *testing.T) {
			a := &incluster.Applied{Plan: p, Case: p}
			if p.Skip == "" {
				a = r.Apply(ctx, p, 0)
			}
			res = r.Verify(ctx, a)
			if err := r.Delete(ctx, p, i); err != nil {
				t.Errorf("deleting what the scenario created: %v", err)
			}
			switch res.Outcome {
			case incluster.Skip:
				t.Skip(res.Reason)
			case incluster.Fail, incluster.Error:
				t.Errorf("%s%s disagrees with the reference:\n  %s", at(res.Label()), o.Implementation.Name, strings.Join(append([]string{res.Reason}, compare.Strings(res.Diff)...), "\n  "))
			}
		})
		results = append(results, res)
	}
	caps := im.Capabilities().Capabilities
	out := report.NewResults(o.Implementation, "cluster", o.Semantics, caps)
	out.Cases = report.ClusterCases(results, func(file string) string {
		return "go test -run '" + t.Name() + "' (" + file + ")"
	}, caps)
	return out
}

func at(step string) string {
	if step == "" {
		return ""
	}
	return step + ": "
}
