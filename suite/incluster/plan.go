// Package incluster runs gepcheck's scenarios against an implementation
// in a real cluster: each scenario in fresh namespaces labelled as
// gepcheck's, objects created with server-side apply in the order their
// intended creationTimestamps imply, the implementation's status awaited,
// the objects read back as stored, the expectation computed by the
// reference engine from that stored state, and the two compared.
package incluster

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/internal/jsonmap"
	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/fault"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/topology"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/features"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Plan is one scenario made ready for a cluster.
type Plan struct {
	File string
	// Docs are the scenario file's documents, read once (PlanOf): the
	// report, the offline replay and the shrinker read the case from
	// them, not from File. A step's State shares them.
	Docs []*load.Doc
	// Random says the file is a random case this run drew (Config.Random),
	// Seed its seed (scenarios.Loaded).
	Random bool
	Seed   int64
	// Name is the Scenario document's name, or the file's.
	Name string
	// Labels are Ginkgo labels: the spec (gep-713, gep-2649, kuadrant,
	// findings) and the features (policy kinds, strategies).
	Labels []string
	// Profiles the expectation is computed with.
	Profiles []string
	// Skip, when set, says why the scenario does not apply.
	Skip string
	// Semantics the expectation is computed under (Target.Semantics).
	Semantics engine.Semantics
	// Vocabulary the expectation's conditions are written in
	// (Target.Vocabulary).
	Vocabulary engine.Vocabulary
	// AncestorEntries the expectation's status per ancestor is written in
	// (Target.AncestorEntries).
	AncestorEntries simulator.AncestorEntries
	// Namespaces maps the scenario's namespaces to the cluster's.
	Namespaces map[string]string
	// Names maps the scenario's cluster-scoped names (GatewayClasses,
	// ObjectFields) to the cluster's.
	Names map[string]string
	// The objects, rewritten, in creation order: NamespaceObjects, then
	// every other object (Objects), then the policies in waves by intended
	// creationTimestamp. A wave waits for the next second before it is
	// created, so that stored timestamps keep the intended order.
	NamespaceObjects []*unstructured.Unstructured
	Objects          []*unstructured.Unstructured
	PolicyWaves      [][]*unstructured.Unstructured
	// Endpoints are EndpointSlices giving each Service a ready endpoint,
	// for implementations that program backends only when they have
	// endpoints (Capabilities.Endpoints). Nothing serves them: no kubelet, no
	// traffic. They are applied with the other objects and are not
	// scenario objects.
	Endpoints []*unstructured.Unstructured
	// Others are the Gateways ("namespace/name", the cluster's names) of
	// another implementation's GatewayClasses, with that class's
	// controllerName (topology.OtherGateways: a controllerName other than
	// Target.ControllerName, which the classes annotated
	// simulator.AnnotationOtherImplementation keep): the runner writes an
	// ancestor entry of that controller for each on every policy, and the
	// implementation must leave them and write none of its own for them.
	Others map[string]string
	// Steps change the objects over time (a scenario's spec.steps;
	// simulator.States), applied one after the other once the objects
	// above are verified. A step's State is a plan of the objects after
	// it, with the names of this one.
	Steps []*Step
	// Faults are the perturbations the case is run under (the scenario's
	// spec.faults; docs/faults.md), of the case's plan only.
	Faults []fault.Fault
}

// Step is one change of a plan's objects over time.
type Step struct {
	// Name is the step's name; Index is N, the index of the state after
	// the step (simulator.State.Step).
	Name  string
	Index int
	// Delete are the objects the step deletes, as applied before; Apply
	// the objects it creates or replaces, as in State.
	Delete, Apply []*unstructured.Unstructured
	State         *Plan
}

// Target is what a plan is made for.
type Target struct {
	// Run identifies the run (a label value); Index the scenario in it.
	Run   string
	Index int
	// ControllerName for GatewayClasses.
	ControllerName string
	// Features the implementation declares.
	Features features.Set
	// Profiles the implementation claims per policy kind
	// (observe.Capabilities.Profiles): a scenario read with another is
	// skipped.
	Profiles map[string]string
	// Endpoints asks for an EndpointSlice per Service (Plan.Endpoints).
	Endpoints bool
	// Semantics the implementation claims (observe.Capabilities.Claim):
	// the expectation is computed under it, and a scenario whose
	// expectations hold only under other semantics is skipped.
	Semantics engine.Semantics
	// Vocabulary is the status vocabulary the implementation claims
	// (observe.Capabilities.StatusVocabulary): the expectation's
	// conditions are written in it.
	Vocabulary engine.Vocabulary
	// AncestorEntries is the reading of status per ancestor the
	// implementation claims (observe.Capabilities.AncestorEntries): the
	// expectation's ancestor entries are written in it.
	AncestorEntries simulator.AncestorEntries
	// Annotations returns the implementation's annotations for the
	// scenario's namespaces (Implementation.NamespaceAnnotations).
	Annotations func(profiles []string, partition string) map[string]string
}

// policyKinds are the group/kind of every built-in profile's policy kind,
// read once the implementations have registered theirs (at the first
// plan, after every init).
var policyKinds = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	bs, _ := profile.Builtins()
	for _, p := range bs {
		m[p.Spec.Policy.Group+"/"+p.Spec.Policy.Kind] = true
	}
	return m
})

// prunedNulls are the policy kinds whose built-in profile has a built-in
// CRD (Profile.CRD; those CRDs mark no field nullable) or says the API
// server prunes nulls (spec.stored.pruneNulls). A server-side apply of a
// null to such a field is refused ("must be of type object"), where a
// create stores the object without it (Kubernetes, Defaulting and
// Nullable): the runner sends what a create would store.
var prunedNulls = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	bs, _ := profile.Builtins()
	for _, p := range bs {
		// A kind with a CRD (Profile.CRD) is stored by it; the CRDs
		// gepcheck builds in mark no field nullable.
		if p.CRD != nil || p.Spec.Stored != nil && p.Spec.Stored.PruneNulls {
			m[p.Spec.Policy.Group+"/"+p.Spec.Policy.Kind] = true
		}
	}
	return m
})

// clusterScoped kinds gepcheck renames per scenario.
var clusterScoped = map[string]bool{"GatewayClass": true, "ObjectFields": true, "Namespace": true}

// NewPlan reads a scenario file and prepares it for t (PlanOf).
func NewPlan(file string, t Target) (*Plan, error) {
	docs, err := load.Read([]string{file}, nil)
	if err != nil {
		return nil, err
	}
	return PlanOf(scenarios.Loaded{File: file, Docs: docs}, t)
}

// PlanOf prepares a scenario file, as read once (scenarios.LoadPolicy),
// for t; an error reading it is the plan's error.
func PlanOf(l scenarios.Loaded, t Target) (*Plan, error) {
	if l.Err != nil {
		return nil, l.Err
	}
	file, docs := l.File, l.Docs
	// The scenario must make sense to the simulator before it goes to a
	// cluster: a scenario the engine refuses is an error, not a skip.
	m, err := simulator.Build(docs, simulator.Options{})
	if err != nil {
		return nil, err
	}
	p := &Plan{File: file, Docs: docs, Name: strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)), Namespaces: map[string]string{}, Names: map[string]string{}}
	if m.Scenario != nil {
		if n := m.Scenario.Metadata.Name; n != "generated" {
			p.Name = n
		}
		p.Profiles = m.Scenario.Spec.Profiles
		p.Faults = m.Scenario.Spec.Faults
	}
	p.Semantics = observe.Capabilities{Semantics: t.Semantics}.Claim()
	p.Vocabulary = observe.Capabilities{Vocabulary: t.Vocabulary}.StatusVocabulary()
	p.AncestorEntries = t.AncestorEntries
	if m.Scenario != nil && len(m.Scenario.Spec.Semantics) > 0 {
		holds, err := m.Scenario.SemanticsList()
		if err != nil {
			return nil, err // names file, document and field
		}
		if p.Skip = observe.Unclaimed(holds, p.Semantics, "the implementation"); p.Skip != "" {
			return p, nil
		}
	}
	if p.Skip = p.claimKinds(m.Kinds, t); p.Skip != "" {
		return p, nil
	}
	p.Labels = append(p.Labels, specLabel(file))
	if p.fill(docs, t); p.Skip != "" {
		return p, nil
	}
	states, err := simulator.States(docs, m.Scenario)
	if err != nil {
		return nil, err // names file, document and field
	}
	prev := p
	for _, st := range states[1:] {
		step := p.step(prev, st, t)
		if step.State.Skip != "" {
			p.Skip = st.Label(len(states)-1) + ": " + step.State.Skip
			return p, nil
		}
		p.Steps = append(p.Steps, step)
		prev = step.State
	}
	return p, nil
}

// State is the plan of the case's state i (simulator.States): p itself
// for 0, the objects after step i otherwise.
func (p *Plan) State(i int) *Plan {
	if i == 0 {
		return p
	}
	return p.Steps[i-1].State
}

// StateLabel names state i of the case for printing: "" for a case
// without steps, else "step N (name)" (simulator.State.Label; the first
// state is named "create", as simulator.States names it).
func (p *Plan) StateLabel(i int) string {
	st := simulator.State{Step: i, Name: "create"}
	if i > 0 {
		st.Name = p.Steps[i-1].Name
	}
	return st.Label(len(p.Steps))
}

// claimKinds says why the implementation cannot run a case of these policy
// kinds (a profile other than the one it claims, a feature it does not
// declare), and adds their built-in profiles to p.Profiles.
func (p *Plan) claimKinds(kinds []*simulator.Kind, t Target) (skip string) {
	for _, k := range kinds {
		if want, name := t.Profiles[k.Profile.Spec.Policy.Kind], k.Profile.Metadata.Name; want != "" && name != want {
			return "uses profile " + name + "; the implementation claims " + want
		}
		for _, f := range observe.FieldFeatures(k) {
			if !t.Features.Has(f) {
				return "needs feature " + string(f) + ", which the implementation does not declare"
			}
		}
		if !slices.Contains(p.Profiles, k.Profile.Metadata.Name) && k.Profile.Source != "" {
			if strings.HasPrefix(k.Profile.Source, "builtin:") {
				p.Profiles = append(p.Profiles, k.Profile.Metadata.Name)
			}
		}
	}
	return ""
}

// step is the plan of state st, made from prev's.
func (p *Plan) step(prev *Plan, st simulator.State, t Target) *Step {
	sp := &Plan{File: p.File, Docs: p.Docs, Name: p.Name, Profiles: p.Profiles, Semantics: p.Semantics, Vocabulary: p.Vocabulary, AncestorEntries: p.AncestorEntries, Namespaces: p.Namespaces, Names: p.Names}
	sp.fill(st.Docs, t)
	step := &Step{Name: st.Name, Index: st.Step, State: sp}
	in := func(objs []*unstructured.Unstructured, d *load.Doc) *unstructured.Unstructured {
		key := p.key(d)
		for _, u := range objs {
			if u.GetKind() == d.Kind && u.GetNamespace()+"/"+u.GetName() == key {
				return u
			}
		}
		return nil
	}
	for _, d := range st.Deleted {
		if u := in(prev.ScenarioObjects(), d); u != nil {
			step.Delete = append(step.Delete, u)
		}
	}
	for _, d := range st.Applied {
		if u := in(sp.ScenarioObjects(), d); u != nil {
			step.Apply = append(step.Apply, u)
		}
	}
	return step
}

// key is "namespace/name" of d's object in the cluster ("/name" when it
// is cluster-scoped).
func (p *Plan) key(d *load.Doc) string {
	switch {
	case d.Kind == "Namespace":
		return "/" + p.Namespaces[d.Name]
	case clusterScoped[d.Kind]:
		return "/" + p.Names[d.Kind+"/"+d.Name]
	}
	ns := d.Namespace
	if ns == "" {
		ns = "default"
	}
	return p.Namespaces[ns] + "/" + d.Name
}

// fill makes the cluster's objects of docs, in creation order, or sets
// p.Skip.
func (p *Plan) fill(docs []*load.Doc, t Target) {
	f := &filling{p: p, t: t, prefix: fmt.Sprintf("gc-%s-%d-", t.Run, t.Index), intended: map[*unstructured.Unstructured]time.Time{}}
	for _, d := range docs {
		ignore, skip := gepcheckDoc(d, t)
		if ignore {
			continue
		}
		if skip != "" {
			p.Skip = skip
		}
		if p.Skip != "" {
			return
		}
		if !f.add(d) {
			return
		}
	}
	namespaces := append(f.namespaces, p.undeclaredNamespaces(f.namespaces)...)
	for _, u := range slices.Concat(namespaces, f.others, f.policies) {
		p.forCluster(u, t)
	}
	objs := make([]map[string]any, len(f.others))
	for i, u := range f.others {
		objs[i] = u.Object
	}
	p.Others = topology.OtherGateways(objs, t.ControllerName)
	p.NamespaceObjects, p.Objects = namespaces, f.others
	p.PolicyWaves = append(p.PolicyWaves, waves(f.policies, f.intended)...)
}

// gepcheckDoc says whether d is a gepcheck.dev document with no cluster
// object (Scenario, Finding), or why a case with it cannot run in a
// cluster.
func gepcheckDoc(d *load.Doc, t Target) (ignore bool, skip string) {
	if d.Group != simulator.GepcheckGroup {
		return false, ""
	}
	switch {
	case d.Kind == "Scenario" || d.Kind == "Finding":
		return true, ""
	case d.Kind == "PolicyProfile":
		return false, "defines its own PolicyProfile; implementations in a cluster serve built-in profiles"
	case d.Kind == "Topology":
		return false, "a generic Topology has no cluster objects"
	case d.Kind == "ObjectFields" && !t.Features.Has(features.ObjectFields):
		return false, "uses ObjectFields, which the implementation does not read"
	}
	return false, ""
}

// filling is the objects fill makes, by the order they are created in.
type filling struct {
	p                            *Plan
	t                            Target
	prefix                       string // of the names of the run's cluster-scoped objects
	policies, others, namespaces []*unstructured.Unstructured
	// intended holds the creationTimestamp a policy was written with.
	intended map[*unstructured.Unstructured]time.Time
}

// mapNS names the cluster's namespace of a scenario's namespace.
func (f *filling) mapNS(ns string) string {
	if ns == "" {
		ns = "default"
	}
	if got, ok := f.p.Namespaces[ns]; ok {
		return got
	}
	f.p.Namespaces[ns] = dnsLabel(f.prefix + ns)
	return f.p.Namespaces[ns]
}

// add makes the cluster's object of d, or sets p.Skip and returns false.
func (f *filling) add(d *load.Doc) bool {
	p := f.p
	u := &unstructured.Unstructured{Object: jsonmap.Clone(d.Raw)}
	isPolicy := policyKinds()[d.Group+"/"+d.Kind]
	if isPolicy && !f.policy(d, u) {
		return false
	}
	strip(u)
	if !clusterScoped[d.Kind] {
		u.SetNamespace(f.mapNS(d.Namespace))
	}
	switch d.Kind {
	case "Namespace":
		u.SetName(f.mapNS(d.Name))
		f.namespaces = append(f.namespaces, u)
		return true
	case "GatewayClass", "ObjectFields":
		p.Names[d.Kind+"/"+d.Name] = dnsLabel(f.prefix + d.Name)
	}
	if isPolicy {
		f.policies = append(f.policies, u)
	} else {
		f.others = append(f.others, u)
	}
	return true
}

// policy prepares policy u of document d: its kind must be served, its
// intended creationTimestamp is kept, and the nulls the kind's CRD prunes
// are pruned.
func (f *filling) policy(d *load.Doc, u *unstructured.Unstructured) bool {
	p := f.p
	if !f.t.Features.Has(features.PolicyKind(d.Kind)) {
		p.Skip = "uses " + d.Kind + ", which the implementation does not serve"
		return false
	}
	if !slices.Contains(p.Labels, d.Kind) {
		p.Labels = append(p.Labels, d.Kind)
	}
	if ts := u.GetCreationTimestamp(); !ts.IsZero() {
		f.intended[u] = ts.Time
	}
	if prunedNulls()[d.Group+"/"+d.Kind] {
		profile.PruneNulls(u.Object["spec"])
	}
	return true
}

// undeclaredNamespaces makes the Namespaces the scenario uses without
// declaring them.
func (p *Plan) undeclaredNamespaces(namespaces []*unstructured.Unstructured) []*unstructured.Unstructured {
	declared := map[string]bool{}
	for _, n := range namespaces {
		declared[n.GetName()] = true
	}
	var out []*unstructured.Unstructured
	for _, orig := range sortedKeys(p.Namespaces) {
		if mapped := p.Namespaces[orig]; !declared[mapped] {
			n := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": mapped}}}
			out = append(out, n)
		}
	}
	return out
}

// forCluster renames u's references to the cluster's names, labels it as
// the run's, and adapts the kinds the cluster treats apart.
func (p *Plan) forCluster(u *unstructured.Unstructured, t Target) {
	p.rewrite(u.Object, "")
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[cluster.LabelManagedBy] = cluster.ManagedBy
	labels[cluster.LabelRun] = t.Run
	labels[cluster.LabelScenario] = fmt.Sprint(t.Index)
	u.SetLabels(labels)
	switch u.GetKind() {
	case "Namespace":
		p.annotate(u, t)
		// Namespace selectors in the scenario match the declared
		// name; keep the label they read.
		labels["kubernetes.io/metadata.name"] = u.GetName()
		u.SetLabels(labels)
	case "GatewayClass":
		if _, other := u.GetAnnotations()[simulator.AnnotationOtherImplementation]; !other {
			_ = unstructured.SetNestedField(u.Object, t.ControllerName, "spec", "controllerName")
		}
	case "Service":
		unstructured.RemoveNestedField(u.Object, "spec", "clusterIP")
		unstructured.RemoveNestedField(u.Object, "spec", "clusterIPs")
		if t.Endpoints {
			p.Endpoints = append(p.Endpoints, endpointSlice(u, len(p.Endpoints)))
		}
	}
}

// annotate adds the annotations the implementation asks for on Namespace u
// (Target.Annotations).
func (p *Plan) annotate(u *unstructured.Unstructured, t Target) {
	if t.Annotations == nil {
		return
	}
	extra := t.Annotations(p.Profiles, t.Run+"-"+fmt.Sprint(t.Index))
	if len(extra) == 0 {
		return
	}
	ann := u.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	maps.Copy(ann, extra)
	u.SetAnnotations(ann)
}

// waves groups policies by intended creationTimestamp, earliest first; a
// policy without one is created with the first group.
func waves(policies []*unstructured.Unstructured, intended map[*unstructured.Unstructured]time.Time) [][]*unstructured.Unstructured {
	sort.SliceStable(policies, func(a, b int) bool { return intended[policies[a]].Before(intended[policies[b]]) })
	var out [][]*unstructured.Unstructured
	var last time.Time
	for i, u := range policies {
		ts := intended[u]
		if i == 0 || !ts.Equal(last) {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], u)
		last = ts
	}
	return out
}

// endpointSlice gives Service u one ready endpoint on each of its ports,
// at a documentation address (192.0.2.0/24, RFC 5737) nothing answers.
func endpointSlice(u *unstructured.Unstructured, i int) *unstructured.Unstructured {
	ports, _, _ := unstructured.NestedSlice(u.Object, "spec", "ports")
	var eps []any
	for _, p := range ports {
		pm, _ := p.(map[string]any)
		port := pm["port"]
		if tp, ok := pm["targetPort"]; ok {
			if _, isString := tp.(string); !isString {
				port = tp
			}
		}
		e := map[string]any{"port": port, "protocol": "TCP"}
		if n, ok := pm["name"].(string); ok {
			e["name"] = n
		}
		eps = append(eps, e)
	}
	labels := map[string]any{
		"kubernetes.io/service-name":             u.GetName(),
		"endpointslice.kubernetes.io/managed-by": "gepcheck.dev",
	}
	for k, v := range u.GetLabels() {
		if strings.HasPrefix(k, "gepcheck.dev/") {
			labels[k] = v
		}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion":  "discovery.k8s.io/v1",
		"kind":        "EndpointSlice",
		"metadata":    map[string]any{"name": dnsLabel(u.GetName() + "-gepcheck"), "namespace": u.GetNamespace(), "labels": labels},
		"addressType": "IPv4",
		"endpoints":   []any{map[string]any{"addresses": []any{fmt.Sprintf("192.0.2.%d", 1+i%250)}, "conditions": map[string]any{"ready": true}}},
		"ports":       eps,
	}}
}

// rewrite maps namespace and cluster-scoped names in an object: every
// "namespace" field, namespace-name selectors, gatewayClassName, and
// references of kind GatewayClass.
func (p *Plan) rewrite(v any, key string) {
	switch x := v.(type) {
	case map[string]any:
		kind, _ := x["kind"].(string)
		for k, val := range x {
			s, isString := val.(string)
			switch {
			case isString && (k == "namespace" || k == "kubernetes.io/metadata.name"):
				if m, ok := p.Namespaces[s]; ok {
					x[k] = m
				}
			case isString && k == "gatewayClassName":
				if m, ok := p.Names["GatewayClass/"+s]; ok {
					x[k] = m
				}
			case isString && k == "name" && (kind == "GatewayClass" || kind == "ObjectFields"):
				if m, ok := p.Names[kind+"/"+s]; ok {
					x[k] = m
				}
			case k == "metadata":
				if md, ok := val.(map[string]any); ok {
					p.rewriteMetadata(md, kind)
				}
			default:
				p.rewrite(val, k)
			}
		}
	case []any:
		for _, e := range x {
			p.rewrite(e, key)
		}
	}
}

// rewriteMetadata maps the metadata of an object of kind: the name of a
// cluster-scoped object, and the namespace and selectors within.
func (p *Plan) rewriteMetadata(md map[string]any, kind string) {
	if n, ok := md["name"].(string); ok {
		if m, ok := p.Names[kind+"/"+n]; ok {
			md["name"] = m
		}
	}
	p.rewrite(md, "metadata")
}

// PolicyObjects are the plan's policies, as applied.
func (p *Plan) PolicyObjects() []*unstructured.Unstructured {
	return slices.Concat(p.PolicyWaves...)
}

// ScenarioObjects are the scenario's objects in creation order (not the
// EndpointSlices gepcheck adds).
func (p *Plan) ScenarioObjects() []*unstructured.Unstructured {
	return slices.Concat(p.NamespaceObjects, p.Objects, p.PolicyObjects())
}

// UnmapAll turns the cluster's names in the differences' paths and refs
// back into the scenario's.
func (p *Plan) UnmapAll(ds []compare.Difference) []compare.Difference {
	out := make([]compare.Difference, len(ds))
	for i, d := range ds {
		if d.Path != nil {
			d.Path = slices.Clone(d.Path)
			for j := range d.Path {
				d.Path[j] = p.Unmap(d.Path[j])
			}
		}
		d.Ref = p.Unmap(d.Ref)
		d.WantMessage = p.Unmap(d.WantMessage)
		if got, ok := d.Got.(string); ok {
			d.Got = p.Unmap(got) // a status rule's
		}
		out[i] = d
	}
	return out
}

// Unmap turns cluster names in s (a name, a ref, an error message) back
// into the scenario's.
func (p *Plan) Unmap(s string) string {
	type pair struct{ from, to string }
	var pairs []pair
	for orig, m := range p.Namespaces {
		pairs = append(pairs, pair{m, orig})
	}
	for k, m := range p.Names {
		pairs = append(pairs, pair{m, k[strings.Index(k, "/")+1:]})
	}
	sort.Slice(pairs, func(a, b int) bool { return len(pairs[a].from) > len(pairs[b].from) })
	for _, pr := range pairs {
		s = strings.ReplaceAll(s, pr.from, pr.to)
	}
	return s
}

// strip removes what the API server owns.
func strip(u *unstructured.Unstructured) {
	delete(u.Object, "status")
	for _, f := range []string{"creationTimestamp", "resourceVersion", "uid", "generation", "managedFields", "selfLink"} {
		unstructured.RemoveNestedField(u.Object, "metadata", f)
	}
}

func specLabel(file string) string {
	dir := filepath.Base(filepath.Dir(file))
	switch {
	case strings.Contains(file, "findings"):
		return "findings"
	case strings.HasPrefix(filepath.Base(file), "random-"):
		return "random"
	case dir == "." || dir == "/":
		return "scenario"
	}
	return dir
}

// dnsLabel shortens s to a valid DNS label, keeping it unique with a hash.
func dnsLabel(s string) string {
	s = strings.ToLower(s)
	if len(s) <= 63 {
		return s
	}
	h := sha256.Sum256([]byte(s))
	return strings.TrimRight(s[:54], "-.") + "-" + hex.EncodeToString(h[:])[:8]
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
