package traefik

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gepcheck/gepcheck/impl/internal/gatewayapi"
	"github.com/gepcheck/gepcheck/internal/jsonmap"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// readConfig reads BackendTLSPolicy settings from Traefik's dynamic
// configuration (what gepcheck-traefik-config serves). Traefik names a
// route backend's service
// "httproute-NS-ROUTE-gw-GWNS-GW-ep-ENTRYPOINT-RULE-HASH-svc-SVCNS-SVC-INDEX"
// (RULE the rule's index, INDEX the backendRef's in it) and gives it a
// servers transport of the same name when a policy applies: serverName is
// the policy's hostname, rootCAs the certificates of its caCertificateRefs
// (docs/contour-and-traefik.md), and the names its certificate is
// authenticated against are subjectAltNames (authenticatedNames), unless
// they are the serverName alone. routes are the case's HTTPRoutes, ports
// names each Service's ports by number ("namespace/name" → number → name),
// cas the CA ConfigMaps ("namespace\x00PEM" → name).
func readConfig(cfg map[string]any, routes []map[string]any, ports map[string]map[string]string, cas map[string]string, at func(string) *observe.Observation) {
	http := jsonmap.Map(cfg["http"])
	transports := jsonmap.Map(http["serversTransports"])
	for name, s := range jsonmap.Map(http["services"]) {
		lb := jsonmap.Map(jsonmap.Map(s)["loadBalancer"])
		if lb == nil {
			continue
		}
		svcNS, svc, port, ok := backendOf(name, routes, ports)
		if !ok {
			continue
		}
		o := at(svcNS)
		if o == nil {
			continue
		}
		st, ok := transports[strings.TrimSuffix(jsonmap.String(lb["serversTransport"]), "@kubernetesgateway")]
		if !ok {
			continue // plain text: no policy applies
		}
		v := map[string]any{}
		if sn := jsonmap.String(jsonmap.Map(st)["serverName"]); sn != "" {
			v["hostname"] = sn
		}
		var refs []any
		for _, pem := range jsonmap.List(jsonmap.Map(st)["rootCAs"]) {
			cm, ok := cas[svcNS+"\x00"+strings.TrimSpace(jsonmap.String(pem))]
			if !ok {
				cm = "(a CA no ConfigMap of the case holds)"
			}
			refs = append(refs, map[string]any{"group": "", "kind": "ConfigMap", "name": cm})
		}
		// The serverName alone authenticated reads as no subjectAltNames
		// (Readable); none authenticated as an empty list.
		if sans := authenticatedNames(jsonmap.Map(st)); !gatewayapi.HostnameOnly(sans, jsonmap.String(v["hostname"])) {
			v["subjectAltNames"] = sans
		}
		if len(refs) > 0 {
			v["caCertificateRefs"] = refs
		} else {
			// A transport without root CAs verifies against the
			// system's: wellKnownCACertificates System.
			v["wellKnownCACertificates"] = "System"
		}
		ref := "Service/" + svcNS + "/" + svc
		o.Effective = append(o.Effective, observe.Path{Path: []string{ref, ref + "#" + port}, Spec: map[string]any{"validation": v}})
	}
}

// backendOf finds the Service port a Traefik backend service name stands
// for, through the case's routes: its rule and backendRef indexes.
func backendOf(name string, routes []map[string]any, ports map[string]map[string]string) (ns, svc, port string, ok bool) {
	for _, r := range routes {
		meta := jsonmap.Map(r["metadata"])
		rns, rname := jsonmap.String(meta["namespace"]), jsonmap.String(meta["name"])
		for _, p := range jsonmap.List(jsonmap.Map(r["spec"])["parentRefs"]) {
			pns := jsonmap.String(jsonmap.Map(p)["namespace"])
			if pns == "" {
				pns = rns
			}
			prefix := fmt.Sprintf("httproute-%s-%s-gw-%s-%s-ep-", rns, rname, pns, jsonmap.String(jsonmap.Map(p)["name"]))
			rest, found := strings.CutPrefix(name, prefix)
			if !found {
				continue
			}
			// ENTRYPOINT-RULE-HASH-svc-SVCNS-SVC-INDEX, entry point names
			// without "-" (gepcheck names them).
			f := strings.SplitN(rest, "-", 4)
			if len(f) < 4 || !strings.HasPrefix(f[3], "svc-") {
				continue
			}
			ri, err1 := strconv.Atoi(f[1])
			tail := f[3][len("svc-"):]
			cut := strings.LastIndex(tail, "-")
			if err1 != nil || cut < 0 {
				continue
			}
			bi, err2 := strconv.Atoi(tail[cut+1:])
			rules := jsonmap.List(jsonmap.Map(r["spec"])["rules"])
			if err2 != nil || ri >= len(rules) {
				continue
			}
			brs := jsonmap.List(jsonmap.Map(rules[ri])["backendRefs"])
			if bi >= len(brs) {
				continue
			}
			b := jsonmap.Map(brs[bi])
			bns := jsonmap.String(b["namespace"])
			if bns == "" {
				bns = rns
			}
			if tail[:cut] != bns+"-"+jsonmap.String(b["name"]) {
				continue
			}
			name := ports[bns+"/"+jsonmap.String(b["name"])][fmt.Sprint(b["port"])]
			if name == "" {
				continue
			}
			return bns, jsonmap.String(b["name"]), name, true
		}
	}
	return "", "", "", false
}

// authenticatedNames are the names a servers transport checks in the
// backend's certificate, as BackendTLSPolicy subjectAltNames. Traefik
// v3.7.13 (pkg/server/service/transport.go) hands serverName to Go's TLS
// client, which verifies the certificate against it unless
// insecureSkipVerify is set (a Hostname name), and with peerCertURI also
// requires that URI among the certificate's SANs
// (pkg/tls/certificate.go, VerifyPeerCertificate: a URI name; both are
// then required, where subjectAltNames ask for one). Its
// Gateway API provider sets serverName alone (the policy's hostname,
// pkg/provider/kubernetes/gateway/httproute.go, loadServersTransport).
func authenticatedNames(st map[string]any) []any {
	names := []any{}
	if sn := jsonmap.String(st["serverName"]); sn != "" && st["insecureSkipVerify"] != true {
		names = append(names, map[string]any{"type": "Hostname", "hostname": sn})
	}
	if uri := jsonmap.String(st["peerCertURI"]); uri != "" {
		names = append(names, map[string]any{"type": "URI", "uri": uri})
	}
	return names
}
