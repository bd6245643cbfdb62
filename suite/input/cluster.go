package input

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// Cluster is a live cluster read as the input, read-only (docs/cluster.md,
// Reading a cluster): --kubeconfig, --context, -n and -A of
// --from-cluster.
type Cluster struct {
	Kubeconfig, Context string
	Namespace           string // -n: the namespace read ("": the context's)
	AllNamespaces       bool   // -A: every namespace
	// covers is what the read took in, once read (cluster.ReadOptions.Covers).
	covers func(group, kind, namespace string) bool
}

// ApplyNamespace is the namespace applied files without one go to: as
// kubectl apply -f puts them, -n's, else the kubeconfig context's, else
// default, also when -A reads every namespace (kubectl apply has no -A).
func (c *Cluster) ApplyNamespace() string {
	if c.Namespace != "" {
		return c.Namespace
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if c.Kubeconfig != "" {
		rules.ExplicitPath = c.Kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: c.Context})
	if ns, _, err := cc.Namespace(); err == nil && ns != "" {
		return ns
	}
	return "default"
}

// RefNamespace is the namespace of a KIND/NAME reference read from the
// cluster: -n, else the namespace read, as kubectl reads it; empty with
// -A (ref.Kubectl then defaults).
func (c *Cluster) RefNamespace() string {
	if c.Namespace == "" && !c.AllNamespaces {
		return c.ApplyNamespace()
	}
	return c.Namespace
}

// read reads the cluster's objects for opts: the documents, as a file's
// would be loaded. A signal stops the read, exit 2.
func (c *Cluster) read(opts simulator.Options) ([]*load.Doc, error) {
	ns := ""
	if !c.AllNamespaces {
		ns = c.ApplyNamespace()
	}
	o, err := cluster.ReadOptionsFor(opts, ns)
	if err != nil {
		return nil, exitcode.Input{Err: err}
	}
	cl, err := cluster.FromKubeconfig(c.Kubeconfig, c.Context)
	if err != nil {
		return nil, exitcode.Input{Err: err}
	}
	// Held only while the read watches it: it takes the signals'
	// default action (ending the process) away.
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelT()
	if err := cl.Reachable(ctx, 10*time.Second); err != nil {
		return nil, err
	}
	st, err := cluster.ReadState(ctx, cl, o)
	if err != nil {
		if ctx.Err() != nil {
			return nil, exitcode.Input{Err: fmt.Errorf("stopped: %v", context.Cause(ctx))}
		}
		return nil, EnvironmentOr(err)
	}
	c.covers = o.Covers
	return st.Docs, nil
}
