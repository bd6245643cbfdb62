package conformance

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/suite/cluster/reference"
	"github.com/gepcheck/gepcheck/suite/driver"
)

// Reference is gepcheck-reference (package reference) in the cluster.
type Reference struct{}

// Name implements Implementation.
func (Reference) Name() string { return "gepcheck-reference" }

// ControllerName implements Implementation.
func (Reference) ControllerName() string { return reference.ControllerName }

// Supports implements Implementation: the built-in kinds outside Envoy
// Gateway's, and ObjectFields.
func (Reference) Supports(f string) bool {
	if f == "ObjectFields" {
		return true
	}
	for _, k := range reference.Kinds() {
		if k.Kind == f {
			return true
		}
	}
	return false
}

// Conditions implements Implementation: all of them.
func (Reference) Conditions() []string { return nil }

// ComparesEffective implements Implementation: the EffectivePolicy
// objects the controller writes.
func (Reference) ComparesEffective() bool { return true }

// Expectation implements Implementation: per policy, the conditions per
// ancestor (status.ancestors) and, for kinds whose status has room for
// them (not Gateway API's PolicyStatus), aggregated (status.conditions);
// the <Kind>Affected condition of every affected object (not of
// sections: Gateway API's listener and route parent status have no place
// for it).
func (Reference) Expectation(name string, out *simulator.Output) driver.Observation {
	o := driver.FromOutput(name, out)
	var pols []driver.Status
	for i, ps := range out.Policies {
		if reference.AggregatedStatus(ps.Ref) {
			pols = append(pols, o.Policies[i])
		}
		for _, t := range ps.Targets {
			st := driver.Status{Ref: ps.Ref + "@" + t.Ref}
			for _, c := range t.Conditions {
				st.Conditions = append(st.Conditions, driver.Condition{Type: c.Type, Status: c.Status, Reason: c.Reason})
			}
			pols = append(pols, st)
		}
	}
	o.Policies = pols
	var targets []driver.Status
	for _, t := range o.Targets {
		if !strings.Contains(t.Ref, "#") && !strings.HasPrefix(t.Ref, "Namespace/") && !strings.HasPrefix(t.Ref, "GatewayClass/") {
			targets = append(targets, t)
		}
	}
	o.Targets = targets
	o.Normalize()
	return o
}

var effectivePolicyGVK = schema.GroupVersionKind{Group: "gepcheck.dev", Version: "v1alpha1", Kind: "EffectivePolicy"}

// Observe implements Implementation: each policy's status (aggregated and
// per ancestor), the Affected conditions of the plan's other objects, and
// the paths of the EffectivePolicy objects in the plan's namespaces.
func (Reference) Observe(ctx context.Context, k *Kube, p *Plan) (driver.Observation, error) {
	o := driver.Observation{Name: p.Name, Effective: []driver.Path{}, Policies: []driver.Status{}, Targets: []driver.Status{}}
	for gi, g := range p.Groups {
		for _, u := range g {
			got, err := k.Get(ctx, u)
			if err != nil {
				return o, err
			}
			ref := u.GetKind() + "/" + u.GetNamespace() + "/" + u.GetName()
			if u.GetNamespace() == "" {
				ref = u.GetKind() + "/" + u.GetName()
			}
			if gi < 2 {
				o.Targets = append(o.Targets, targetStatus(ref, got)...)
				continue
			}
			conds, ok, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
			if ok {
				o.Policies = append(o.Policies, driver.Status{Ref: ref, Conditions: readConditions(conds)})
			}
			ancestors, _, _ := unstructured.NestedSlice(got.Object, "status", "ancestors")
			for _, a := range ancestors {
				am, _ := a.(map[string]any)
				if am["controllerName"] != reference.ControllerName {
					continue
				}
				ar, _ := am["ancestorRef"].(map[string]any)
				conds, _, _ := unstructured.NestedSlice(am, "conditions")
				o.Policies = append(o.Policies, driver.Status{Ref: ref + "@" + refString(ar), Conditions: readConditions(conds)})
			}
		}
	}
	nss := make([]string, 0, len(p.Namespaces))
	for _, ns := range p.Namespaces {
		nss = append(nss, ns)
	}
	sort.Strings(nss)
	for _, ns := range nss {
		eps, err := k.List(ctx, effectivePolicyGVK, ns, reference.LabelManagedBy+"=gepcheck-reference")
		if err != nil {
			return o, err
		}
		for _, ep := range eps {
			paths, _, _ := unstructured.NestedSlice(ep.Object, "spec", "paths")
			for _, x := range paths {
				pm, _ := x.(map[string]any)
				var path []string
				for _, e := range pm["path"].([]any) {
					path = append(path, fmt.Sprint(e))
				}
				spec, _ := pm["spec"].(map[string]any)
				o.Effective = append(o.Effective, driver.Path{Path: path, Spec: spec})
			}
		}
	}
	o.Normalize()
	return o, nil
}

// targetStatus reads the Affected conditions gepcheck-reference wrote on
// an object: status.conditions, or for routes the parent status it owns.
func targetStatus(ref string, u *unstructured.Unstructured) []driver.Status {
	var conds []any
	if u.GetKind() == "HTTPRoute" || u.GetKind() == "GRPCRoute" {
		parents, _, _ := unstructured.NestedSlice(u.Object, "status", "parents")
		for _, p := range parents {
			if pm, ok := p.(map[string]any); ok && pm["controllerName"] == reference.ControllerName {
				c, _, _ := unstructured.NestedSlice(pm, "conditions")
				conds = c
			}
		}
	} else {
		conds, _, _ = unstructured.NestedSlice(u.Object, "status", "conditions")
	}
	var mine []any
	for _, c := range conds {
		if cm, ok := c.(map[string]any); ok && strings.HasSuffix(fmt.Sprint(cm["type"]), "Affected") {
			mine = append(mine, c)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	return []driver.Status{{Ref: ref, Conditions: readConditions(mine)}}
}

func readConditions(conds []any) []driver.Condition {
	var out []driver.Condition
	for _, c := range conds {
		cm, _ := c.(map[string]any)
		out = append(out, driver.Condition{Type: fmt.Sprint(cm["type"]), Status: fmt.Sprint(cm["status"]), Reason: fmt.Sprint(cm["reason"]), Message: fmt.Sprint(cm["message"])})
	}
	return out
}

// refString renders a ParentReference as the engine names objects.
func refString(r map[string]any) string {
	s := fmt.Sprint(r["kind"]) + "/"
	if ns, ok := r["namespace"].(string); ok && ns != "" {
		s += ns + "/"
	}
	s += fmt.Sprint(r["name"])
	if sec, ok := r["sectionName"].(string); ok && sec != "" {
		s += "#" + sec
	}
	return s
}
