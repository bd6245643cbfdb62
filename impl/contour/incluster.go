package contour

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/impl/internal/controller"
	"github.com/gepcheck/gepcheck/impl/internal/gatewayapi"
	"github.com/gepcheck/gepcheck/internal/jsonmap"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/features"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// InCluster is Contour in a cluster: a Provisioner runs one Contour per
// Gateway. Policy conditions are read from each BackendTLSPolicy's status
// ancestors written by Contour; effective settings from the clusters each
// Contour serves its Envoy.
type InCluster struct {
	// Version of Contour built and run.
	Version string
	prov    *Provisioner
}

// Name implements incluster.Implementation.
func (*InCluster) Name() string { return "contour" }

// ControllerName implements incluster.Implementation.
func (*InCluster) ControllerName() string { return ControllerName }

// Features are what Contour serves of policy attachment: Gateway API's
// BackendTLSPolicy, on a Service or one of its ports. It refuses
// wellKnownCACertificates (Accepted=False/Invalid, as Gateway API lets an
// implementation without that Implementation-specific support do).
var Features = features.Set{"BackendTLSPolicy", features.SectionName}

// Capabilities implements incluster.Implementation: Contour writes
// Accepted only; it claims Gateway API's reading of BackendTLSPolicy
// conflicts (a port's policy applies there instead of the whole
// Service's: docs/contour-and-traefik.md); its effective settings are
// read from xDS once gepcheck started it, for the Service ports the
// input's routes reach; it programs a backend only with endpoints.
func (c *InCluster) Capabilities() incluster.Capabilities {
	return incluster.Capabilities{Capabilities: observe.Capabilities{
		Features: Features,
		// Contour v1.33.8 writes Accepted alone on a BackendTLSPolicy's
		// ancestors (internal/dag/gatewayapi_processor.go): no
		// ResolvedRefs, which is not compared; Accepted is, also per
		// ancestor Gateway (observe.Status.Ancestors).
		Conditions: []string{"Accepted"},
		// Of the policy conditions it writes BackendTLSPolicy's Accepted, no
		// Programmed or Enforced: the claim is moot.
		Vocabulary: engine.VocabularyMerged,
		Profiles:   map[string]string{"BackendTLSPolicy": "backendtlspolicy-gateway-api"},
		Readable:   Readable,
		Observable: func(path []string, got *observe.Observation) bool {
			return len(path) > 0 && slices.Contains(got.Reached, path[len(path)-1])
		},
	}, Effective: c.prov != nil, Endpoints: true}
}

// Readable keeps the BackendTLSPolicy fields gepcheck compares for
// Contour (readClusters): validation.hostname and caCertificateRefs (Core
// support), and subjectAltNames unless they are the hostname alone
// (gatewayapi.ComparedSubjectAltNames). Contour v1.33.8 matches the
// hostname alone whatever the policy's subjectAltNames say
// (internal/dag/gatewayapi_processor.go, SubjectNames), which Gateway API
// v1 forbids once subjectAltNames are specified (GATEWAY-API-033): that
// shows as a subjectAltNames difference; a policy without subjectAltNames
// agrees (GATEWAY-API-032).
func Readable(spec map[string]any) map[string]any {
	v, _ := spec["validation"].(map[string]any)
	out := map[string]any{}
	for _, f := range []string{"hostname", "caCertificateRefs"} {
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

// CRDs implements incluster.Implementation.
func (c *InCluster) CRDs(ctx context.Context) ([]*unstructured.Unstructured, error) {
	return CRDs(ctx, c.Version)
}

// NamespaceAnnotations implements incluster.Implementation: none.
func (*InCluster) NamespaceAnnotations([]string, string) map[string]string { return nil }

// Start implements incluster.Implementation: a Provisioner.
func (c *InCluster) Start(ctx context.Context, cl *cluster.Cluster, logDir string, log func(string)) (func(), error) {
	p, err := Provision(ctx, cl, c.Version, logDir, log)
	if err != nil {
		return nil, err
	}
	c.prov = p
	return p.Stop, nil
}

// Expectation implements incluster.Implementation: aggregated policy
// conditions and effective settings, no Affected conditions.
func (*InCluster) Expectation(name string, out *simulator.Output) observe.Observation {
	return controller.Expectation(name, out)
}

// Observe implements incluster.Implementation.
func (c *InCluster) Observe(ctx context.Context, k *cluster.Kube, p *incluster.Plan) (observe.Observation, error) {
	o := observe.Observation{Name: p.Name, Policies: []observe.Status{}, Effective: []observe.Path{}}
	if c.prov != nil {
		cs := gatewayapi.Index(gatewayapi.Objects(p.Objects), ControllerName)
		o.Reached = cs.Reached
		for _, gw := range cs.Gateways {
			ns, name, _ := strings.Cut(gw, "/")
			x, err := c.prov.XDS(ctx, ns, name, cluster.Timeouts.Step)
			if err != nil {
				return o, err
			}
			cfg, err := x.Fetch(ctx)
			if err != nil {
				return o, err
			}
			readClusters(cfg, cs.Ports, cs.CAs, cs.At(&o))
		}
		cs.SameCA(&o, gatewayapi.Objects(p.PolicyObjects())) // the policies are not in p.Objects
	}
	stored, err := controller.Policies(ctx, k, p, ControllerName, simulator.AncestorsPerGateway, &o)
	if err != nil {
		return o, err
	}
	if c.prov != nil {
		gatewayapi.MarkUnreported(&o, stored, ControllerName)
	}
	o.Normalize()
	return o, nil
}

// readClusters reads BackendTLSPolicy settings from the clusters of a
// Contour's xDS (xds.Client.Fetch's shape). Contour names a cluster
// "namespace/service/port/hash" (clusterService) and gives it the UpstreamTlsContext of the
// port's effective policy: SNI (none, unless the Service is an
// ExternalName), the CA inlined (trustedCa.inlineBytes, read back to the
// ConfigMap holding the same certificate), and SAN matchers
// (matchTypedSubjectAltNames, read as subjectAltNames, unless they are
// one DNS name and it is the SNI, or there is no SNI: Contour matches the
// policy's hostname alone then, the hostname authentication GATEWAY-API-032
// asks of a policy without subjectAltNames, which reads as none:
// Readable; which name it is is not compared without an SNI). ports
// names each Service's ports by number ("namespace/name" → number →
// name); cas names the CA ConfigMaps ("namespace\x00PEM" → name).
func readClusters(cfg map[string]any, ports map[string]map[string]string, cas map[string]string, at func(string) *observe.Observation) {
	var clusters []any
	for _, c := range jsonmap.List(cfg["configs"]) {
		clusters = append(clusters, jsonmap.List(jsonmap.Map(c)["dynamicActiveClusters"])...)
	}
	for _, c := range clusters {
		cl := jsonmap.Map(jsonmap.Map(c)["cluster"])
		ns, svc, port, ok := clusterService(cl)
		if !ok {
			continue
		}
		o := at(ns)
		name := ports[ns+"/"+svc][port]
		if o == nil || name == "" {
			continue
		}
		ref := "Service/" + ns + "/" + svc
		ts := jsonmap.Map(cl["transportSocket"])
		if jsonmap.String(ts["name"]) != "envoy.transport_sockets.tls" {
			continue // plain text: no policy applies
		}
		tls := jsonmap.Map(ts["typedConfig"])
		v := map[string]any{}
		if sni := jsonmap.String(tls["sni"]); sni != "" {
			v["hostname"] = sni
		}
		vc := jsonmap.Map(jsonmap.Map(tls["commonTlsContext"])["validationContext"])
		if inline := jsonmap.String(jsonmap.Map(vc["trustedCa"])["inlineBytes"]); inline != "" {
			pem, _ := base64.StdEncoding.DecodeString(inline)
			cm, ok := cas[ns+"\x00"+strings.TrimSpace(string(pem))]
			if !ok {
				cm = "(a CA no ConfigMap of the case holds)"
			}
			v["caCertificateRefs"] = []any{map[string]any{"group": "", "kind": "ConfigMap", "name": cm}}
		}
		sans := gatewayapi.SubjectAltNames(jsonmap.List(vc["matchTypedSubjectAltNames"]))
		sni := jsonmap.String(v["hostname"])
		loneDNS := len(sans) == 1 && jsonmap.Map(sans[0])["type"] == "Hostname"
		if len(sans) > 0 && !(loneDNS && sni == "") && !gatewayapi.HostnameOnly(sans, sni) {
			v["subjectAltNames"] = sans
		}
		o.Effective = append(o.Effective, observe.Path{Path: []string{ref, ref + "#" + name}, Spec: map[string]any{"validation": v}})
	}
}

// clusterService is the Service port a Contour cluster sends to. Contour
// v1.33.8 names a cluster "namespace/service/port/hash", but shortens the
// name to 60 characters by hashing its parts when it is longer
// (internal/envoy/cluster.go, Clustername and Hashname: a namespace such
// as gc-RUN-0-gateway-conformance-infra becomes "gc-63cc6-69f448"); its
// altStatName, "namespace_service_port", is never shortened (AltStatName).
// Kubernetes names have no "_" (RFC 1123), so the split is exact. The
// name is read only where altStatName is absent.
func clusterService(cl map[string]any) (ns, svc, port string, ok bool) {
	if parts := strings.Split(jsonmap.String(cl["altStatName"]), "_"); len(parts) == 3 {
		return parts[0], parts[1], parts[2], true
	}
	if parts := strings.Split(jsonmap.String(cl["name"]), "/"); len(parts) == 4 {
		return parts[0], parts[1], parts[2], true
	}
	return "", "", "", false
}
