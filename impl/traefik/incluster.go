package traefik

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/impl/internal/controller"
	"github.com/gepcheck/gepcheck/impl/internal/gatewayapi"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/features"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// InCluster is Traefik in a cluster: one Traefik serves every Gateway of
// its class. Policy conditions are read from each BackendTLSPolicy's
// status ancestors written by Traefik; effective settings from its
// provider's dynamic configuration (gepcheck-traefik-config).
type InCluster struct {
	// Version of Traefik built and run.
	Version string
	url     string
}

// Name implements incluster.Implementation.
func (*InCluster) Name() string { return "traefik" }

// ControllerName implements incluster.Implementation.
func (*InCluster) ControllerName() string { return ControllerName }

// Features are what Traefik serves of policy attachment: Gateway API's
// BackendTLSPolicy on a Service or one of its ports, the system CAs
// included.
var Features = features.Set{"BackendTLSPolicy", features.SectionName, features.WellKnownCACertificates}

// Capabilities implements incluster.Implementation: Traefik writes
// Accepted and ResolvedRefs per ancestor Gateway listener (v3.7.13,
// pkg/provider/kubernetes/gateway/httproute.go, loadHTTPServers: the
// ancestorRef's sectionName is the listener): both compared, in aggregate
// and per ancestor, under the reading of PolicyAncestorStatus it takes,
// one entry per Gateway listener (simulator.AncestorsPerListener;
// docs/semantics.md). It implements Gateway API's BackendTLSPolicy, so it
// is judged by that API's reading of conflicts (profile
// backendtlspolicy-gateway-api, docs/semantics.md); effective settings
// are compared once gepcheck started it, on the Service ports the input's
// routes reach; it programs a backend only with endpoints.
func (c *InCluster) Capabilities() incluster.Capabilities {
	return incluster.Capabilities{Capabilities: observe.Capabilities{
		Features:   Features,
		Conditions: []string{"Accepted", "ResolvedRefs"},
		// Of the policy conditions it writes BackendTLSPolicy's Accepted, no
		// Programmed or Enforced: the claim is moot.
		Vocabulary: engine.VocabularyMerged,
		// Its entries name the listener (sectionName), one per listener
		// a route through which uses the policy's Service.
		AncestorEntries: simulator.AncestorsPerListener,
		Profiles:        map[string]string{"BackendTLSPolicy": "backendtlspolicy-gateway-api"},
		Readable:        Readable,
		Observable: func(path []string, got *observe.Observation) bool {
			return len(path) > 0 && slices.Contains(got.Reached, path[len(path)-1])
		},
	}, Effective: c.url != "", Endpoints: true}
}

// Readable keeps the BackendTLSPolicy fields Traefik's servers transports
// show: validation.hostname (serverName), caCertificateRefs (rootCAs),
// wellKnownCACertificates (no rootCAs), and subjectAltNames unless they are
// the hostname alone (gatewayapi.ComparedSubjectAltNames). Traefik v3.7.13
// sets serverName to the policy's hostname and nothing of its
// subjectAltNames (pkg/provider/kubernetes/gateway/httproute.go,
// loadServersTransport), and Go's TLS client verifies the certificate
// against serverName (pkg/server/service/transport.go): a policy with
// subjectAltNames shows a subjectAltNames difference (GATEWAY-API-033),
// one without agrees (GATEWAY-API-032).
func Readable(spec map[string]any) map[string]any {
	v, _ := spec["validation"].(map[string]any)
	out := map[string]any{}
	for _, f := range []string{"hostname", "caCertificateRefs", "wellKnownCACertificates"} {
		if x, ok := v[f]; ok {
			out[f] = x
		}
	}
	if len(out) == 0 {
		return map[string]any{}
	}
	if sans := gatewayapi.ComparedSubjectAltNames(v); len(sans) > 0 {
		out["subjectAltNames"] = sans
	}
	return map[string]any{"validation": out}
}

// CRDs implements incluster.Implementation: Traefik's Gateway provider
// needs Gateway API's alone.
func (*InCluster) CRDs(context.Context) ([]*unstructured.Unstructured, error) { return nil, nil }

// NamespaceAnnotations implements incluster.Implementation: none.
func (*InCluster) NamespaceAnnotations([]string, string) map[string]string { return nil }

// Start implements incluster.Implementation.
func (c *InCluster) Start(ctx context.Context, cl *cluster.Cluster, logDir string, log func(string)) (func(), error) {
	p, err := Start(ctx, cl, c.Version, logDir, log)
	if err != nil {
		return nil, err
	}
	c.url = p.ConfigURL
	return p.Stop, nil
}

// Expectation implements incluster.Implementation.
func (*InCluster) Expectation(name string, out *simulator.Output) observe.Observation {
	return controller.Expectation(name, out)
}

// Observe implements incluster.Implementation.
func (c *InCluster) Observe(ctx context.Context, k *cluster.Kube, p *incluster.Plan) (observe.Observation, error) {
	o := observe.Observation{Name: p.Name, Policies: []observe.Status{}, Effective: []observe.Path{}}
	if c.url != "" {
		var routes []map[string]any
		for _, u := range p.Objects {
			if u.GetKind() == "HTTPRoute" {
				routes = append(routes, u.Object)
			}
		}
		cs := gatewayapi.Index(gatewayapi.Objects(p.Objects), ControllerName)
		o.Reached = cs.Reached
		cfg, err := fetchConfig(ctx, c.url)
		if err != nil {
			return o, err
		}
		readConfig(cfg, routes, cs.Ports, cs.CAs, cs.At(&o))
		cs.SameCA(&o, gatewayapi.Objects(p.PolicyObjects())) // the policies are not in p.Objects
	}
	stored, err := controller.Policies(ctx, k, p, ControllerName, simulator.AncestorsPerListener, &o)
	if err != nil {
		return o, err
	}
	if c.url != "" {
		gatewayapi.MarkUnreported(&o, stored, ControllerName)
	}
	o.Normalize()
	return o, nil
}
