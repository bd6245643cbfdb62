// Package kind provides clusters from sigs.k8s.io/kind, through
// sigs.k8s.io/e2e-framework's kind provider (which installs the pinned
// kind with `go install` when it is not on PATH). It needs a container
// runtime (Docker or Podman); see docs/cluster.md.
package kind

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	e2ekind "sigs.k8s.io/e2e-framework/support/kind"

	"github.com/gepcheck/gepcheck/cluster"
	kindconfig "github.com/gepcheck/gepcheck/kind-config"
)

// Version of kind the provider installs.
const Version = "v0.33.0"

// Connect creates the kind cluster name from kind-config/cluster.yaml,
// or reuses it when it exists, and connects to it. The cluster outlives
// the run: Delete (make kind-down) removes it.
func Connect(ctx context.Context, name string, logf func(string)) (*cluster.Cluster, error) {
	dir, err := os.MkdirTemp("", "gepcheck-kind-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cfg := filepath.Join(dir, "cluster.yaml")
	if err := os.WriteFile(cfg, kindconfig.Cluster, 0o644); err != nil {
		return nil, err
	}
	k := e2ekind.NewCluster(name).WithVersion(Version)
	if logf != nil {
		logf(fmt.Sprintf("kind cluster %s: creating (or reusing) with kind %s", name, Version))
	}
	kubeconfig, err := k.CreateWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("kind cluster %s: %w (kind needs a running Docker or Podman)", name, err)
	}
	c, err := cluster.FromKubeconfig(kubeconfig, "")
	if err != nil {
		return nil, err
	}
	c.Name = "kind-" + name
	return c, nil
}

// Delete deletes the kind cluster name.
func Delete(ctx context.Context, name string) error {
	return e2ekind.NewCluster(name).WithVersion(Version).Destroy(ctx)
}
