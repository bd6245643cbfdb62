package conformance_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/reports"
	"github.com/gepcheck/gepcheck/suite/cluster/local/localtest"
	"github.com/gepcheck/gepcheck/suite/conformance"
	"github.com/gepcheck/gepcheck/suite/impl/reference"
)

// TestLocalConformanceReference is what an implementation writes in its
// own repository (docs/reports.md, A go test entry point), run against
// gepcheck-reference on the local control plane: gepcheck's catalogue, one
// subtest per scenario, and the reports. Every scenario the reference
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
	conformance.Run(t, conformance.Options{
		Implementation: reports.Implementation{Name: "reference", Organization: "gepcheck", Project: "gepcheck-reference",
			URL: "https://github.com/gepcheck/gepcheck", Version: "main", Contact: []string{"https://github.com/gepcheck/gepcheck/issues"}},
		InCluster: reference.InCluster{}, Cluster: c,
		ReportDir: dir,
	})

	files, _ := filepath.Glob(filepath.Join(dir, "reference", "main", "*-report.yaml"))
	if len(files) != 1 {
		t.Fatalf("reports: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	rep, err := reports.DecodeConformanceReport(data)
	if err != nil {
		t.Fatal(err)
	}
	if p := rep.ProfileReports[0]; p.Core.Passed < 20 || p.Core.Failed != 0 {
		t.Errorf("core: %+v", p.Core)
	}
}
