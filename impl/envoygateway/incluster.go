package envoygateway

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/impl/internal/controller"
	"github.com/gepcheck/gepcheck/impl/internal/gatewayapi"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// InCluster is Envoy Gateway's controller in the cluster. Its conditions
// are read from each policy's status ancestors, as the translator's are
// from egctl (PolicyStatus); its effective settings, once Start has run
// it, from the xDS it serves to each Gateway's proxy, read as egctl's xDS
// is (ReadXDS).
type InCluster struct {
	// Version of Envoy Gateway whose controller and CRDs are used.
	Version string
	// XDS reads Envoy Gateway's xDS server; nil when gepcheck did not
	// start the controller (it has no proxy certificate then), and
	// effective settings are not compared.
	XDS *XDS
}

// Name implements incluster.Implementation.
func (*InCluster) Name() string { return "envoy-gateway" }

// ControllerName implements incluster.Implementation.
func (*InCluster) ControllerName() string { return ControllerName }

// Capabilities implements incluster.Implementation: Envoy Gateway writes
// Accepted, not GEP-713's Enforced; effective settings are compared when
// gepcheck started the controller (and so can read its xDS); it programs a
// route's settings only when its backends have endpoints.
func (e *InCluster) Capabilities() incluster.Capabilities {
	caps := (&Translator{}).Capabilities()
	caps.IgnoresCreationTimestamps = false // the controller reads stored objects
	return incluster.Capabilities{Capabilities: caps, Effective: e.XDS != nil, Endpoints: true}
}

// CRDs implements incluster.Implementation.
func (e *InCluster) CRDs(ctx context.Context) ([]*unstructured.Unstructured, error) {
	return CRDs(ctx, e.Version)
}

// NamespaceAnnotations implements incluster.Implementation: none.
func (*InCluster) NamespaceAnnotations([]string, string) map[string]string { return nil }

// Start implements incluster.Implementation.
func (e *InCluster) Start(ctx context.Context, c *cluster.Cluster, logDir string, log func(string)) (func(), error) {
	p, err := Start(ctx, c, Options{Version: e.Version, Dir: logDir, Log: log})
	if err != nil {
		return nil, err
	}
	e.XDS = p.XDS
	return p.Stop, nil
}

// Expectation implements Implementation: aggregated policy conditions;
// effective settings are compared on the fields the driver reads back
// (Capabilities.Readable).
func (*InCluster) Expectation(name string, out *simulator.Output) observe.Observation {
	return controller.Expectation(name, out)
}

// Observe implements Implementation.
func (e *InCluster) Observe(ctx context.Context, k *cluster.Kube, p *incluster.Plan) (observe.Observation, error) {
	o := observe.Observation{Name: p.Name, Policies: []observe.Status{}, Effective: []observe.Path{}}
	if e.XDS != nil {
		cs := gatewayapi.Index(gatewayapi.Objects(p.Objects), ControllerName)
		proxies := map[string]any{}
		for _, gw := range cs.Gateways {
			ns, name, _ := strings.Cut(gw, "/")
			cfg, err := e.XDS.Fetch(ctx, ns, name)
			if err != nil {
				return o, err
			}
			proxies[gw] = cfg
		}
		o.Reached = cs.Reached
		ReadXDS(map[string]any{"xds": proxies}, cs.Ports, cs.At(&o))
	}
	// Every controller's ancestor entries, as PolicyStatus reads them.
	stored, err := controller.Policies(ctx, k, p, "", simulator.AncestorsPerGateway, &o)
	if err != nil {
		return o, err
	}
	if e.XDS != nil {
		gatewayapi.MarkUnreported(&o, stored, ControllerName)
	}
	o.Normalize()
	return o, nil
}
