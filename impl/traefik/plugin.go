package traefik

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

func init() { impl.Register(plugin{}) }

type plugin struct{}

func (plugin) Name() string { return "traefik" }

func (plugin) Doc() string {
	return "Traefik with its Kubernetes Gateway provider in a cluster, built and cached by gepcheck; no offline form"
}

func (plugin) Configure(fs *pflag.FlagSet) impl.Config {
	c := &config{}
	fs.StringVar(&c.version, "traefik-version", Version, "Traefik version to build and run")
	return c
}

type config struct{ version string }

// Offline implements impl.Config: Traefik has no offline translator.
func (*config) Offline(context.Context) (observe.Observer, error) {
	return nil, fmt.Errorf("traefik offline: %w (run it in a cluster: --cluster local)", impl.ErrUnsupported)
}

// InCluster implements impl.Config.
func (c *config) InCluster(context.Context) (incluster.Implementation, error) {
	return &InCluster{Version: c.version}, nil
}

// Who implements impl.Reporter.
func (c *config) Who() impl.Who {
	return impl.Who{Organization: "traefik", Project: "traefik", URL: "https://github.com/traefik/traefik", Version: c.version,
		Contact: []string{"https://github.com/traefik/traefik/issues/new/choose"}}
}

// Tools implements impl.Tooled: traefik (and its configuration reader).
func (c *config) Tools() []impl.Tool {
	t := Tool(c.version)
	return []impl.Tool{{Name: t.Name, Version: t.Version, Build: func(ctx context.Context, log func(string)) (string, error) {
		return Build(ctx, c.version, log)
	}}}
}

// FuzzKinds implements differential.Fuzzer: random cases in a cluster
// draw Gateway API's BackendTLSPolicy.
func (*config) FuzzKinds() []differential.FuzzKind {
	return []differential.FuzzKind{{Kind: "BackendTLSPolicy", Profile: "backendtlspolicy-gateway-api"}}
}

// Describe implements differential.Fuzzer.
func (c *config) Describe() string { return "traefik " + c.version + " (Kubernetes Gateway provider)" }

// ReplayFlags implements differential.Fuzzer: the version, always (a
// replay must run the version reported, whatever gepcheck pins when it
// is read).
func (c *config) ReplayFlags() []string {
	return []string{"--traefik-version", c.version}
}

// ProfileSource implements differential.Fuzzer.
func (*config) ProfileSource() string {
	return "Gateway API's BackendTLSPolicy reference (docs/semantics.md, Which None policies conflict)"
}
