// Package localtest starts a local control plane for a test: the tests of
// implementations that need a real kube-apiserver (and etcd) with
// Gateway API's CRDs and their own.
package localtest

import (
	"context"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/cluster/local"
	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/internal/realtest"
	"github.com/gepcheck/gepcheck/suite/incluster"
)

// Start starts a local control plane with Gateway API's CRDs and crds,
// stopped when the test ends, or skips the test when one of tools (etcd
// and kube-apiserver always) is not built (make tools; make ci builds them,
// runs these tests and fails them instead: realtest.Missing).
func Start(t *testing.T, crds []*unstructured.Unstructured, tools ...gotool.Tool) *cluster.Cluster {
	t.Helper()
	for _, tool := range append([]gotool.Tool{gotool.Etcd, gotool.KubeAPIServer}, tools...) {
		p, _ := tool.Path()
		if _, err := os.Stat(p); err != nil {
			realtest.Missing(t, "%s is not built (make tools)", tool.Name)
		}
	}
	ctx := context.Background()
	c, err := local.Start(ctx, local.Options{Log: func(s string) { t.Log(s) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	gw, err := cluster.GatewayAPICRDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.InstallCRDs(ctx, append(gw, crds...)); err != nil {
		t.Fatal(err)
	}
	return c
}

// ExpectCatalogue fails t where a run of catalogue files is not what the
// catalogue says for target tg (incluster.Expect: every file that applies
// passes, each skip has a named reason), logs the skips by reason and
// returns how many there were.
func ExpectCatalogue(t testing.TB, files []string, ran []incluster.Ran, tg incluster.Target) int {
	t.Helper()
	skipped, problems := incluster.Expect(files, ran, tg)
	for _, p := range problems {
		t.Error(p)
	}
	n := 0
	for _, reason := range slices.Sorted(maps.Keys(skipped)) {
		n += len(skipped[reason])
		t.Logf("skipped, %s: %d (%s)", reason, len(skipped[reason]), strings.Join(skipped[reason], ", "))
	}
	return n
}
