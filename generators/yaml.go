package generators

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/simulator"
)

// YAML renders s as the multi-document YAML a user would apply, which
// `gepcheck simulate -f -` reads as it is: a Scenario document naming the
// built-in profile (or the PolicyProfile document of ProfileYAML), the
// Topology document of a generic scenario, then Namespaces, GatewayClasses,
// Gateways, Services, routes, ReferenceGrants, ConfigMaps and policies, each kind in the
// order of s's slices. The same s always gives the same bytes.
func (s *Scenario) YAML() []byte {
	var docs []any
	for _, kind := range []func() []any{
		s.scenarioDocs, s.ownFieldsDocs, s.topologyDocs, s.namespaceDocs, s.gatewayClassDocs,
		s.gatewayDocs, s.listenerSetDocs, s.serviceDocs, s.routeDocs, s.grantDocs, s.configMapDocs, s.policyDocs,
	} {
		docs = append(docs, kind()...)
	}
	var b bytes.Buffer
	if s.ProfileYAML != "" {
		b.WriteString(strings.TrimSpace(s.ProfileYAML))
		b.WriteString("\n")
	}
	for _, d := range docs {
		out, err := yaml.Marshal(d)
		if err != nil {
			// Only JSON values go in: a failure is a bug.
			panic(fmt.Sprintf("generators: rendering YAML: %v", err))
		}
		if b.Len() > 0 {
			b.WriteString("---\n")
		}
		b.Write(out)
	}
	return b.Bytes()
}

// scenarioDocs is the Scenario document naming the built-in profile, when
// the scenario brings no PolicyProfile of its own.
func (s *Scenario) scenarioDocs() []any {
	if s.ProfileYAML != "" {
		return nil
	}
	return []any{map[string]any{
		"apiVersion": "gepcheck.dev/v1alpha1",
		"kind":       "Scenario",
		"metadata":   map[string]any{"name": "generated"},
		"spec": map[string]any{
			"description": "Drawn by gepcheck's generators; no expected outcome.",
			"citation":    "none",
			"profiles":    []any{s.Profile},
			"expect":      map[string]any{"effectivePolicies": []any{}},
		},
	}}
}

func (s *Scenario) ownFieldsDocs() []any {
	var docs []any
	for _, o := range s.OwnFields {
		target := map[string]any{"group": o.Group, "kind": o.Kind, "name": o.Name}
		if o.Namespace != "" {
			target["namespace"] = o.Namespace
		}
		docs = append(docs, map[string]any{
			"apiVersion": "gepcheck.dev/v1alpha1",
			"kind":       "ObjectFields",
			"metadata":   map[string]any{"name": strings.ToLower(o.Kind) + "-" + o.Namespace + "-" + o.Name},
			"spec":       map[string]any{"target": target, "fields": o.Fields},
		})
	}
	return docs
}

// topologyDocs is the Topology document of a generic scenario.
func (s *Scenario) topologyDocs() []any {
	g := s.Generic
	if g == nil {
		return nil
	}
	spec := g.spec()
	edges := make([]any, len(spec.Edges))
	for i, e := range spec.Edges {
		edges[i] = map[string]any{"from": e.From, "to": e.To}
	}
	return []any{map[string]any{
		"apiVersion": "gepcheck.dev/v1alpha1",
		"kind":       "Topology",
		"metadata":   map[string]any{"name": "generated"},
		"spec":       map[string]any{"group": spec.Group, "kinds": strs(spec.Kinds), "nodes": strs(spec.Nodes), "edges": edges},
	}}
}

func (s *Scenario) namespaceDocs() []any {
	var docs []any
	for _, ns := range s.Namespaces {
		docs = append(docs, object("v1", "Namespace", "", ns, nil))
	}
	return docs
}

// gatewayClassDocs is the scenario's GatewayClasses, then those of another
// implementation that its Gateways use.
func (s *Scenario) gatewayClassDocs() []any {
	var docs []any
	for _, c := range s.GatewayClasses {
		docs = append(docs, object("gateway.networking.k8s.io/v1", "GatewayClass", "", c, map[string]any{"controllerName": s.controllerName()}))
	}
	for _, c := range s.usedOtherClasses() {
		o := object("gateway.networking.k8s.io/v1", "GatewayClass", "", c, map[string]any{"controllerName": OtherControllerName})
		o["metadata"].(map[string]any)["annotations"] = map[string]any{simulator.AnnotationOtherImplementation: "true"}
		docs = append(docs, o)
	}
	return docs
}

func (s *Scenario) gatewayDocs() []any {
	var docs []any
	for _, g := range s.Gateways {
		var ls []any
		for _, l := range g.Listeners {
			ls = append(ls, l.yaml())
		}
		spec := map[string]any{"gatewayClassName": g.Class, "listeners": ls}
		if g.AllowListeners != "" {
			spec["allowedListeners"] = map[string]any{"namespaces": map[string]any{"from": g.AllowListeners}}
		}
		docs = append(docs, object("gateway.networking.k8s.io/v1", "Gateway", g.Namespace, g.Name, spec))
	}
	return docs
}

func (s *Scenario) listenerSetDocs() []any {
	var docs []any
	for _, set := range s.ListenerSets {
		var ls []any
		for _, l := range set.Listeners {
			ls = append(ls, l.yaml())
		}
		parent := map[string]any{"name": set.Parent.Name}
		if set.Parent.Namespace != "" {
			parent["namespace"] = set.Parent.Namespace
		}
		docs = append(docs, object("gateway.networking.k8s.io/v1", "ListenerSet", set.Namespace, set.Name, map[string]any{"parentRef": parent, "listeners": ls}))
	}
	return docs
}

func (s *Scenario) serviceDocs() []any {
	var docs []any
	for i, svc := range s.Services {
		var ports []any
		for _, p := range svc.servicePorts() {
			pm := map[string]any{"port": p.port}
			if p.name != "" {
				pm["name"] = p.name
			}
			ports = append(ports, pm)
		}
		spec := map[string]any{"ports": ports}
		if s.ServiceClusterIPs {
			spec["clusterIP"] = fmt.Sprintf("10.96.%d.%d", 1+i/250, 1+i%250)
		}
		docs = append(docs, object("v1", "Service", svc.Namespace, svc.Name, spec))
	}
	return docs
}

func (s *Scenario) routeDocs() []any {
	var docs []any
	for _, r := range s.Routes {
		var parents, rules []any
		for _, p := range r.Parents {
			parents = append(parents, p.yaml())
		}
		for _, rule := range r.Rules {
			rules = append(rules, rule.yaml())
		}
		o := object("gateway.networking.k8s.io/v1", r.RouteKind(), r.Namespace, r.Name, map[string]any{"parentRefs": parents, "rules": rules})
		if len(r.Labels) > 0 {
			l := map[string]any{}
			for k, v := range r.Labels {
				l[k] = v
			}
			o["metadata"].(map[string]any)["labels"] = l
		}
		docs = append(docs, o)
	}
	return docs
}

func (s *Scenario) grantDocs() []any {
	var docs []any
	for _, g := range s.Grants {
		to := map[string]any{"group": g.ToGroup, "kind": g.ToKind}
		if g.ToName != "" {
			to["name"] = g.ToName
		}
		docs = append(docs, object("gateway.networking.k8s.io/v1beta1", "ReferenceGrant", g.Namespace, g.Name, map[string]any{
			"from": []any{map[string]any{"group": g.FromGroup, "kind": g.FromKind, "namespace": g.FromNamespace}},
			"to":   []any{to},
		}))
	}
	return docs
}

func (s *Scenario) configMapDocs() []any {
	var docs []any
	for _, cm := range s.ConfigMaps {
		o := object("v1", "ConfigMap", cm.Namespace, cm.Name, nil)
		data := map[string]any{}
		for k, v := range cm.Data {
			data[k] = v
		}
		o["data"] = data
		docs = append(docs, o)
	}
	return docs
}

func (s *Scenario) policyDocs() []any {
	var docs []any
	for _, p := range s.Policies {
		docs = append(docs, p.Object())
	}
	return docs
}

// Object is the policy's object as YAML() writes it (apiVersion, kind,
// metadata, spec with targetRefs and label-selector targets).
func (p Policy) Object() map[string]any {
	spec := make(map[string]any, len(p.Spec)+1)
	for k, v := range p.Spec {
		spec[k] = v
	}
	var refs []any
	for _, t := range p.Targets {
		tm := map[string]any{"group": t.Group, "kind": t.Kind, "name": t.Name}
		if t.Namespace != "" {
			tm["namespace"] = t.Namespace
		}
		if t.Section != "" {
			tm["sectionName"] = t.Section
		}
		refs = append(refs, tm)
	}
	if len(refs) > 0 || len(p.Selectors) == 0 {
		spec["targetRefs"] = refs
	}
	if len(p.Selectors) > 0 {
		var sels []any
		for _, sel := range p.Selectors {
			ml := map[string]any{}
			for k, v := range sel.MatchLabels {
				ml[k] = v
			}
			sels = append(sels, map[string]any{"kind": sel.Kind, "matchLabels": ml})
		}
		spec[SelectorField] = sels
	}
	o := object(policyAPIVersion(p.Group, p.Kind), p.Kind, p.Namespace, p.Name, spec)
	if p.Created != nil {
		o["metadata"].(map[string]any)["creationTimestamp"] = p.Created.UTC().Format(time.RFC3339)
	}
	return o
}

// yaml renders a listener of a Gateway or a ListenerSet.
func (l Listener) yaml() map[string]any {
	lm := map[string]any{"name": l.Name, "protocol": string(l.protocol()), "port": l.Port}
	if l.Protocol == "TLS" {
		lm["tls"] = map[string]any{"mode": "Passthrough"}
	}
	if l.AllNamespaces {
		lm["allowedRoutes"] = map[string]any{"namespaces": map[string]any{"from": "All"}}
	}
	return lm
}

// yaml renders a route's parentRef.
func (p ParentRef) yaml() map[string]any {
	pm := map[string]any{"name": p.Name}
	if p.ListenerSet {
		pm["kind"] = "ListenerSet"
	}
	if p.Namespace != "" {
		pm["namespace"] = p.Namespace
	}
	if p.Section != "" {
		pm["sectionName"] = p.Section
	}
	return pm
}

// yaml renders a route rule with its backendRefs.
func (rule Rule) yaml() map[string]any {
	var backends []any
	for _, b := range rule.Backends {
		bm := map[string]any{"name": b.Name, "port": b.port()}
		if b.Namespace != "" {
			bm["namespace"] = b.Namespace
		}
		backends = append(backends, bm)
	}
	rm := map[string]any{"backendRefs": backends}
	if rule.Name != "" {
		rm["name"] = rule.Name
	}
	if rule.PathPrefix != "" {
		rm["matches"] = []any{map[string]any{"path": map[string]any{"type": "PathPrefix", "value": rule.PathPrefix}}}
	}
	return rm
}

func object(apiVersion, kind, namespace, name string, spec map[string]any) map[string]any {
	meta := map[string]any{"name": name}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	o := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta}
	if spec != nil {
		o["spec"] = spec
	}
	return o
}

func strs(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

// policyAPIVersion returns the apiVersion of a policy kind.
func policyAPIVersion(group, kind string) string {
	switch {
	case group == "":
		return "v1"
	case group == gatewayGroup:
		return group + "/v1"
	}
	return group + "/v1alpha1"
}

func (s *Scenario) controllerName() string {
	if s.ControllerName != "" {
		return s.ControllerName
	}
	return controllerName
}
