// Package providers chooses a cluster by name, as kind's cluster.NewProvider
// does: local (a control plane gepcheck builds and starts), kind (needs
// Docker or Podman), or kubeconfig (any existing cluster).
package providers

import (
	"context"
	"fmt"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/cluster/kind"
	"github.com/gepcheck/gepcheck/cluster/local"
)

// Names lists the providers.
var Names = []string{"local", "kind", "kubeconfig"}

// Options configure Connect.
type Options struct {
	// Kubeconfig and Context select a cluster for kubeconfig.
	Kubeconfig, Context string
	// KindName names the kind cluster.
	KindName string
	// Log receives progress lines.
	Log func(string)
}

// Provider connects to a cluster, starting it when it is gepcheck's to
// start; the cluster's Stop releases what Connect started.
type Provider func(ctx context.Context, o Options) (*cluster.Cluster, error)

// Lookup returns the provider called name ("" is kubeconfig).
func Lookup(name string) (Provider, error) {
	switch name {
	case "local":
		return func(ctx context.Context, o Options) (*cluster.Cluster, error) {
			return local.Start(ctx, local.Options{Log: o.Log})
		}, nil
	case "kind":
		return func(ctx context.Context, o Options) (*cluster.Cluster, error) {
			return kind.Connect(ctx, o.KindName, o.Log)
		}, nil
	case "kubeconfig", "":
		return func(ctx context.Context, o Options) (*cluster.Cluster, error) {
			c, err := cluster.FromKubeconfig(o.Kubeconfig, o.Context)
			if err != nil {
				return nil, err
			}
			return c, c.Reachable(ctx, cluster.Timeouts.Reachable)
		}, nil
	}
	return nil, fmt.Errorf("--cluster %q: one of local, kind, kubeconfig", name)
}
