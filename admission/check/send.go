package check

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/gepcheck/gepcheck/admission"
)

// Sendable says whether the check can send req to an API server as it
// is: a request on a resource it has an object for (body) or on that
// object's status, an UPDATE of deployments/scale, or a CONNECT to
// pods/exec (on a pod that does not exist: admission comes first, then the
// API server finds no pod). The operations are those the resource takes
// (ParseRequest refuses others).
func Sendable(req admission.Request) bool {
	if req.Operation == admissionv1.Connect {
		return req.Resource == schema.GroupVersionResource{Version: "v1", Resource: "pods"} && req.Subresource == "exec"
	}
	if _, ok := body(req.Resource, req.Kind.Kind, "x", "default", nil); !ok {
		return false
	}
	switch req.Subresource {
	case "", "status":
		return true
	case "scale":
		return req.Resource.Resource == "deployments"
	}
	return false
}

// body is an object of resource r the API server accepts, named name in
// namespace ns ("" for a cluster-scoped one), with labels: one of the
// built-in kinds below, or of a custom resource's kind (its CRD keeps
// unknown fields, as gen.CRDs's do).
func body(r schema.GroupVersionResource, kind, name, ns string, labels map[string]string) (*unstructured.Unstructured, bool) {
	container := []any{map[string]any{"name": "c", "image": "registry.invalid/c"}}
	spec := map[string]any{}
	switch r.GroupResource().String() {
	case "pods":
		kind, spec["spec"] = "Pod", map[string]any{"containers": container}
	case "configmaps":
		kind, spec["data"] = "ConfigMap", map[string]any{"k": "v"}
	case "namespaces":
		kind = "Namespace"
	case "events":
		kind = "Event"
		spec["involvedObject"] = map[string]any{"kind": "Pod", "name": "p", "namespace": ns}
		spec["reason"], spec["message"], spec["type"] = "Checked", "gepcheck", "Normal"
	case "events.events.k8s.io":
		kind = "Event"
		spec["eventTime"] = time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")
		spec["reportingController"], spec["reportingInstance"] = "gepcheck.dev/admission", "gepcheck"
		spec["action"], spec["reason"], spec["type"] = "Check", "Checked", "Normal"
		spec["regarding"] = map[string]any{"kind": "Pod", "name": "p", "namespace": ns}
	case "deployments.apps":
		kind = "Deployment"
		spec["spec"] = map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"gepcheck": "x"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"gepcheck": "x"}}, "spec": map[string]any{"containers": container}}}
	case "horizontalpodautoscalers.autoscaling":
		kind = "HorizontalPodAutoscaler"
		spec["spec"] = map[string]any{"scaleTargetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "x"}, "maxReplicas": int64(2)}
	case "clusterroles.rbac.authorization.k8s.io":
		kind = "ClusterRole"
	case "validatingwebhookconfigurations.admissionregistration.k8s.io":
		kind = "ValidatingWebhookConfiguration" // no webhooks: it calls nothing
	case "mutatingwebhookconfigurations.admissionregistration.k8s.io":
		kind = "MutatingWebhookConfiguration"
	default:
		if _, builtin := builtins().Lookup(r, ""); builtin || kind == "" {
			return nil, false
		}
		spec["spec"] = map[string]any{"size": int64(1)}
	}
	u := &unstructured.Unstructured{Object: spec}
	u.SetAPIVersion(r.GroupVersion().String())
	u.SetKind(kind)
	u.SetName(name)
	u.SetNamespace(ns)
	if len(labels) > 0 {
		u.SetLabels(labels)
	}
	return u, true
}

// base makes the object an UPDATE or DELETE acts on (with the old
// object's labels), before any hook of the case is registered; the
// returned function deletes it.
func (c *Checker) base(ctx context.Context, req admission.Request) (*unstructured.Unstructured, func(), error) {
	nothing := func() {}
	if req.Operation == admissionv1.Create || req.Operation == admissionv1.Connect {
		return nil, nothing, nil
	}
	var labels map[string]string
	if req.OldObject != nil {
		labels = req.OldObject.GetLabels()
	}
	u, _ := body(req.Resource, req.Kind.Kind, req.Name, req.Namespace, labels)
	if req.Resource.Resource == "namespaces" {
		u.SetNamespace("")
	}
	res := resourceIn(c.dyn, req.Resource, u.GetNamespace())
	got, err := res.Create(ctx, u, metav1.CreateOptions{})
	if err != nil {
		return nil, nothing, fmt.Errorf("create the object the request acts on: %w", err)
	}
	return got, func() {
		_ = res.Delete(context.Background(), u.GetName(), metav1.DeleteOptions{})
	}, nil
}

// builtins are the resources of kube-apiserver itself.
var builtins = sync.OnceValue(admission.Builtin)

func resourceIn(dyn dynamic.Interface, r schema.GroupVersionResource, ns string) dynamic.ResourceInterface {
	if ns == "" {
		return dyn.Resource(r)
	}
	return dyn.Resource(r).Namespace(ns)
}

// clients are the clients of one impersonated user.
type clients struct {
	dyn  dynamic.Interface
	kube kubernetes.Interface
}

// as are the clients that impersonate u, made once per user and groups.
func (c *Checker) as(u admission.UserInfo) (clients, error) {
	key := u.Username + "\x00" + strings.Join(u.Groups, ",")
	if cl, ok := c.users[key]; ok {
		return cl, nil
	}
	cfg := rest.CopyConfig(c.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: u.Username, Groups: u.Groups}
	var cl clients
	var err error
	if cl.dyn, err = dynamic.NewForConfig(cfg); err != nil {
		return cl, err
	}
	if cl.kube, err = kubernetes.NewForConfig(cfg); err != nil {
		return cl, err
	}
	if c.users == nil {
		c.users = map[string]clients{}
	}
	c.users[key] = cl
	return cl, nil
}

// send sends req, dry-run (nothing is stored), as req's user.
func (c *Checker) send(ctx context.Context, req admission.Request, base *unstructured.Unstructured) error {
	cl, err := c.as(req.UserInfo)
	if err != nil {
		return err
	}
	ns := req.Namespace
	if req.Resource.Resource == "namespaces" {
		ns = ""
	}
	res := resourceIn(cl.dyn, req.Resource, ns)
	dry := []string{metav1.DryRunAll}
	var labels map[string]string
	if req.Object != nil {
		labels = req.Object.GetLabels()
	}
	switch {
	case req.Operation == admissionv1.Connect:
		// POST pods/NAME/exec: admitted as CONNECT with PodExecOptions
		// (endpoints/handlers/rest.go, ConnectResource), then the pod is
		// looked up: not found means admission let it through.
		err = cl.kube.CoreV1().RESTClient().Post().Namespace(ns).Resource("pods").Name(req.Name).SubResource("exec").
			Param("command", "true").Param("stdout", "true").Do(ctx).Error()
		if apierrors.IsNotFound(err) {
			return nil
		}
	case req.Operation == admissionv1.Create:
		u, _ := body(req.Resource, req.Kind.Kind, req.Name, ns, labels)
		_, err = res.Create(ctx, u, metav1.CreateOptions{DryRun: dry})
	case req.Operation == admissionv1.Delete:
		err = res.Delete(ctx, req.Name, metav1.DeleteOptions{DryRun: dry})
	case req.Subresource == "scale":
		scale := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale",
			"metadata": map[string]any{"name": req.Name, "namespace": ns}, "spec": map[string]any{"replicas": int64(2)}}}
		_, err = res.Update(ctx, scale, metav1.UpdateOptions{DryRun: dry}, "scale")
	default: // UPDATE of the object or of its status
		u := base.DeepCopy()
		u.SetLabels(labels)
		var sub []string
		if req.Subresource != "" {
			sub = []string{req.Subresource}
		}
		_, err = res.Update(ctx, u, metav1.UpdateOptions{DryRun: dry}, sub...)
	}
	return err
}
