package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
)

var (
	namespaceGVR    = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	gatewayClassGVR = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gatewayclasses"}
	objectFieldsGVR = schema.GroupVersionResource{Group: "gepcheck.dev", Version: "v1alpha1", Resource: "objectfields"}
)

// DeleteLabelled deletes the namespaces and the cluster-scoped objects
// gepcheck creates (GatewayClasses, ObjectFields) that match selector,
// which must select on LabelManagedBy. With wait, it returns once the
// namespaces are gone.
func DeleteLabelled(ctx context.Context, c *Cluster, selector string, wait bool) error {
	return deleteLabelledLog(ctx, c, selector, wait, []schema.GroupVersionResource{gatewayClassGVR, objectFieldsGVR}, func(string) {})
}

// Clean deletes everything labelled as gepcheck's in the cluster
// (namespaces with their contents, and objects of every cluster-scoped
// kind), left by an earlier run that crashed, and waits for the
// namespaces to go. CRDs gepcheck installed are kept unless crds is set.
// It returns what it deleted.
func Clean(ctx context.Context, c *Cluster, crds bool) ([]string, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(c.Config)
	if err != nil {
		return nil, err
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil && len(lists) == 0 {
		return nil, err
	}
	var kinds []schema.GroupVersionResource
	for _, l := range lists {
		gv, _ := schema.ParseGroupVersion(l.GroupVersion)
		for _, r := range l.APIResources {
			if r.Namespaced || strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "delete") {
				continue
			}
			gvr := gv.WithResource(r.Name)
			if gvr == namespaceGVR || (gvr.Resource == "customresourcedefinitions" && !crds) {
				continue
			}
			kinds = append(kinds, gvr)
		}
	}
	// CRDs last: deleting one deletes its objects.
	slices.SortStableFunc(kinds, func(a, b schema.GroupVersionResource) int {
		return boolInt(a.Resource == "customresourcedefinitions") - boolInt(b.Resource == "customresourcedefinitions")
	})
	var deleted []string
	log := func(s string) { deleted = append(deleted, s) }
	err = deleteLabelledLog(ctx, c, LabelManagedBy+"="+ManagedBy, true, kinds, log)
	return deleted, err
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func deleteLabelledLog(ctx context.Context, c *Cluster, selector string, wait bool, kinds []schema.GroupVersionResource, log func(string)) error {
	if !strings.Contains(selector, LabelManagedBy+"="+ManagedBy) {
		return fmt.Errorf("refusing to delete by %q: the selector must include %s=%s", selector, LabelManagedBy, ManagedBy)
	}
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	opts := metav1.ListOptions{LabelSelector: selector}
	bg := metav1.DeletePropagationBackground
	del := metav1.DeleteOptions{PropagationPolicy: &bg}
	nss, err := dyn.Resource(namespaceGVR).List(ctx, opts)
	if err != nil {
		return fmt.Errorf("list namespaces: %w", err)
	}
	errs := deleteItems(ctx, dyn.Resource(namespaceGVR), "namespace", nss.Items, del, log)
	for _, gvr := range kinds {
		l, err := dyn.Resource(gvr).List(ctx, opts)
		if err != nil {
			if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
				continue // the kind is not served
			}
			errs = append(errs, fmt.Sprintf("list %s: %v", gvr.Resource, err))
			continue
		}
		errs = append(errs, deleteItems(ctx, dyn.Resource(gvr), gvr.Resource, l.Items, del, log)...)
	}
	if wait {
		if msg := namespacesGone(ctx, dyn, opts); msg != "" {
			errs = append(errs, msg)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("cleanup: %s", strings.Join(errs, "; "))
	}
	return nil
}

// deleteItems deletes the items not already being deleted, logging each
// as "what name"; it returns the errors other than NotFound.
func deleteItems(ctx context.Context, res dynamic.NamespaceableResourceInterface, what string, items []unstructured.Unstructured, del metav1.DeleteOptions, log func(string)) []string {
	var errs []string
	for _, o := range items {
		if o.GetDeletionTimestamp() != nil {
			continue
		}
		if err := res.Delete(ctx, o.GetName(), del); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err.Error())
			continue
		}
		log(what + " " + o.GetName())
	}
	return errs
}

// namespacesGone waits up to Timeouts.Gone for the selected namespaces to
// be gone; it names those still terminating, or is empty.
func namespacesGone(ctx context.Context, dyn *dynamic.DynamicClient, opts metav1.ListOptions) string {
	deadline := time.Now().Add(Timeouts.Gone)
	for {
		l, err := dyn.Resource(namespaceGVR).List(ctx, opts)
		if err == nil && len(l.Items) == 0 {
			return ""
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			var names []string
			if l != nil {
				for _, ns := range l.Items {
					names = append(names, ns.GetName())
				}
			}
			return fmt.Sprintf("namespaces still terminating: %s", strings.Join(names, ", "))
		}
		time.Sleep(250 * time.Millisecond)
	}
}
