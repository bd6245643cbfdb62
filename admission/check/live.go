package check

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/gepcheck/gepcheck/admission"
)

// Live is what a running cluster says of admission: its webhook
// configurations, the resources it serves (its discovery, CRDs included),
// and its namespaces' labels; what gepcheck admission simulate
// --from-cluster predicts with.
type Live struct {
	Mutating   []admissionv1.MutatingWebhookConfiguration
	Validating []admissionv1.ValidatingWebhookConfiguration
	Resources  *admission.Snapshot
	kube       kubernetes.Interface
}

// ReadLive reads the cluster cfg reaches: at most max configurations of
// each kind and max CustomResourceDefinitions (an error beyond), every
// resource discovery lists (a group whose discovery fails is left out, as
// kubectl leaves it), those of its CRDs as their CRDs say (admission.Served
// Custom: the storage of a custom resource differs).
func ReadLive(ctx context.Context, cfg *rest.Config, max int) (*Live, error) {
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ext, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	l := &Live{kube: kube}
	api := kube.AdmissionregistrationV1()
	opts := metav1.ListOptions{Limit: int64(max) + 1}
	m, err := api.MutatingWebhookConfigurations().List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list MutatingWebhookConfigurations: %w", err)
	}
	v, err := api.ValidatingWebhookConfigurations().List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list ValidatingWebhookConfigurations: %w", err)
	}
	if len(m.Items) > max || len(v.Items) > max || m.Continue != "" || v.Continue != "" {
		return nil, fmt.Errorf("the cluster has more than %d webhook configurations of a kind (--max-documents)", max)
	}
	l.Mutating, l.Validating = m.Items, v.Items
	_, lists, err := kube.Discovery().ServerGroupsAndResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	server := "cluster"
	if ver, err := kube.Discovery().ServerVersion(); err == nil {
		server = "kube-apiserver " + ver.GitVersion
	}
	crds, err := ext.ApiextensionsV1().CustomResourceDefinitions().List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list CustomResourceDefinitions: %w", err)
	}
	if len(crds.Items) > max || crds.Continue != "" {
		return nil, fmt.Errorf("the cluster has more than %d CustomResourceDefinitions (--max-documents)", max)
	}
	l.Resources = admission.FromDiscovery(server, lists).WithCRDs(crds.Items)
	return l, nil
}

// namespaceLabels are the labels of namespace ns in the cluster, nil when
// it does not exist.
func (l *Live) namespaceLabels(ctx context.Context, ns string) (map[string]string, error) {
	got, err := l.kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	labels := map[string]string{"kubernetes.io/metadata.name": ns}
	maps.Copy(labels, got.Labels)
	return labels, nil
}

// WithNamespace is req, a request on a namespaced resource, with its
// namespace's labels as the cluster has them, unless the request line gave
// them (nslabels=, nsmissing=); a request on a Namespace is judged by the
// Namespace's own labels, which the line gives.
func (l *Live) WithNamespace(ctx context.Context, req admission.Request, line string) (admission.Request, error) {
	given := slices.ContainsFunc(strings.Fields(line), func(f string) bool {
		return strings.HasPrefix(f, "nslabels=") || strings.HasPrefix(f, "nsmissing=")
	})
	if given || req.Namespace == "" || req.Resource.Resource == "namespaces" {
		return req, nil
	}
	labels, err := l.namespaceLabels(ctx, req.Namespace)
	if err != nil {
		return req, fmt.Errorf("read namespace %s: %w", req.Namespace, err)
	}
	req.NamespaceLabels = labels
	return req, nil
}
