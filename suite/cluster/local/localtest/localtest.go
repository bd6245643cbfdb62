// Package localtest starts a local control plane for a test: the tests of
// implementations that need a real kube-apiserver (and etcd) with
// Gateway API's CRDs and their own.
package localtest

import (
	"context"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/internal/realtest"
	"github.com/gepcheck/gepcheck/suite/cluster"
	"github.com/gepcheck/gepcheck/suite/cluster/local"
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
