package reference

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/features"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// InCluster is gepcheck-reference in a cluster, as the runner sees it,
// running the engine under Semantics (sticky-overrides when empty),
// writing the status vocabulary Vocabulary (merged GEP-713's when empty),
// with the planted fault Mutant (none when empty; gepcheck's own tests,
// docs/faults.md).
type InCluster struct {
	Semantics  engine.Semantics
	Vocabulary engine.Vocabulary
	Mutant     Mutant
}

// Name implements incluster.Implementation.
func (InCluster) Name() string { return "gepcheck-reference" }

// ControllerName implements incluster.Implementation.
func (InCluster) ControllerName() string { return ControllerName }

// Capabilities implements incluster.Implementation: the kinds it serves,
// ObjectFields and BackendTLSPolicy's wellKnownCACertificates (System is
// a valid configuration to the engine); every condition; effective
// settings from the EffectivePolicy objects it writes.
func (r InCluster) Capabilities() incluster.Capabilities {
	fs := features.Set{features.ObjectFields, features.WellKnownCACertificates}
	for _, k := range Kinds() {
		fs = append(fs, features.PolicyKind(k.Kind))
	}
	return incluster.Capabilities{Capabilities: observe.Capabilities{Features: fs, Semantics: r.Semantics, Vocabulary: observe.Capabilities{Vocabulary: r.Vocabulary}.StatusVocabulary()}, Effective: true}
}

// CRDs implements incluster.Implementation.
func (InCluster) CRDs(context.Context) ([]*unstructured.Unstructured, error) { return CRDs(), nil }

// NamespaceAnnotations implements incluster.Implementation: the
// controller computes each group of namespaces that share a profile set
// and a partition on its own (docs/cluster.md).
func (InCluster) NamespaceAnnotations(profiles []string, partition string) map[string]string {
	return map[string]string{AnnotationProfiles: strings.Join(profiles, ","), AnnotationPartition: partition}
}

// Start implements incluster.Implementation: gepcheck controller reference,
// run by the gepcheck binary that is running.
func (r InCluster) Start(_ context.Context, c *cluster.Cluster, logDir string, log func(string)) (func(), error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{"controller", "reference", "--kubeconfig", c.Kubeconfig}
	if r.Semantics != "" {
		args = append(args, "--semantics", string(r.Semantics))
	}
	if r.Vocabulary != "" {
		args = append(args, "--status-vocabulary", string(r.Vocabulary))
	}
	if r.Mutant != "" {
		args = append(args, "--mutant", string(r.Mutant))
	}
	cmd := exec.Command(self, args...)
	p, err := cluster.Start("gepcheck-reference", cmd, filepath.Join(logDir, "gepcheck-reference.log"))
	if err != nil {
		return nil, err
	}
	log(fmt.Sprintf("started gepcheck-reference (pid %d), log %s", p.Pid(), p.Log))
	return func() { p.Stop(cluster.Timeouts.ControllerStop) }, nil
}

// Expectation implements Implementation: per policy, the conditions per
// ancestor (status.ancestors) — for a kind that reports status per
// ancestor Gateway (engine.PolicyStatus.Ancestors not nil: Gateway API's
// PolicyStatus, which holds ancestors only), the engine's entry per
// Gateway, also for a policy rejected whole, at most MaxAncestors
// (WrittenAncestors); for the others, an entry per target and the
// conditions aggregated (status.conditions) — and the <Kind>Affected
// condition of every affected object (not of sections: Gateway API's
// listener and route parent status have no place for it).
func (InCluster) Expectation(name string, out *simulator.Output) observe.Observation {
	o := observe.FromOutput(name, out)
	var pols []observe.Status
	for _, ps := range out.Policies {
		entries := ps.Targets
		if ps.Ancestors != nil {
			entries, _ = WrittenAncestors(ps.Ancestors, 0)
		} else {
			pols = append(pols, observe.Status{Ref: ps.Ref, Conditions: slices.Clone(ps.Conditions)})
		}
		for _, t := range entries {
			st := observe.Status{Ref: ps.Ref + "@" + t.Ref}
			for _, c := range t.Conditions {
				st.Conditions = append(st.Conditions, observe.Condition{Type: c.Type, Status: c.Status, Reason: c.Reason})
			}
			pols = append(pols, st)
		}
	}
	o.Policies = pols
	var targets []observe.Status
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
func (InCluster) Observe(ctx context.Context, k *cluster.Kube, p *incluster.Plan) (observe.Observation, error) {
	o := observe.Observation{Name: p.Name, Effective: []observe.Path{}, Policies: []observe.Status{}, Targets: []observe.Status{}}
	for i, u := range p.ScenarioObjects() {
		{
			got, err := k.Get(ctx, u)
			if err != nil {
				return o, err
			}
			ref := u.GetKind() + "/" + u.GetNamespace() + "/" + u.GetName()
			if u.GetNamespace() == "" {
				ref = u.GetKind() + "/" + u.GetName()
			}
			if i < len(p.NamespaceObjects)+len(p.Objects) {
				o.Targets = append(o.Targets, targetStatus(ref, got)...)
				continue
			}
			conds, ok, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
			if ok {
				o.Policies = append(o.Policies, observe.Status{Ref: ref, Conditions: readConditions(conds)})
			}
			ancestors, _, _ := unstructured.NestedSlice(got.Object, "status", "ancestors")
			var entries []observe.Status
			// Every entry of this controller's is compared: for a kind
			// that reports per ancestor Gateway, the expectation holds
			// the engine's entry per Gateway, for a policy rejected whole
			// too (Expectation).
			written := map[string]bool{}
			for _, a := range ancestors {
				am, _ := a.(map[string]any)
				if am["controllerName"] != ControllerName {
					continue
				}
				ar, _ := am["ancestorRef"].(map[string]any)
				conds, _, _ := unstructured.NestedSlice(am, "conditions")
				written[refString(ar)] = true
				entries = append(entries, observe.Status{Ref: ref + "@" + refString(ar), Conditions: readConditions(conds)})
			}
			// The engine reads another implementation's Gateway as any
			// other; that implementation, not this one, reports the
			// policy there (Gateway API v1, PolicyStatus.Ancestors:
			// "implementations MUST ONLY populate ancestor status for
			// the Ancestor resources they are responsible for"), so the
			// expectation's entry there is not compared. An entry this
			// controller writes there is, and breaks the status rule
			// own-ancestors-only.
			for _, gw := range slices.Sorted(maps.Keys(p.Others)) {
				if a := "Gateway/" + gw; !written[a] {
					o.Unreported = append(o.Unreported, ref+"@"+a)
				}
			}
			o.Policies = append(o.Policies, entries...)
		}
	}
	nss := make([]string, 0, len(p.Namespaces))
	for _, ns := range p.Namespaces {
		nss = append(nss, ns)
	}
	sort.Strings(nss)
	for _, ns := range nss {
		eps, err := k.List(ctx, effectivePolicyGVK, ns, LabelManagedBy+"=gepcheck-reference")
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
				o.Effective = append(o.Effective, observe.Path{Path: path, Spec: spec})
			}
		}
	}
	o.Normalize()
	return o, nil
}

// targetStatus reads the Affected conditions gepcheck-reference wrote on
// an object: status.conditions, or for routes the parent status it owns.
func targetStatus(ref string, u *unstructured.Unstructured) []observe.Status {
	var conds []any
	if isRoute(u.GetKind()) {
		parents, _, _ := unstructured.NestedSlice(u.Object, "status", "parents")
		for _, p := range parents {
			if pm, ok := p.(map[string]any); ok && pm["controllerName"] == ControllerName {
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
	return []observe.Status{{Ref: ref, Conditions: readConditions(mine)}}
}

func readConditions(conds []any) []observe.Condition {
	var out []observe.Condition
	for _, c := range conds {
		cm, _ := c.(map[string]any)
		out = append(out, observe.Condition{Type: fmt.Sprint(cm["type"]), Status: fmt.Sprint(cm["status"]), Reason: fmt.Sprint(cm["reason"]), Message: fmt.Sprint(cm["message"])})
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
