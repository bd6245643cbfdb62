package envoygateway

import (
	"maps"
	"slices"

	"github.com/gepcheck/gepcheck/impl/internal/gatewayapi"
	"github.com/gepcheck/gepcheck/internal/jsonmap"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// readBackendTLS reads Gateway API BackendTLSPolicy settings from the xDS
// of each proxy: a route's cluster has one endpoint group per backend,
// whose metadata names the Service and port number, and whose endpoints
// name the cluster's transport socket match holding the
// UpstreamTlsContext (SNI, validation context). ports names each
// Service's ports by number ("namespace/name" → number → name), as
// BackendTLSPolicy's sectionName does. Which ports are compared is said by
// the input (gatewayapi.ReachedPorts), not by what Envoy Gateway configured.
func readBackendTLS(doc map[string]any, ports map[string]map[string]string, at func(string) *observe.Observation) {
	xds := jsonmap.Map(doc["xds"])
	for _, proxy := range slices.Sorted(maps.Keys(xds)) {
		sockets := map[string]map[string]any{} // transport socket match name → UpstreamTlsContext
		var loads []map[string]any
		for _, cfg := range jsonmap.List(jsonmap.Map(xds[proxy])["configs"]) {
			for _, c := range jsonmap.List(jsonmap.Map(cfg)["dynamicActiveClusters"]) {
				for _, m := range jsonmap.List(jsonmap.Map(jsonmap.Map(c)["cluster"])["transportSocketMatches"]) {
					sockets[jsonmap.String(jsonmap.Map(m)["name"])] = jsonmap.Map(jsonmap.Map(jsonmap.Map(m)["transportSocket"])["typedConfig"])
				}
			}
			for _, e := range jsonmap.List(jsonmap.Map(cfg)["dynamicEndpointConfigs"]) {
				loads = append(loads, jsonmap.Map(jsonmap.Map(e)["endpointConfig"]))
			}
		}
		for _, cla := range loads {
			for _, group := range jsonmap.List(cla["endpoints"]) {
				var svc map[string]any
				for _, r := range jsonmap.List(jsonmap.Map(jsonmap.Map(jsonmap.Map(jsonmap.Map(group)["metadata"])["filterMetadata"])["envoy-gateway"])["resources"]) {
					if jsonmap.String(jsonmap.Map(r)["kind"]) == "Service" {
						svc = jsonmap.Map(r)
					}
				}
				if svc == nil {
					continue
				}
				ns, name := jsonmap.String(svc["namespace"]), jsonmap.String(svc["name"])
				o := at(ns)
				if o == nil {
					continue
				}
				ref := "Service/" + ns + "/" + name
				path := []string{ref}
				if port := ports[ns+"/"+name][jsonmap.String(svc["sectionName"])]; port != "" {
					path = append(path, ref+"#"+port)
				}
				for _, ep := range jsonmap.List(jsonmap.Map(group)["lbEndpoints"]) {
					match := jsonmap.String(jsonmap.Map(jsonmap.Map(jsonmap.Map(jsonmap.Map(ep)["metadata"])["filterMetadata"])["envoy.transport_socket_match"])["name"])
					if tls, ok := sockets[match]; ok && match != "" {
						o.Effective = append(o.Effective, observe.Path{Path: path, Spec: backendTLSSpec(tls)})
						break
					}
				}
			}
		}
	}
}

// backendTLSSpec is the BackendTLSPolicy spec an UpstreamTlsContext
// realizes: validation.hostname is the SNI; wellKnownCACertificates System
// is the system_ca_certificates secret; subjectAltNames are the SAN
// matchers, unless they are the hostname alone (Envoy Gateway matches the
// hostname when a policy names no subjectAltNames).
func backendTLSSpec(tls map[string]any) map[string]any {
	v := map[string]any{}
	if sni := jsonmap.String(tls["sni"]); sni != "" {
		v["hostname"] = sni
	}
	cvc := jsonmap.Map(jsonmap.Map(tls["commonTlsContext"])["combinedValidationContext"])
	if jsonmap.String(jsonmap.Map(cvc["validationContextSdsSecretConfig"])["name"]) == "system_ca_certificates" {
		v["wellKnownCACertificates"] = "System"
	}
	sans := gatewayapi.SubjectAltNames(jsonmap.List(jsonmap.Map(cvc["defaultValidationContext"])["matchTypedSubjectAltNames"]))
	onlyHostname := len(sans) == 1 && jsonmap.Map(sans[0])["type"] == "Hostname" && jsonmap.Map(sans[0])["hostname"] == v["hostname"]
	if len(sans) > 0 && !onlyHostname {
		v["subjectAltNames"] = sans
	}
	return map[string]any{"validation": v}
}
