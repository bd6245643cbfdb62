package conformance

import (
	"context"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/suite/cluster/envoygateway"
	"github.com/gepcheck/gepcheck/suite/driver"
)

// EnvoyGateway is Envoy Gateway's controller in the cluster. Its
// conditions are read from each policy's status ancestors, as the offline
// driver reads them from egctl (driver.EnvoyGatewayPolicyStatus).
// Effective settings are not compared in a cluster: they live in the xDS
// Envoy Gateway serves to its proxies, which gepcheck does not read there
// yet (the offline driver reads them; docs/cluster.md).
type EnvoyGateway struct{}

// Name implements Implementation.
func (EnvoyGateway) Name() string { return "envoy-gateway" }

// ControllerName implements Implementation.
func (EnvoyGateway) ControllerName() string { return envoygateway.ControllerName }

// Supports implements Implementation.
func (EnvoyGateway) Supports(f string) bool { return (&driver.EnvoyGateway{}).Supports(f) }

// Conditions implements Implementation: Envoy Gateway writes Accepted,
// not GEP-713's Enforced.
func (EnvoyGateway) Conditions() []string { return []string{"Accepted"} }

// ComparesEffective implements Implementation.
func (EnvoyGateway) ComparesEffective() bool { return false }

// Expectation implements Implementation: aggregated policy conditions.
func (EnvoyGateway) Expectation(name string, out *simulator.Output) driver.Observation {
	o := driver.FromOutput(name, out)
	o.Targets = nil
	return o
}

// Observe implements Implementation.
func (EnvoyGateway) Observe(ctx context.Context, k *Kube, p *Plan) (driver.Observation, error) {
	o := driver.Observation{Name: p.Name, Policies: []driver.Status{}}
	for _, g := range p.Groups[min(2, len(p.Groups)):] {
		for _, u := range g {
			got, err := k.Get(ctx, u)
			if err != nil {
				return o, err
			}
			o.Policies = append(o.Policies, driver.EnvoyGatewayPolicyStatus(u.GetKind(), got.Object))
		}
	}
	o.Normalize()
	return o, nil
}
