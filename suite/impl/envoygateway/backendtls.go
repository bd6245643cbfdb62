package envoygateway

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/suite/observe"
)

// readBackendTLS reads Gateway API BackendTLSPolicy settings from the xDS
// of each proxy: a route's cluster has one endpoint group per backend,
// whose metadata names the Service and port number, and whose endpoints
// name the cluster's transport socket match holding the
// UpstreamTlsContext (SNI, validation context). ports names each
// Service's ports by number ("namespace/name" → number → name), as
// BackendTLSPolicy's sectionName does. Which ports are compared is said by
// the input (reachedPorts), not by what Envoy Gateway configured.
func readBackendTLS(doc map[string]any, ports map[string]map[string]string, at func(string) *observe.Observation) {
	xds := obj(doc["xds"])
	for _, proxy := range slices.Sorted(maps.Keys(xds)) {
		sockets := map[string]map[string]any{} // transport socket match name → UpstreamTlsContext
		var loads []map[string]any
		for _, cfg := range list(obj(xds[proxy])["configs"]) {
			for _, c := range list(obj(cfg)["dynamicActiveClusters"]) {
				for _, m := range list(obj(obj(c)["cluster"])["transportSocketMatches"]) {
					sockets[str(obj(m)["name"])] = obj(obj(obj(m)["transportSocket"])["typedConfig"])
				}
			}
			for _, e := range list(obj(cfg)["dynamicEndpointConfigs"]) {
				loads = append(loads, obj(obj(e)["endpointConfig"]))
			}
		}
		for _, cla := range loads {
			for _, group := range list(cla["endpoints"]) {
				var svc map[string]any
				for _, r := range list(obj(obj(obj(obj(group)["metadata"])["filterMetadata"])["envoy-gateway"])["resources"]) {
					if str(obj(r)["kind"]) == "Service" {
						svc = obj(r)
					}
				}
				if svc == nil {
					continue
				}
				ns, name := str(svc["namespace"]), str(svc["name"])
				o := at(ns)
				if o == nil {
					continue
				}
				ref := "Service/" + ns + "/" + name
				path := []string{ref}
				if port := ports[ns+"/"+name][str(svc["sectionName"])]; port != "" {
					path = append(path, ref+"#"+port)
				}
				for _, ep := range list(obj(group)["lbEndpoints"]) {
					match := str(obj(obj(obj(obj(ep)["metadata"])["filterMetadata"])["envoy.transport_socket_match"])["name"])
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
	if sni := str(tls["sni"]); sni != "" {
		v["hostname"] = sni
	}
	cvc := obj(obj(tls["commonTlsContext"])["combinedValidationContext"])
	if str(obj(cvc["validationContextSdsSecretConfig"])["name"]) == "system_ca_certificates" {
		v["wellKnownCACertificates"] = "System"
	}
	var sans []any
	for _, m := range list(obj(cvc["defaultValidationContext"])["matchTypedSubjectAltNames"]) {
		exact := str(obj(obj(m)["matcher"])["exact"])
		switch str(obj(m)["sanType"]) {
		case "DNS":
			sans = append(sans, map[string]any{"type": "Hostname", "hostname": exact})
		case "URI":
			sans = append(sans, map[string]any{"type": "URI", "uri": exact})
		default:
			sans = append(sans, map[string]any{"type": fmt.Sprint(obj(m)["sanType"]), "value": exact})
		}
	}
	onlyHostname := len(sans) == 1 && obj(sans[0])["type"] == "Hostname" && obj(sans[0])["hostname"] == v["hostname"]
	if len(sans) > 0 && !onlyHostname {
		v["subjectAltNames"] = sans
	}
	return map[string]any{"validation": v}
}

// markUnreported lists, in o.Unreported, the BackendTLSPolicies of ps
// with no status ancestor and no target o reached: Envoy Gateway reports a
// BackendTLSPolicy per Gateway that sends traffic to its Service, and there
// is none.
func markUnreported(o *observe.Observation, ps []*unstructured.Unstructured) {
	for _, p := range ps {
		if p.GetKind() != "BackendTLSPolicy" || len(list(obj(p.Object["status"])["ancestors"])) > 0 {
			continue
		}
		reached := false
		for _, tr := range list(obj(p.Object["spec"])["targetRefs"]) {
			ref := "Service/" + p.GetNamespace() + "/" + str(obj(tr)["name"])
			if s := str(obj(tr)["sectionName"]); s != "" {
				ref += "#" + s
			}
			for _, r := range o.Reached {
				if r == ref || strings.HasPrefix(r, ref+"#") {
					reached = true
				}
			}
		}
		if !reached {
			o.Unreported = append(o.Unreported, "BackendTLSPolicy/"+p.GetNamespace()+"/"+p.GetName())
		}
	}
}

// reachedPorts lists the Service ports ("Service/ns/name#port") that an
// HTTPRoute of objects sends traffic to through a Gateway of objects: the
// ports whose TLS settings a proxy has, and under whose Gateway a
// BackendTLSPolicy's status is reported. It is read from the input, so
// that a port Envoy Gateway leaves unconfigured is a difference, not a
// path left out.
func reachedPorts(objects []map[string]any, ports map[string]map[string]string) []string {
	gateways := map[string]bool{}
	for _, o := range objects {
		if str(o["kind"]) == "Gateway" {
			m := obj(o["metadata"])
			gateways[str(m["namespace"])+"/"+str(m["name"])] = true
		}
	}
	var out []string
	for _, o := range objects {
		if str(o["kind"]) != "HTTPRoute" {
			continue
		}
		ns := str(obj(o["metadata"])["namespace"])
		attached := false
		for _, p := range list(obj(o["spec"])["parentRefs"]) {
			pns := str(obj(p)["namespace"])
			if pns == "" {
				pns = ns
			}
			attached = attached || gateways[pns+"/"+str(obj(p)["name"])]
		}
		if !attached {
			continue
		}
		for _, rule := range list(obj(o["spec"])["rules"]) {
			for _, b := range list(obj(rule)["backendRefs"]) {
				bm := obj(b)
				if k := str(bm["kind"]); k != "" && k != "Service" || str(bm["group"]) != "" {
					continue
				}
				bns := str(bm["namespace"])
				if bns == "" {
					bns = ns
				}
				key := bns + "/" + str(bm["name"])
				if name := ports[key][fmt.Sprint(bm["port"])]; name != "" {
					out = append(out, "Service/"+key+"#"+name)
				}
			}
		}
	}
	return out
}

// portNames names a Service's ports by number, as Envoy Gateway's xDS
// names a Service port (by number) and BackendTLSPolicy's sectionName does
// (by name).
func portNames(service map[string]any) map[string]string {
	named := map[string]string{}
	for _, p := range list(obj(service["spec"])["ports"]) {
		named[fmt.Sprint(obj(p)["port"])] = str(obj(p)["name"])
	}
	return named
}
