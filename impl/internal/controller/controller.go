// Package controller holds what the plug-ins that run a controller in a
// cluster share (docs/implementations.md): the plug-in of one that has no
// offline form (Plugin), the expectation of one that writes no Affected
// conditions (Expectation), its policies' status read back (Policies),
// and CRDs read from its Go module (CRDs). A new controller plug-in is a
// Plugin value and the InCluster of what differs.
package controller

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/impl/internal/gatewayapi"
	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Plugin is an implementation that runs in a cluster only, at a version
// chosen with --NAME-version.
type Plugin struct {
	// Name is --impl's value; Project names it in the help,
	// e.g. "Contour".
	Name, Project, Doc string
	// Version is the version built and run by default.
	Version string
	// Who is who makes the implementation (impl.Reporter), at version.
	Who func(version string) impl.Who
	// Tools are what gepcheck builds of it at version (impl.Tooled).
	Tools func(version string) []impl.Tool
	// InCluster is the implementation at version.
	InCluster func(version string) incluster.Implementation
	// Describe names what runs at version (differential.Fuzzer).
	Describe func(version string) string
	// FuzzKinds and ProfileSource are differential.Fuzzer's.
	FuzzKinds     []differential.FuzzKind
	ProfileSource string
}

// Register registers p (impl.Register).
func Register(p Plugin) { impl.Register(plugin{p}) }

type plugin struct{ p Plugin }

func (g plugin) Name() string { return g.p.Name }

func (g plugin) Doc() string { return g.p.Doc }

func (g plugin) Configure(fs *pflag.FlagSet) impl.Config {
	c := &config{p: &g.p}
	fs.StringVar(&c.version, g.p.Name+"-version", g.p.Version, g.p.Project+" version to build and run")
	return c
}

type config struct {
	p       *Plugin
	version string
}

// Offline implements impl.Config: there is no offline translator.
func (c *config) Offline(context.Context) (observe.Observer, error) {
	return nil, fmt.Errorf("%s offline: %w (run it in a cluster: --cluster local)", c.p.Name, impl.ErrUnsupported)
}

// InCluster implements impl.Config.
func (c *config) InCluster(context.Context) (incluster.Implementation, error) {
	return c.p.InCluster(c.version), nil
}

// Who implements impl.Reporter.
func (c *config) Who() impl.Who { return c.p.Who(c.version) }

// Tools implements impl.Tooled.
func (c *config) Tools() []impl.Tool { return c.p.Tools(c.version) }

// FuzzKinds implements differential.Fuzzer.
func (c *config) FuzzKinds() []differential.FuzzKind { return c.p.FuzzKinds }

// Describe implements differential.Fuzzer.
func (c *config) Describe() string { return c.p.Describe(c.version) }

// ReplayFlags implements differential.Fuzzer: the version, always (a
// replay must run the version reported, whatever gepcheck pins when it
// is read).
func (c *config) ReplayFlags() []string { return []string{"--" + c.p.Name + "-version", c.version} }

// ProfileSource implements differential.Fuzzer.
func (c *config) ProfileSource() string { return c.p.ProfileSource }

// Expectation is incluster.Implementation's Expectation of a controller
// that writes no Affected conditions: the reference's aggregated policy
// conditions and effective settings.
func Expectation(name string, out *simulator.Output) observe.Observation {
	o := observe.FromOutput(name, out)
	o.Targets = nil
	return o
}

// Policies reads back the status controller wrote on each policy of p
// (gatewayapi.PolicyStatusAs, entries per ancestor) into o, and returns
// the policies as stored.
func Policies(ctx context.Context, k *cluster.Kube, p *incluster.Plan, controller string, entries simulator.AncestorEntries, o *observe.Observation) ([]*unstructured.Unstructured, error) {
	var stored []*unstructured.Unstructured
	for _, u := range p.PolicyObjects() {
		got, err := k.Get(ctx, u)
		if err != nil {
			return stored, err
		}
		o.Policies = append(o.Policies, gatewayapi.PolicyStatusAs(u.GetKind(), got.Object, controller, entries))
		stored = append(stored, got)
	}
	return stored, nil
}

// CRDs reads the CRDs in the directory dir (slash-separated) of module
// at version.
func CRDs(ctx context.Context, module, version, dir string) ([]*unstructured.Unstructured, error) {
	root, err := gotool.ModuleDir(ctx, module, version)
	if err != nil {
		return nil, err
	}
	return cluster.ReadCRDs(filepath.Join(append([]string{root}, strings.Split(dir, "/")...)...))
}
