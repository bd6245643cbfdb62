package cluster

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
)

// Kube is a client of the cluster for unstructured objects.
type Kube struct {
	Cluster *Cluster
	Dyn     dynamic.Interface
	mapper  *restmapper.DeferredDiscoveryRESTMapper
}

// NewKube connects to c.
func NewKube(c *Cluster) (*Kube, error) {
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(c.Config)
	if err != nil {
		return nil, err
	}
	return &Kube{Cluster: c, Dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}, nil
}

// Resource returns the client for objects of kind gvk in namespace.
func (k *Kube) Resource(gvk schema.GroupVersionKind, namespace string) (dynamic.ResourceInterface, error) {
	m, err := k.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		k.mapper.Reset()
		m, err = k.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, fmt.Errorf("%s is not served by the cluster (is its CRD installed?): %w", gvk.Kind, err)
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return k.Dyn.Resource(m.Resource).Namespace(namespace), nil
	}
	return k.Dyn.Resource(m.Resource), nil
}

// Get reads one object as stored.
func (k *Kube) Get(ctx context.Context, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	r, err := k.Resource(u.GroupVersionKind(), u.GetNamespace())
	if err != nil {
		return nil, err
	}
	return r.Get(ctx, u.GetName(), metav1.GetOptions{})
}

// List lists objects of a kind in a namespace ("" for all or cluster
// scope) with a label selector.
func (k *Kube) List(ctx context.Context, gvk schema.GroupVersionKind, namespace, selector string) ([]unstructured.Unstructured, error) {
	r, err := k.Resource(gvk, namespace)
	if err != nil {
		return nil, err
	}
	l, err := r.List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}
