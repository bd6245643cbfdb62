package admission

import (
	_ "embed"
	"encoding/json"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Served is one resource (or subresource) of a group version an API server
// serves, with the kind of the objects a request on it sends.
type Served struct {
	Group       string `json:"group"`
	Version     string `json:"version"`
	Resource    string `json:"resource"`
	Subresource string `json:"subresource,omitempty"`
	// KindGroup, KindVersion and Kind are the kind's (a subresource's
	// own: Scale in autoscaling/v1, Eviction in policy/v1, …).
	KindGroup   string `json:"kindGroup"`
	KindVersion string `json:"kindVersion"`
	Kind        string `json:"kind"`
	Namespaced  bool   `json:"namespaced"`
	// Verbs are the verbs discovery lists for it, sorted: the operations
	// a request on it can be (Operations). None for a version a CRD does
	// not serve, which a rule may still name.
	Verbs []string `json:"verbs,omitempty"`
	// Custom marks a custom resource's (WithCRDs): its storage differs
	// from kube-apiserver's own resources' (ForValidation).
	Custom bool `json:"custom,omitempty"`
}

// Operations are the admission operations of the requests x takes
// (endpoints/installer.go): every request on a connecter's subresource
// (pods/exec, nodes/proxy, …: its kind is the connection's options,
// PodExecOptions, …) is a CONNECT; otherwise create is CREATE, update and
// patch are UPDATE, delete and deletecollection DELETE. The API server
// refuses any other request before admission (404, 405).
func (x Served) Operations() []admissionv1.OperationType {
	if len(x.Verbs) == 0 {
		return nil
	}
	if strings.HasSuffix(x.Kind, "Options") {
		return []admissionv1.OperationType{admissionv1.Connect}
	}
	var ops []admissionv1.OperationType
	for _, o := range []struct {
		op    admissionv1.OperationType
		verbs []string
	}{{admissionv1.Create, []string{"create"}}, {admissionv1.Update, []string{"update", "patch"}}, {admissionv1.Delete, []string{"delete", "deletecollection"}}} {
		if slices.ContainsFunc(o.verbs, func(v string) bool { return slices.Contains(x.Verbs, v) }) {
			ops = append(ops, o.op)
		}
	}
	return ops
}

// GVK is x's kind.
func (x Served) GVK() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: x.KindGroup, Version: x.KindVersion, Kind: x.Kind}
}

// JSON is s as the snapshot file holds it: one served resource a line, so
// that a new API server version reads as a short diff.
func (s *Snapshot) JSON() []byte {
	var b strings.Builder
	head, _ := json.Marshal(s.Server)
	b.WriteString("{\"server\": " + string(head) + ", \"served\": [\n")
	for i, x := range s.Served {
		line, _ := json.Marshal(x)
		b.Write(line)
		if i < len(s.Served)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("]}\n")
	return []byte(b.String())
}

// Snapshot is what one API server serves, read from its discovery
// (FromDiscovery): the Resources of kube-apiserver without a cluster to
// ask.
type Snapshot struct {
	// Server names the API server read (kube-apiserver v1.36.3).
	Server string   `json:"server"`
	Served []Served `json:"served"`
}

//go:embed kube-apiserver.json
var builtin []byte

// Builtin is the snapshot of the kube-apiserver gepcheck builds, with its
// default API groups (TestLocalResources compares it with the discovery of
// one running).
func Builtin() *Snapshot {
	var s Snapshot
	if err := json.Unmarshal(builtin, &s); err != nil {
		panic("admission: kube-apiserver.json: " + err.Error())
	}
	return &s
}

// cohabiting are the resources a kube-apiserver stores as one, beside the
// versions of one group's resource (pkg/kubeapiserver/
// default_storage_factory_builder.go, AddCohabitatingResources): a request
// on one is equivalent to a request on the other (matchPolicy Equivalent).
// The first of a pair names the class.
var cohabiting = [][2]schema.GroupResource{
	{{Group: "networking.k8s.io", Resource: "networkpolicies"}, {Group: "extensions", Resource: "networkpolicies"}},
	{{Group: "apps", Resource: "deployments"}, {Group: "extensions", Resource: "deployments"}},
	{{Group: "apps", Resource: "daemonsets"}, {Group: "extensions", Resource: "daemonsets"}},
	{{Group: "apps", Resource: "replicasets"}, {Group: "extensions", Resource: "replicasets"}},
	{{Resource: "events"}, {Group: "events.k8s.io", Resource: "events"}},
	{{Resource: "replicationcontrollers"}, {Group: "extensions", Resource: "replicationcontrollers"}},
	{{Group: "networking.k8s.io", Resource: "ingresses"}, {Group: "extensions", Resource: "ingresses"}},
}

// class is the storage a group's resource is served from.
func class(gr schema.GroupResource) schema.GroupResource {
	for _, c := range cohabiting {
		if c[1] == gr {
			return c[0]
		}
	}
	return gr
}

// Lookup implements Resources.
func (s *Snapshot) Lookup(r schema.GroupVersionResource, sub string) (Served, bool) {
	for _, x := range s.Served {
		if x.Group == r.Group && x.Version == r.Version && x.Resource == r.Resource && x.Subresource == sub {
			return x, true
		}
	}
	return Served{}, false
}

// Equivalents implements Resources: the resources of the same storage
// with the same subresource, in the snapshot's order.
func (s *Snapshot) Equivalents(r schema.GroupVersionResource, sub string) []schema.GroupVersionResource {
	c := class(r.GroupResource())
	var out []schema.GroupVersionResource
	for _, x := range s.Served {
		gvr := schema.GroupVersionResource{Group: x.Group, Version: x.Version, Resource: x.Resource}
		if x.Subresource == sub && class(gvr.GroupResource()) == c {
			out = append(out, gvr)
		}
	}
	return out
}

// FromDiscovery is the snapshot of the resources discovery lists (the
// API server's ServerGroupsAndResources), sorted by group, version,
// resource and subresource so that two reads of one server are equal.
func FromDiscovery(server string, lists []*metav1.APIResourceList) *Snapshot {
	s := &Snapshot{Server: server}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			res, sub, _ := strings.Cut(r.Name, "/")
			x := Served{Group: gv.Group, Version: gv.Version, Resource: res, Subresource: sub, KindGroup: gv.Group, KindVersion: gv.Version, Kind: r.Kind, Namespaced: r.Namespaced, Verbs: slices.Sorted(slices.Values(r.Verbs))}
			if r.Group != "" || r.Version != "" { // a subresource of another group's kind (Scale)
				x.KindGroup, x.KindVersion = r.Group, r.Version
			}
			s.Served = append(s.Served, x)
		}
	}
	slices.SortFunc(s.Served, func(a, b Served) int {
		return strings.Compare(a.Group+"/"+a.Version+"/"+a.Resource+"/"+a.Subresource, b.Group+"/"+b.Version+"/"+b.Resource+"/"+b.Subresource)
	})
	return s
}

// WithCRDs is s and the resources of crds, in place of any s serves under
// the same group and resource (a cluster's, read from discovery), as
// kube-apiserver serves a CustomResourceDefinition (apiextensions-apiserver
// customresource_handler.go): every version of spec.versions, in its
// order, equivalent to each other (matchPolicy Equivalent), with the
// status and scale subresources the version has; a scale's kind is
// autoscaling/v1 Scale. Versions not served are registered too, with no
// verbs: a rule may name one, and a request is converted to it.
func (s *Snapshot) WithCRDs(crds []apiextensionsv1.CustomResourceDefinition) *Snapshot {
	out := &Snapshot{Server: s.Server}
	out.Served = slices.DeleteFunc(slices.Clone(s.Served), func(x Served) bool {
		return slices.ContainsFunc(crds, func(crd apiextensionsv1.CustomResourceDefinition) bool {
			return x.Group == crd.Spec.Group && x.Resource == crd.Spec.Names.Plural
		})
	})
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			x := Served{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Spec.Names.Plural,
				KindGroup: crd.Spec.Group, KindVersion: v.Name, Kind: crd.Spec.Names.Kind, Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped, Custom: true}
			// The verbs discovery lists for a custom resource and its
			// subresources (customresource_handler.go).
			sub := x
			if v.Served {
				x.Verbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}
				sub.Verbs = []string{"get", "patch", "update"}
			}
			out.Served = append(out.Served, x)
			if v.Subresources != nil && v.Subresources.Status != nil {
				st := sub
				st.Subresource = "status"
				out.Served = append(out.Served, st)
			}
			if v.Subresources != nil && v.Subresources.Scale != nil {
				sc := sub
				sc.Subresource, sc.KindGroup, sc.KindVersion, sc.Kind = "scale", "autoscaling", "v1", "Scale"
				out.Served = append(out.Served, sc)
			}
		}
	}
	return out
}
