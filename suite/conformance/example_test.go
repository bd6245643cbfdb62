package conformance_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/cluster/local/localtest"
	"github.com/gepcheck/gepcheck/impl/reference"
	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite/conformance"
	"github.com/gepcheck/gepcheck/suite/incluster"
	confv1 "sigs.k8s.io/gateway-api/conformance/apis/v1"
)

// TestLocalConformanceReference is what an implementation writes in its
// own repository (docs/reports.md, A go test entry point), run against
// gepcheck-reference on the local control plane: gepcheck's catalogue and
// four random cases, one subtest each, and the reports. Every scenario the reference
// serves passes; the ConformanceReport decodes with the upstream types.
func TestLocalConformanceReference(t *testing.T) {
	c := localtest.Start(t, reference.CRDs(), gotool.KubeControllerManager)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := (&reference.Controller{Config: c.Config}).Run(ctx); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })

	dir := t.TempDir()
	parsed, stop := load.CountParses()
	conformance.Run(t, conformance.Options{
		Implementation: who,
		InCluster:      reference.InCluster{}, Cluster: c,
		Random:    conformance.Random{Count: 4, Seed: 1},
		ReportDir: dir,
	})
	stop()
	// Each file, of the catalogue Run writes and of the random cases,
	// parsed once: the plans carry the documents (issue 32). The
	// expectations are computed from the objects read back from the
	// cluster (Applied.Expect), no scenario file.
	delete(parsed, load.StdinName)
	cat, err := scenarios.WriteCatalogue(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files, err := scenarios.Files(cat)
	if err != nil {
		t.Fatal(err)
	}
	for f, n := range parsed {
		if n != 1 {
			t.Errorf("%s parsed %d times, want once", f, n)
		}
	}
	if len(parsed) != len(files)+4 {
		t.Errorf("%d files parsed, want the catalogue's %d and the 4 random cases", len(parsed), len(files))
	}

	rep := readReport(t, dir)
	if p := rep.ProfileReports[0]; p.Core.Failed != 0 {
		t.Errorf("core: %+v", p.Core)
	}
	expectResults(t, dir, 4)
}

// expectResults holds the results Run wrote into dir to the catalogue
// (localtest.ExpectCatalogue: every scenario that applies to
// gepcheck-reference passes, each skip has a named reason) and the random
// cases, all passed.
func expectResults(t *testing.T, dir string, random int) {
	t.Helper()
	res, err := report.ReadResults(filepath.Join(dir, "reference", "main", "results-cluster.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The catalogue as Run reads it, written again here: its files are
	// matched by directory and name.
	cat, err := scenarios.WriteCatalogue(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	all, err := scenarios.LoadPolicy(cat)
	if err != nil {
		t.Fatal(err)
	}
	readable, unreadable := conformance.Readable(all)
	key := func(f string) string { return filepath.Join(filepath.Base(filepath.Dir(f)), filepath.Base(f)) }
	at := map[string]string{}
	var files []string
	for _, l := range readable {
		at[key(l.File)] = l.File
		files = append(files, l.File)
	}
	var ran []incluster.Ran
	passedRandom := 0
	for _, c := range res.Cases {
		if strings.HasPrefix(filepath.Base(c.File), "random-") {
			if c.Outcome == report.Passed {
				passedRandom++
			}
			continue
		}
		f, ok := at[key(c.File)]
		if !ok {
			f = c.File // not a catalogue file: Expect says so
		}
		ran = append(ran, incluster.Ran{File: f, Outcome: outcomes[c.Outcome], Reason: c.Reason})
	}
	if passedRandom != random {
		t.Errorf("%d random cases passed, want %d", passedRandom, random)
	}
	skipped := localtest.ExpectCatalogue(t, files, ran, incluster.TargetFor(reference.InCluster{}, "gt", 0))
	// Unreadable here: Envoy Gateway's own kinds, whose profiles its
	// plug-in registers (docs/reports.md, A go test entry point).
	for f, err := range unreadable {
		if !strings.Contains(err.Error(), "profile") {
			t.Errorf("%s is not readable for another reason than an unregistered profile: %v", f, err)
		}
	}
	t.Logf("catalogue: %d policy scenario files, %d passed, %d skipped, %d not readable without their implementation's plug-in; %d random cases passed",
		len(all), len(files)-skipped, skipped, len(unreadable), passedRandom)
}

// outcomes are the results files' outcomes as a cluster run has them.
var outcomes = map[string]incluster.Outcome{report.Passed: incluster.Pass, report.Failed: incluster.Fail, report.Skipped: incluster.Skip, report.Errored: incluster.Error}

// readReport decodes, with the upstream types in strict mode, the one
// ConformanceReport Run wrote into dir for gepcheck-reference.
func readReport(t *testing.T, dir string) *confv1.ConformanceReport {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "reference", "main", "*-report.yaml"))
	if len(files) != 1 {
		t.Fatalf("reports: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	rep, err := report.DecodeConformanceReport(data)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
