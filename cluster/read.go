package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/topology"
)

// ReadOptions say what ReadState reads.
type ReadOptions struct {
	// Namespace is the namespace whose objects are read; empty: every
	// namespace (-A). Cluster-scoped kinds are read whole.
	Namespace string
	// Groups are read whole: every kind of theirs the cluster serves
	// (Gateway API's group).
	Groups []string
	// Kinds are read too, where the cluster serves them (core Services
	// and Namespaces, the policy kinds of the profiles, the kinds their
	// references name).
	Kinds []schema.GroupKind
	// Reads reports whether a version of a kind is one the reader of the
	// documents reads (topology.LookupServed for Gateway API's kinds);
	// nil: any.
	Reads func(group, kind, version string) bool
	// Limits bound the reading as they bound files (docs/limits.md): at
	// most MaxDocuments objects in all, each at most MaxBytes.
	Limits load.Limits
	// PageSize is the most objects one list request asks for (Limit,
	// then Continue); 0: 500.
	PageSize int64
}

// Covers reports whether an object of group and kind in namespace ("" for
// a cluster-scoped one) is one o reads: its group read whole or its kind
// listed, and in the namespace read. An object it does not cover is
// neither present nor absent in what was read.
func (o ReadOptions) Covers(group, kind, namespace string) bool {
	if !slices.Contains(o.Groups, group) && !slices.Contains(o.Kinds, schema.GroupKind{Group: group, Kind: kind}) {
		return false
	}
	return namespace == "" || o.Namespace == "" || namespace == o.Namespace
}

// ReadOptionsFor are the options gepcheck's --from-cluster reads with for
// opts (docs/cluster.md, Reading a cluster): Gateway API's groups at the
// versions gepcheck reads (topology.LookupServed), Services, Namespaces,
// the policy kinds of opts' profiles and the kinds their references name
// (simulator.ReadKinds), in namespace ("": every namespace, -A), within
// opts.Limits.
func ReadOptionsFor(opts simulator.Options, namespace string) (ReadOptions, error) {
	policies, referenced, err := simulator.ReadKinds(opts)
	if err != nil {
		return ReadOptions{}, err
	}
	o := ReadOptions{
		Namespace: namespace,
		Groups:    []string{simulator.GatewayGroup, topology.ExperimentalGroup},
		Kinds:     []schema.GroupKind{{Kind: "Service"}, {Kind: "Namespace"}},
		Reads: func(group, kind, version string) bool {
			s, ok := topology.LookupServed(group, kind)
			return !ok || s.Serves(version)
		},
		Limits: opts.Limits,
	}
	for _, gk := range append(policies, referenced...) {
		o.Kinds = append(o.Kinds, schema.GroupKind{Group: gk.Group, Kind: gk.Kind})
	}
	return o, nil
}

// State is what ReadState read: every object as a document of the loader
// (named "cluster:CONTEXT/KIND/NAMESPACE/NAME"), sorted by group, kind,
// namespace and name, without status and server-owned metadata; and the
// CustomResourceDefinitions of the kinds read, by name.
type State struct {
	Docs []*load.Doc
	CRDs []*apiextensionsv1.CustomResourceDefinition
}

// ReadOnly wraps cfg so that every request it makes that is not a GET is
// refused before it leaves the process (ErrWrite): ReadState reads, and
// nothing it calls can write.
func ReadOnly(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.Wrap(func(rt http.RoundTripper) http.RoundTripper { return readOnly{rt} })
	return c
}

// ErrWrite is the error of a request ReadOnly refused.
var ErrWrite = fmt.Errorf("gepcheck reads the cluster and never writes to it")

type readOnly struct{ next http.RoundTripper }

func (r readOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet {
		return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL.Path, ErrWrite)
	}
	return r.next.RoundTrip(req)
}

// ReadState reads the objects o names from c, through ReadOnly: lists,
// paged, within o.Limits.
func ReadState(ctx context.Context, c *Cluster, o ReadOptions) (*State, error) {
	cfg := ReadOnly(c.Config)
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	groups, lists, err := dc.ServerGroupsAndResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("cluster %s: discovery: %w", c.Name, err)
	}
	// A group whose discovery failed (an aggregated API that is down) is
	// left out unless it is one to read: reading without it would
	// simulate a state with its objects missing.
	var failed *discovery.ErrGroupDiscoveryFailed
	if errors.As(err, &failed) {
		var gvs []string
		for gv, gerr := range failed.Groups {
			if o.wants(gv.Group) {
				gvs = append(gvs, fmt.Sprintf("%s: %v", gv, gerr))
			}
		}
		if len(gvs) > 0 {
			slices.Sort(gvs)
			return nil, fmt.Errorf("cluster %s: discovery failed, so the objects of a group gepcheck reads cannot be read: %s", c.Name, strings.Join(gvs, "; "))
		}
	}
	lim := o.Limits.OrDefault()
	page := o.PageSize
	if page <= 0 {
		page = 500
	}
	r := &reader{ctx: ctx, c: c, dyn: dyn, o: o, lim: lim, page: page}
	for _, res := range pickResources(groups, lists, o) {
		if err := r.list(res); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(r.docs, func(a, b *load.Doc) int {
		return strings.Compare(a.Group+"/"+a.Kind+"/"+a.Namespace+"/"+a.Name, b.Group+"/"+b.Kind+"/"+b.Namespace+"/"+b.Name)
	})
	crds, err := r.crds()
	if err != nil {
		return nil, err
	}
	return &State{Docs: r.docs, CRDs: crds}, nil
}

// wants reports whether o reads any kind of group.
func (o ReadOptions) wants(group string) bool {
	if slices.Contains(o.Groups, group) {
		return true
	}
	return slices.ContainsFunc(o.Kinds, func(gk schema.GroupKind) bool { return gk.Group == group })
}

// resource is one kind to list, at the version chosen.
type resource struct {
	gvr        schema.GroupVersionResource
	kind       string
	namespaced bool
}

// pickResources chooses, for every kind o asks for that the cluster
// serves, one version: the group's preferred one when the reader reads it,
// else the first of the group's versions (discovery's order) it reads.
func pickResources(groups []*metav1.APIGroup, lists []*metav1.APIResourceList, o ReadOptions) []resource {
	type candidate struct {
		version string
		res     metav1.APIResource
	}
	byKind := map[schema.GroupKind][]candidate{}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, res := range l.APIResources {
			if strings.Contains(res.Name, "/") || !slices.Contains(res.Verbs, "list") {
				continue
			}
			gk := schema.GroupKind{Group: gv.Group, Kind: res.Kind}
			if !slices.Contains(o.Groups, gv.Group) && !slices.Contains(o.Kinds, gk) {
				continue
			}
			if gk == (schema.GroupKind{Kind: "Secret"}) {
				continue // never read: nothing gepcheck simulates needs a Secret's data
			}
			if o.Reads != nil && !o.Reads(gv.Group, res.Kind, gv.Version) {
				continue
			}
			byKind[gk] = append(byKind[gk], candidate{gv.Version, res})
		}
	}
	order := func(group, version string) int {
		for _, g := range groups {
			if g.Name != group {
				continue
			}
			if g.PreferredVersion.Version == version {
				return -1
			}
			for i, v := range g.Versions {
				if v.Version == version {
					return i
				}
			}
		}
		return 1 << 20
	}
	var out []resource
	for gk, cs := range byKind {
		best := slices.MinFunc(cs, func(a, b candidate) int {
			return order(gk.Group, a.version) - order(gk.Group, b.version)
		})
		out = append(out, resource{gvr: schema.GroupVersionResource{Group: gk.Group, Version: best.version, Resource: best.res.Name}, kind: gk.Kind, namespaced: best.res.Namespaced})
	}
	slices.SortFunc(out, func(a, b resource) int {
		return strings.Compare(a.gvr.Group+"/"+a.kind, b.gvr.Group+"/"+b.kind)
	})
	return out
}

type reader struct {
	ctx  context.Context
	c    *Cluster
	dyn  dynamic.Interface
	o    ReadOptions
	lim  load.Limits
	page int64
	docs []*load.Doc
	read int // objects read, against lim.MaxDocuments
	gks  []schema.GroupKind
}

// maxPages bounds the pages of one list: as many as MaxDocuments objects
// fill, and a few more (a server that keeps answering empty pages with a
// continue token ends the reading, as a limit does).
func (r *reader) maxPages() int { return r.lim.MaxDocuments/int(r.page) + 3 }

// list reads every object of one resource, a page at a time.
func (r *reader) list(res resource) error {
	ri := dynamic.ResourceInterface(r.dyn.Resource(res.gvr))
	if res.namespaced && r.o.Namespace != "" {
		ri = r.dyn.Resource(res.gvr).Namespace(r.o.Namespace)
	}
	r.gks = append(r.gks, schema.GroupKind{Group: res.gvr.Group, Kind: res.kind})
	cont := ""
	for pages := 0; ; pages++ {
		if pages > r.maxPages() {
			return fmt.Errorf("cluster %s: list %s: more than %d pages (the server keeps returning a continue token)", r.c.Name, res.gvr.GroupResource(), r.maxPages())
		}
		l, err := ri.List(r.ctx, metav1.ListOptions{Limit: r.page, Continue: cont})
		if err != nil {
			return fmt.Errorf("cluster %s: list %s: %w", r.c.Name, res.gvr.GroupResource(), err)
		}
		for i := range l.Items {
			if r.read++; r.read > r.lim.MaxDocuments {
				return &load.Error{Source: load.Source{File: r.source(&l.Items[i])}, Msg: fmt.Sprintf("more than %d objects in all (the limit; --max-documents raises it)", r.lim.MaxDocuments)}
			}
			if err := r.add(&l.Items[i]); err != nil {
				return err
			}
		}
		if cont = l.GetContinue(); cont == "" {
			return nil
		}
	}
}

// source names an object read: cluster:CONTEXT/KIND/NAMESPACE/NAME (no
// namespace for a cluster-scoped one).
func (r *reader) source(u *unstructured.Unstructured) string {
	parts := []string{u.GetKind()}
	if ns := u.GetNamespace(); ns != "" {
		parts = append(parts, ns)
	}
	return "cluster:" + r.c.Name + "/" + strings.Join(append(parts, u.GetName()), "/")
}

// add turns one object into a document through the loader, as a file's
// would be: without status, managedFields and the metadata the server
// owns (creationTimestamp is kept: GEP-713, Conflict resolution).
func (r *reader) add(u *unstructured.Unstructured) error {
	c := u.DeepCopy()
	delete(c.Object, "status")
	for _, f := range []string{"managedFields", "resourceVersion", "uid", "generation", "selfLink"} {
		unstructured.RemoveNestedField(c.Object, "metadata", f)
	}
	unstructured.RemoveNestedField(c.Object, "metadata", "annotations", "kubectl.kubernetes.io/last-applied-configuration")
	if a := c.GetAnnotations(); a != nil && len(a) == 0 {
		unstructured.RemoveNestedField(c.Object, "metadata", "annotations")
	}
	if c.GetKind() == "Namespace" && c.GroupVersionKind().Group == "" {
		delete(c.Object, "spec")
	}
	data, err := yaml.Marshal(c.Object)
	if err != nil {
		return fmt.Errorf("%s: %w", r.source(u), err)
	}
	docs, err := load.ReadBytes(r.source(u), data, r.lim)
	if err != nil {
		return err
	}
	r.docs = append(r.docs, docs...)
	return nil
}

// crds reads the CustomResourceDefinitions of the kinds read.
func (r *reader) crds() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	gvr := apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions")
	var out []*apiextensionsv1.CustomResourceDefinition
	cont, total := "", 0
	for pages := 0; ; pages++ {
		if pages > r.maxPages() {
			return nil, fmt.Errorf("cluster %s: list CustomResourceDefinitions: more than %d pages (the server keeps returning a continue token)", r.c.Name, r.maxPages())
		}
		l, err := r.dyn.Resource(gvr).List(r.ctx, metav1.ListOptions{Limit: r.page, Continue: cont})
		if err != nil {
			return nil, fmt.Errorf("cluster %s: list CustomResourceDefinitions: %w", r.c.Name, err)
		}
		for i := range l.Items {
			if total++; total > r.lim.MaxDocuments {
				return nil, fmt.Errorf("cluster %s: more than %d CustomResourceDefinitions (the limit; --max-documents raises it)", r.c.Name, r.lim.MaxDocuments)
			}
			u := &l.Items[i]
			group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
			kind, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
			if !slices.Contains(r.gks, schema.GroupKind{Group: group, Kind: kind}) {
				continue // not converted: only the CRDs of the kinds read are kept
			}
			// Each at most MaxBytes, as every object read (docs/cluster.md,
			// Reading a cluster).
			if data, err := json.Marshal(u.Object); err != nil || int64(len(data)) > r.lim.MaxBytes {
				return nil, &load.Error{Source: load.Source{File: r.source(u)}, Msg: fmt.Sprintf("more than %d bytes (the limit; --max-bytes raises it)", r.lim.MaxBytes)}
			}
			var crd apiextensionsv1.CustomResourceDefinition
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &crd); err != nil {
				return nil, fmt.Errorf("%s: %w", r.source(u), err)
			}
			crd.ManagedFields = nil
			out = append(out, &crd)
		}
		if cont = l.GetContinue(); cont == "" {
			break
		}
	}
	slices.SortFunc(out, func(a, b *apiextensionsv1.CustomResourceDefinition) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
