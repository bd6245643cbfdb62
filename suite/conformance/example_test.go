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
	conformance.Run(t, conformance.Options{
		Implementation: who,
		InCluster:      reference.InCluster{}, Cluster: c,
		Random:    conformance.Random{Count: 4, Seed: 1},
		ReportDir: dir,
	})

	rep := readReport(t, dir)
	if p := rep.ProfileReports[0]; p.Core.Passed < 20 || p.Core.Failed != 0 {
		t.Errorf("core: %+v", p.Core)
	}
}

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
	rep, err := reports.DecodeConformanceReport(data)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
