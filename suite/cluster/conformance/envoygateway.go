package conformance

import (
	"context"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/suite/cluster/envoygateway"
	"github.com/gepcheck/gepcheck/suite/driver"
)

// EnvoyGateway is Envoy Gateway's controller in the cluster. Its
// conditions are read from each policy's status ancestors, as the offline
// driver reads them from egctl (driver.EnvoyGatewayPolicyStatus); its
// effective settings, when XDS is set, from the xDS it serves to each
// Gateway's proxy, read as the offline driver reads egctl's xDS
// (driver.ReadEnvoyGatewayXDS).
type EnvoyGateway struct {
	// XDS reads Envoy Gateway's xDS server; nil when gepcheck did not
	// start the controller (it has no proxy certificate then), and
	// effective settings are not compared.
	XDS *envoygateway.XDS
}

// Name implements Implementation.
func (EnvoyGateway) Name() string { return "envoy-gateway" }

// ControllerName implements Implementation.
func (EnvoyGateway) ControllerName() string { return envoygateway.ControllerName }

// Endpoints implements Endpointed: Envoy Gateway programs a route's
// settings only when its backends have endpoints.
func (EnvoyGateway) Endpoints() bool { return true }

// Supports implements Implementation.
func (EnvoyGateway) Supports(f string) bool { return (&driver.EnvoyGateway{}).Supports(f) }

// Conditions implements Implementation: Envoy Gateway writes Accepted,
// not GEP-713's Enforced.
func (EnvoyGateway) Conditions() []string { return []string{"Accepted"} }

// ComparesEffective implements Implementation.
func (e EnvoyGateway) ComparesEffective() bool { return e.XDS != nil }

// Expectation implements Implementation: aggregated policy conditions, and
// effective settings on the fields the driver reads back (the API server
// has filled in CRD defaults that are not).
func (EnvoyGateway) Expectation(name string, out *simulator.Output) driver.Observation {
	o := driver.FromOutput(name, out)
	o.Targets = nil
	for i := range o.Effective {
		o.Effective[i].Spec = driver.EnvoyGatewayReadable(o.Effective[i].Spec)
	}
	return o
}

// Observe implements Implementation.
func (e EnvoyGateway) Observe(ctx context.Context, k *Kube, p *Plan) (driver.Observation, error) {
	o := driver.Observation{Name: p.Name, Policies: []driver.Status{}, Effective: []driver.Path{}}
	if e.XDS != nil && len(p.Groups) > 1 {
		proxies := map[string]any{}
		for _, u := range p.Groups[1] {
			if u.GetKind() != "Gateway" {
				continue
			}
			cfg, err := e.XDS.Fetch(ctx, u.GetNamespace(), u.GetName())
			if err != nil {
				return o, err
			}
			proxies[u.GetNamespace()+"/"+u.GetName()] = cfg
		}
		ours := map[string]bool{}
		for _, ns := range p.Namespaces {
			ours[ns] = true
		}
		driver.ReadEnvoyGatewayXDS(map[string]any{"xds": proxies}, func(ns string) *driver.Observation {
			if ours[ns] {
				return &o
			}
			return nil
		})
	}
	for _, u := range p.PolicyObjects() {
		got, err := k.Get(ctx, u)
		if err != nil {
			return o, err
		}
		o.Policies = append(o.Policies, driver.EnvoyGatewayPolicyStatus(u.GetKind(), got.Object))
	}
	o.Normalize()
	return o, nil
}
