package contour

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

func (plugin) Name() string { return "contour" }

func (plugin) Doc() string {
	return "Contour's contour serve in a cluster, one per Gateway, built and cached by gepcheck; no offline form"
}

func (plugin) Configure(fs *pflag.FlagSet) impl.Config {
	c := &config{}
	fs.StringVar(&c.version, "contour-version", Version, "Contour version to build and run")
	return c
}

type config struct{ version string }

// Offline implements impl.Config: Contour has no offline translator.
func (*config) Offline(context.Context) (observe.Observer, error) {
	return nil, fmt.Errorf("contour offline: %w (run it in a cluster: --cluster local)", impl.ErrUnsupported)
}

// InCluster implements impl.Config.
func (c *config) InCluster(context.Context) (incluster.Implementation, error) {
	return &InCluster{Version: c.version}, nil
}

// Who implements impl.Reporter.
func (c *config) Who() impl.Who {
	return impl.Who{Organization: "projectcontour", Project: "contour", URL: "https://github.com/projectcontour/contour", Version: c.version,
		Contact: []string{"https://github.com/projectcontour/contour/issues/new/choose"}}
}

// Tools implements impl.Tooled: contour.
func (c *config) Tools() []impl.Tool {
	t := Tool(c.version)
	return []impl.Tool{{Name: t.Name, Version: t.Version, Build: t.Build}}
}

// FuzzKinds implements differential.Fuzzer: random cases in a cluster
// (run --cluster --random) draw Gateway API's BackendTLSPolicy.
func (*config) FuzzKinds() []differential.FuzzKind {
	return []differential.FuzzKind{{Kind: "BackendTLSPolicy", Profile: "backendtlspolicy-gateway-api"}}
}

// Describe implements differential.Fuzzer.
func (c *config) Describe() string {
	return "contour " + c.version + " (contour serve, one per Gateway)"
}

// ReplayFlags implements differential.Fuzzer: the version, always (a
// replay must run the version reported, whatever gepcheck pins when it
// is read).
func (c *config) ReplayFlags() []string {
	return []string{"--contour-version", c.version}
}

// ProfileSource implements differential.Fuzzer.
func (*config) ProfileSource() string {
	return "Gateway API's BackendTLSPolicy reference (docs/semantics.md, Which None policies conflict)"
}
