// Package gatewayapi reads what Gateway API says of the objects of a
// case, alike for every implementation: which Service ports a route sends
// traffic to through a Gateway, a Service's port names, a policy's status
// ancestors, a TLS subject alt name.
package gatewayapi

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/internal/jsonmap"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/topology"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Case is what the objects of a case hold for an implementation that
// serves the GatewayClasses of one controllerName: the same index for
// every driver that reads a proxy's configuration.
type Case struct {
	// Ports names each Service's ports by number ("namespace/name" →
	// number → name; PortNames).
	Ports map[string]map[string]string
	// CAs names the ConfigMaps holding a CA certificate in ca.crt
	// ("namespace\x00PEM" → name), as a proxy's configuration inlines it.
	CAs map[string]string
	// Gateways are the Gateways ("namespace/name") the implementation
	// serves: all but Others.
	Gateways []string
	// Others are the Gateways of a declared GatewayClass of another
	// controllerName ("namespace/name" → the class's controllerName;
	// topology.OtherGateways): another implementation's, for which this
	// one writes no status (statusrules.Policies).
	Others map[string]string
	// Reached lists the Service ports ("Service/ns/name#port") that a
	// route (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute) sends traffic to through one of Gateways: the ports whose
	// TLS settings a proxy has, and under whose Gateway a
	// BackendTLSPolicy's status is reported. It is read from the input,
	// so that a port an implementation leaves unconfigured is a
	// difference, not a path left out.
	Reached []string
	// namespaces holds the objects' namespaces.
	namespaces map[string]bool
	// sameCA lists, for a ConfigMap ("namespace\x00name") whose ca.crt
	// another ConfigMap of its namespace holds too, all of them, sorted.
	sameCA map[string][]string
}

// At returns a function giving o for a namespace of the case's objects,
// nil for another: where a driver reading one proxy's configuration for
// several cases (or objects gepcheck did not create) files what it reads.
func (c *Case) At(o *observe.Observation) func(namespace string) *observe.Observation {
	return func(ns string) *observe.Observation {
		if c.namespaces[ns] {
			return o
		}
		return nil
	}
}

// Index reads objects as the implementation of controller sees them.
func Index(objects []map[string]any, controller string) *Case {
	c := &Case{Ports: map[string]map[string]string{}, CAs: map[string]string{}, namespaces: map[string]bool{}}
	holders := map[string][]string{} // namespace\x00certificate → the ConfigMaps holding it
	for _, o := range objects {
		m := jsonmap.Map(o["metadata"])
		if ns := jsonmap.String(m["namespace"]); ns != "" {
			c.namespaces[ns] = true
		}
		switch api := jsonmap.String(o["apiVersion"]); {
		case api != "v1":
		case jsonmap.String(o["kind"]) == "Service":
			c.Ports[jsonmap.String(m["namespace"])+"/"+jsonmap.String(m["name"])] = PortNames(o)
		case jsonmap.String(o["kind"]) == "ConfigMap":
			if pem := jsonmap.String(jsonmap.Map(o["data"])["ca.crt"]); pem != "" {
				key := jsonmap.String(m["namespace"]) + "\x00" + strings.TrimSpace(pem)
				holders[key] = append(holders[key], jsonmap.String(m["name"]))
			}
		}
	}
	// A CA read back names the first of its ConfigMaps by name; where
	// several hold one certificate, SameCA settles which.
	for key, names := range holders {
		slices.Sort(names)
		c.CAs[key] = names[0]
		if len(names) > 1 {
			if c.sameCA == nil {
				c.sameCA = map[string][]string{}
			}
			ns, _, _ := strings.Cut(key, "\x00")
			for _, n := range names {
				c.sameCA[ns+"\x00"+n] = names
			}
		}
	}
	c.Others = topology.OtherGateways(objects, controller)
	served := map[string]bool{}
	for _, o := range objects {
		if jsonmap.String(o["kind"]) != "Gateway" {
			continue
		}
		m := jsonmap.Map(o["metadata"])
		gw := jsonmap.String(m["namespace"]) + "/" + jsonmap.String(m["name"])
		if _, other := c.Others[gw]; other {
			continue
		}
		c.Gateways = append(c.Gateways, gw)
		served[gw] = true
	}
	for _, o := range objects {
		// Gateway API v1 BackendTLSPolicySpec.TargetRefs, Support Levels:
		// "Kubernetes Service referenced by backendRefs used on a Route. -
		// HTTPRoute, GRPCRoute, TLSRoute with termination"; GEP-1897 adds
		// "TCPRoute with termination".
		switch jsonmap.String(o["kind"]) {
		case "HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute":
		default:
			continue
		}
		ns := jsonmap.String(jsonmap.Map(o["metadata"])["namespace"])
		attached := false
		for _, p := range jsonmap.List(jsonmap.Map(o["spec"])["parentRefs"]) {
			pns := jsonmap.String(jsonmap.Map(p)["namespace"])
			if pns == "" {
				pns = ns
			}
			attached = attached || served[pns+"/"+jsonmap.String(jsonmap.Map(p)["name"])]
		}
		if !attached {
			continue
		}
		for _, rule := range jsonmap.List(jsonmap.Map(o["spec"])["rules"]) {
			for _, b := range jsonmap.List(jsonmap.Map(rule)["backendRefs"]) {
				bm := jsonmap.Map(b)
				if k := jsonmap.String(bm["kind"]); k != "" && k != "Service" || jsonmap.String(bm["group"]) != "" {
					continue
				}
				bns := jsonmap.String(bm["namespace"])
				if bns == "" {
					bns = ns
				}
				key := bns + "/" + jsonmap.String(bm["name"])
				if name := c.Ports[key][fmt.Sprint(bm["port"])]; name != "" {
					c.Reached = append(c.Reached, "Service/"+key+"#"+name)
				}
			}
		}
	}
	return c
}

// Objects are the objects of us as unstructured objects hold them.
func Objects(us []*unstructured.Unstructured) []map[string]any {
	out := make([]map[string]any, len(us))
	for i, u := range us {
		out[i] = u.Object
	}
	return out
}

// PortNames names a Service's ports by number, as an Envoy cluster
// names a Service port (by number) and BackendTLSPolicy's sectionName does
// (by name).
func PortNames(service map[string]any) map[string]string {
	named := map[string]string{}
	for _, p := range jsonmap.List(jsonmap.Map(service["spec"])["ports"]) {
		named[fmt.Sprint(jsonmap.Map(p)["port"])] = jsonmap.String(jsonmap.Map(p)["name"])
	}
	return named
}

// MarkUnreported lists, in o.Unreported, the BackendTLSPolicies of ps
// with no status ancestor of controller and no target o reached: an
// implementation reports a BackendTLSPolicy per Gateway of its own that
// sends traffic to its Service, and there is none.
func MarkUnreported(o *observe.Observation, ps []*unstructured.Unstructured, controller string) {
	for _, p := range ps {
		if p.GetKind() != "BackendTLSPolicy" || slices.ContainsFunc(jsonmap.List(jsonmap.Map(p.Object["status"])["ancestors"]), func(a any) bool { return jsonmap.String(jsonmap.Map(a)["controllerName"]) == controller }) {
			continue
		}
		reached := false
		for _, tr := range jsonmap.List(jsonmap.Map(p.Object["spec"])["targetRefs"]) {
			ref := "Service/" + p.GetNamespace() + "/" + jsonmap.String(jsonmap.Map(tr)["name"])
			if s := jsonmap.String(jsonmap.Map(tr)["sectionName"]); s != "" {
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

// PolicyStatus aggregates the conditions of policy p's status ancestors
// written by controller ("": any), as gepcheck compares them: per type,
// True if some ancestor says True, else the first; Accepted=False/NoStatus
// when no ancestor has one (GEP-713, "Standard status for Policy
// objects": status is per ancestor).
func PolicyStatus(kind string, p map[string]any, controller string) observe.Status {
	return PolicyStatusAs(kind, p, controller, simulator.AncestorsPerGateway)
}

// PolicyStatusAs is PolicyStatus with the status per ancestor read as
// entries says (simulator.AncestorEntries): under AncestorsPerListener an
// entry whose ancestorRef names a listener (sectionName) is that
// listener's, Gateway/namespace/name#section, as the reference writes it
// under that reading.
func PolicyStatusAs(kind string, p map[string]any, controller string, entries simulator.AncestorEntries) observe.Status {
	meta := jsonmap.Map(p["metadata"])
	conds := map[string]observe.Condition{"Accepted": {Type: "Accepted", Status: "False", Reason: "NoStatus"}}
	for _, a := range jsonmap.List(jsonmap.Map(p["status"])["ancestors"]) {
		if controller != "" && jsonmap.String(jsonmap.Map(a)["controllerName"]) != controller {
			continue
		}
		for _, c := range jsonmap.List(jsonmap.Map(a)["conditions"]) {
			cm := jsonmap.Map(c)
			typ := jsonmap.String(cm["type"])
			cur, seen := conds[typ]
			if !seen || cur.Reason == "NoStatus" || jsonmap.String(cm["status"]) == "True" {
				conds[typ] = observe.Condition{Type: typ, Status: jsonmap.String(cm["status"]), Reason: jsonmap.String(cm["reason"]), Message: jsonmap.String(cm["message"])}
			}
		}
	}
	st := observe.Status{Ref: kind + "/" + jsonmap.String(meta["namespace"]) + "/" + jsonmap.String(meta["name"])}
	for _, typ := range slices.Sorted(maps.Keys(conds)) {
		st.Conditions = append(st.Conditions, conds[typ])
	}
	st.Ancestors = gatewayAncestors(p, controller, entries)
	return st
}

// gatewayAncestors is the status of policy p per ancestor Gateway
// (Gateway/namespace/name, the policy's namespace when the ancestorRef
// names none) written by controller ("": any), as gepcheck compares it
// with the reference's (observe.Status.Ancestors): entries for sections
// of one Gateway are one, per type True if one says True, else the first.
// Entries for other kinds of ancestors are left out. Under
// AncestorsPerListener an entry naming a section is that section's
// (Gateway/namespace/name#section), not merged with the Gateway's.
func gatewayAncestors(p map[string]any, controller string, entries simulator.AncestorEntries) []observe.Status {
	ns := jsonmap.String(jsonmap.Map(p["metadata"])["namespace"])
	byRef := map[string]map[string]observe.Condition{}
	for _, a := range jsonmap.List(jsonmap.Map(p["status"])["ancestors"]) {
		am := jsonmap.Map(a)
		if controller != "" && jsonmap.String(am["controllerName"]) != controller {
			continue
		}
		ar := jsonmap.Map(am["ancestorRef"])
		group, kind := jsonmap.String(ar["group"]), jsonmap.String(ar["kind"])
		if (kind != "" && kind != "Gateway") || (ar["group"] != nil && group != "gateway.networking.k8s.io") {
			continue
		}
		ans := jsonmap.String(ar["namespace"])
		if ans == "" {
			ans = ns
		}
		ref := "Gateway/" + ans + "/" + jsonmap.String(ar["name"])
		if sec := jsonmap.String(ar["sectionName"]); sec != "" && entries == simulator.AncestorsPerListener {
			ref += "#" + sec
		}
		conds := byRef[ref]
		if conds == nil {
			conds = map[string]observe.Condition{}
			byRef[ref] = conds
		}
		for _, c := range jsonmap.List(am["conditions"]) {
			cm := jsonmap.Map(c)
			typ := jsonmap.String(cm["type"])
			if cur, seen := conds[typ]; !seen || cur.Status != "True" && jsonmap.String(cm["status"]) == "True" {
				conds[typ] = observe.Condition{Type: typ, Status: jsonmap.String(cm["status"]), Reason: jsonmap.String(cm["reason"]), Message: jsonmap.String(cm["message"])}
			}
		}
	}
	out := []observe.Status{}
	for _, ref := range slices.Sorted(maps.Keys(byRef)) {
		st := observe.Status{Ref: ref}
		for _, typ := range slices.Sorted(maps.Keys(byRef[ref])) {
			st.Conditions = append(st.Conditions, byRef[ref][typ])
		}
		out = append(out, st)
	}
	return out
}

// ComparedSubjectAltNames is the subjectAltNames of a BackendTLSPolicy
// validation as a proxy configuration is compared on them: the names the
// backend's certificate is authenticated against when they are not the
// hostname alone, else none. Gateway API v1,
// BackendTLSPolicyValidation.Hostname: "Hostname MUST be used for
// authentication and MUST match the certificate served by the matching
// backend, unless SubjectAltNames is specified" and "If SubjectAltNames
// are specified, Hostname can be used for certificate selection but MUST
// NOT be used for authentication". A configuration that authenticates the
// hostname alone reads back without subjectAltNames (HostnameOnly), so a
// hostname used for authentication beside a policy's subjectAltNames shows
// as a subjectAltNames difference, and a policy without them agrees.
func ComparedSubjectAltNames(validation map[string]any) []any {
	sans := jsonmap.List(validation["subjectAltNames"])
	if HostnameOnly(sans, jsonmap.String(validation["hostname"])) {
		return nil
	}
	return sans
}

// HostnameOnly reports whether subject alt names sans are one Hostname,
// hostname.
func HostnameOnly(sans []any, hostname string) bool {
	return len(sans) == 1 && jsonmap.String(jsonmap.Map(sans[0])["type"]) == "Hostname" && jsonmap.String(jsonmap.Map(sans[0])["hostname"]) == hostname
}

// SubjectAltNames are BackendTLSPolicy subjectAltNames an Envoy
// validation context's SAN matchers (matchTypedSubjectAltNames) check.
func SubjectAltNames(matchers []any) []any {
	var sans []any
	for _, m := range matchers {
		exact := jsonmap.String(jsonmap.Map(jsonmap.Map(m)["matcher"])["exact"])
		switch jsonmap.String(jsonmap.Map(m)["sanType"]) {
		case "DNS":
			sans = append(sans, map[string]any{"type": "Hostname", "hostname": exact})
		case "URI":
			sans = append(sans, map[string]any{"type": "URI", "uri": exact})
		default:
			sans = append(sans, map[string]any{"type": fmt.Sprint(jsonmap.Map(m)["sanType"]), "value": exact})
		}
	}
	return sans
}

// SameCA settles, in o's effective settings, which of several ConfigMaps
// holding the same certificate a CA read back from a proxy's
// configuration came from: the bytes cannot tell, and the implementation
// cannot have used the one or the other to any different effect. Where a
// path's caCertificateRefs is one ConfigMap of such a group and the
// BackendTLSPolicies among objects that select the path's Service (and
// port, by sectionName) name exactly one ConfigMap of that group, the
// path names that one. Upstream's conformance test BackendTLSPolicy
// creates such a copy (tls-checks-ca-certificate-reconcile-test).
func (c *Case) SameCA(o *observe.Observation, objects []map[string]any) {
	if len(c.sameCA) == 0 {
		return
	}
	for i := range o.Effective {
		p := &o.Effective[i]
		if len(p.Path) != 2 {
			continue
		}
		r, err := ref.Parse(p.Path[1])
		if err != nil || r.Kind != "Service" || r.Namespace == "" {
			continue
		}
		ns, svc, port := r.Namespace, r.Name, r.Section
		v := jsonmap.Map(p.Spec["validation"])
		refs := jsonmap.List(v["caCertificateRefs"])
		if len(refs) != 1 {
			continue
		}
		group := c.sameCA[ns+"\x00"+jsonmap.String(jsonmap.Map(refs[0])["name"])]
		if group == nil {
			continue
		}
		named := map[string]bool{}
		for _, obj := range objects {
			m := jsonmap.Map(obj["metadata"])
			if jsonmap.String(obj["kind"]) != "BackendTLSPolicy" || jsonmap.String(m["namespace"]) != ns {
				continue
			}
			spec := jsonmap.Map(obj["spec"])
			selects := false
			for _, t := range jsonmap.List(spec["targetRefs"]) {
				tm := jsonmap.Map(t)
				sec := jsonmap.String(tm["sectionName"])
				if jsonmap.String(tm["kind"]) == "Service" && jsonmap.String(tm["name"]) == svc && (sec == "" || sec == port) {
					selects = true
				}
			}
			prefs := jsonmap.List(jsonmap.Map(spec["validation"])["caCertificateRefs"])
			if !selects || len(prefs) != 1 {
				continue
			}
			if n := jsonmap.String(jsonmap.Map(prefs[0])["name"]); slices.Contains(group, n) {
				named[n] = true
			}
		}
		if len(named) != 1 {
			continue
		}
		for n := range named {
			ref := maps.Clone(jsonmap.Map(refs[0]))
			ref["name"] = n
			nv := maps.Clone(v)
			nv["caCertificateRefs"] = []any{ref}
			p.Spec = maps.Clone(p.Spec)
			p.Spec["validation"] = nv
		}
	}
}
