package generators

import (
	_ "embed"
	"fmt"
	"slices"
	"time"

	"pgregory.net/rapid"
)

// Two test CA certificates (EC P-256, self-signed, valid until 2046): the
// CAs of BackendTLSScenarios' ConfigMaps, distinct so that an
// implementation that inlines a CA can be read back to its ConfigMap.
var (
	//go:embed cas/ca-1.crt
	ca1 string
	//go:embed cas/ca-2.crt
	ca2 string
)

// BackendTLSCAs are the ConfigMaps BackendTLSScenarios refers to, by name:
// each holds its CA certificate under ca.crt, the key Gateway API's
// BackendTLSPolicyValidation.CACertificateRefs names.
var BackendTLSCAs = []ConfigMap{
	{Name: "ca-1", Data: map[string]string{"ca.crt": ca1}},
	{Name: "ca-2", Data: map[string]string{"ca.crt": ca2}},
}

func init() {
	Register("backendtlspolicy-gateway-api", BackendTLSScenarios)
}

// BackendTLSPorts are the ports of the Services BackendTLSScenarios draws:
// every one has a route sending traffic to it, so that an implementation
// configures TLS for it (and an ancestor Gateway reports status).
var BackendTLSPorts = []struct {
	Name string
	Port int
}{{"https", 443}, {"https-alt", 8443}}

// BackendTLSScenarios draws Gateway API BackendTLSPolicy scenarios in
// namespace ns: a Gateway, an HTTPRoute with one rule per Service port
// (each its own path prefix, so that every port receives traffic)
// (two Services, two named ports each), and one to maxPolicies (default 4)
// BackendTLSPolicies on a Service or one of its ports — one time in four
// two targets, one time in ten a Service that does not exist — each with
// its own hostname, one of two CA ConfigMaps (caCertificateRefs, Core
// support; the system CAs are Implementation-specific and left to the
// catalogue), and one time in three subjectAltNames;
// creationTimestamps zero to two seconds apart and names that agree and
// disagree with that order, so that every Conflict resolution rule
// decides somewhere (Gateway API, BackendTLSPolicySpec.TargetRefs). One
// time in four a second Gateway, of a GatewayClass another implementation
// serves (Scenario.OtherClasses), sends traffic to one of the Services or
// to both: an implementation reports only its own Gateway and keeps the
// other's ancestor entries (Gateway API PolicyStatus.Ancestors). It is
// drawn last, so that the rest of a case is what the same seed drew
// before it existed.
func BackendTLSScenarios(ns string, maxPolicies int) *rapid.Generator[*Scenario] {
	if maxPolicies <= 0 {
		maxPolicies = 4
	}
	services := []string{"svc-a", "svc-b"}
	var targets []Target
	for _, svc := range services {
		targets = append(targets, Target{Kind: "Service", Name: svc})
		for _, p := range BackendTLSPorts {
			targets = append(targets, Target{Kind: "Service", Name: svc, Section: p.Name})
		}
	}
	missing := Target{Kind: "Service", Name: "svc-missing"}
	return rapid.Custom(func(t *rapid.T) *Scenario {
		s := &Scenario{Profile: "backendtlspolicy-gateway-api", ServiceClusterIPs: true}
		s.Namespaces = []string{ns}
		s.GatewayClasses = []string{"example"}
		s.Gateways = []Gateway{{Namespace: ns, Name: "gw", Class: "example", Listeners: []Listener{{Name: "http", Port: 80}}}}
		var rules []Rule
		for _, svc := range services {
			var ports []string
			var numbers []int
			for _, p := range BackendTLSPorts {
				ports, numbers = append(ports, p.Name), append(numbers, p.Port)
				rules = append(rules, Rule{Name: svc + "-" + p.Name, Backends: []BackendRef{{Name: svc, Port: p.Port}}, PathPrefix: "/" + svc + "-" + p.Name})
			}
			s.Services = append(s.Services, Service{Namespace: ns, Name: svc, Ports: ports, PortNumbers: numbers})
		}
		s.Routes = []Route{{Namespace: ns, Name: "route", Parents: []ParentRef{{Name: "gw"}}, Rules: rules}}
		for _, cm := range BackendTLSCAs {
			cm.Namespace = ns
			s.ConfigMaps = append(s.ConfigMaps, cm)
		}
		used := map[string]bool{}
		n := rapid.IntRange(1, maxPolicies).Draw(t, "policies")
		for i := 0; i < n; i++ {
			tgs := []Target{rapid.SampledFrom(targets).Draw(t, "target")}
			if rapid.IntRange(0, 3).Draw(t, "two targets") == 0 {
				// Distinct targets: the CRD refuses the same target twice
				// unless sections differ (BackendTLSPolicySpec.TargetRefs).
				if second := rapid.SampledFrom(targets).Draw(t, "second target"); second.Name != tgs[0].Name {
					tgs = append(tgs, second)
				}
			}
			if rapid.IntRange(0, 9).Draw(t, "missing target") == 0 {
				tgs = append(tgs, missing)
			}
			name := DrawName(t, used)
			created := BaseTime.Add(time.Duration(rapid.IntRange(0, 2).Draw(t, "created")) * time.Second)
			ca := rapid.SampledFrom(BackendTLSCAs).Draw(t, "CA").Name
			validation := map[string]any{"hostname": fmt.Sprintf("%s.example.com", name),
				"caCertificateRefs": []any{map[string]any{"group": "", "kind": "ConfigMap", "name": ca}}}
			if rapid.IntRange(0, 2).Draw(t, "subjectAltNames") == 0 {
				validation["subjectAltNames"] = []any{map[string]any{"type": "Hostname", "hostname": "san-" + name + ".example.com"}}
			}
			s.Policies = append(s.Policies, Policy{Group: "gateway.networking.k8s.io", Kind: "BackendTLSPolicy", Namespace: ns, Name: name,
				Created: &created, Targets: tgs, Spec: map[string]any{"validation": validation}})
		}
		if rapid.IntRange(0, 3).Draw(t, "other implementation") == 0 {
			s.OtherClasses = []string{"other"}
			s.Gateways = append(s.Gateways, Gateway{Namespace: ns, Name: "gw-other", Class: "other", Listeners: []Listener{{Name: "http", Port: 80}}})
			var theirs []Rule
			switch svc := rapid.IntRange(0, len(services)).Draw(t, "other implementation's Services"); {
			case svc == len(services):
				theirs = slices.Clone(rules)
			default:
				theirs = slices.DeleteFunc(slices.Clone(rules), func(r Rule) bool { return r.Backends[0].Name != services[svc] })
			}
			s.Routes = append(s.Routes, Route{Namespace: ns, Name: "route-other", Parents: []ParentRef{{Name: "gw-other"}}, Rules: theirs})
		}
		return s
	})
}
