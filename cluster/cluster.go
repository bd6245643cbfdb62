// Package cluster connects gepcheck to a Kubernetes cluster that holds the
// objects of a scenario: a kubeconfig, a kind cluster (package kind) or a
// local control plane (package local). It also installs CRDs and removes
// what gepcheck created, and only that, by label.
package cluster

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Labels gepcheck puts on everything it creates in a cluster. Cleanup
// selects on LabelManagedBy; nothing without it is ever modified or
// deleted.
const (
	LabelManagedBy = "gepcheck.dev/managed-by"
	ManagedBy      = "gepcheck"
	LabelRun       = "gepcheck.dev/run"
	LabelScenario  = "gepcheck.dev/scenario"
)

// Cluster is a connection to a running cluster.
type Cluster struct {
	// Name says which cluster this is, for messages ("local", a
	// kubeconfig context, "kind-gepcheck").
	Name string
	// Kubeconfig is the path of a kubeconfig file for it (controllers
	// started as local processes read it).
	Kubeconfig string
	Config     *rest.Config
	// Stop releases the cluster: stops a local control plane; nil for
	// clusters gepcheck did not start.
	Stop func() error
	// RestartAPIServer stops kube-apiserver and starts it again on the
	// same etcd, port and certificates, returning once it serves (the
	// apiserver fault, docs/faults.md); nil for clusters whose API
	// server gepcheck does not run.
	RestartAPIServer func(ctx context.Context) error
}

// FromKubeconfig connects to an existing cluster. An empty path means the
// usual rules (KUBECONFIG, ~/.kube/config); an empty context the current.
func FromKubeconfig(path, context string) (*Cluster, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if path != "" {
		rules.ExplicitPath = path
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	raw, err := cc.RawConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %w", err)
	}
	name := raw.CurrentContext
	if context != "" {
		name = context
	}
	file := path
	if file == "" && len(rules.GetLoadingPrecedence()) > 0 {
		file = rules.GetLoadingPrecedence()[0]
	}
	cfg.QPS, cfg.Burst = 50, 100
	return &Cluster{Name: name, Kubeconfig: file, Config: cfg}, nil
}

// Reachable checks that the API server answers, within timeout.
func (c *Cluster) Reachable(ctx context.Context, timeout time.Duration) error {
	cfg := rest.CopyConfig(c.Config)
	cfg.Timeout = timeout
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	if err := dc.RESTClient().Get().AbsPath("/readyz").Do(ctx).Error(); err != nil {
		return fmt.Errorf("cluster %s: API server not ready: %w", c.Name, err)
	}
	return nil
}
