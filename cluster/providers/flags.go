package providers

import (
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"

	"github.com/gepcheck/gepcheck/cluster"
)

// Flags are the command-line flags that select a cluster (docs/cluster.md):
// --kubeconfig and --context, and for a command that can start one,
// --cluster and --kind-cluster.
type Flags struct {
	// Provider is --cluster: one of Names ("" with no --cluster).
	Provider            string
	Kubeconfig, Context string
	KindName            string
}

// AddFlags adds --kubeconfig and --context to fs, and with withProvider
// --cluster and --kind-cluster.
func (f *Flags) AddFlags(fs *pflag.FlagSet, withProvider bool) {
	if withProvider {
		fs.StringVar(&f.Provider, "cluster", "", "run in a cluster: local (a control plane gepcheck builds and starts), kind (sigs.k8s.io/kind, needs Docker), or kubeconfig (any existing cluster)")
		fs.StringVar(&f.KindName, "kind-cluster", "gepcheck", "name of the kind cluster, for --cluster kind")
	}
	fs.StringVar(&f.Kubeconfig, "kubeconfig", "", "kubeconfig file (default: KUBECONFIG, ~/.kube/config)")
	fs.StringVar(&f.Context, "context", "", "kubeconfig context (default: the current one)")
}

// Options are the Options of the flags, logging to logf.
func (f *Flags) Options(logf func(string)) Options {
	return Options{Kubeconfig: f.Kubeconfig, Context: f.Context, KindName: f.KindName, Log: logf}
}

// RESTConfig is the client configuration of the cluster --kubeconfig and
// --context name, and its name (cluster.FromKubeconfig).
func (f *Flags) RESTConfig() (*rest.Config, string, error) {
	c, err := cluster.FromKubeconfig(f.Kubeconfig, f.Context)
	if err != nil {
		return nil, "", err
	}
	return c.Config, c.Name, nil
}
