package admission

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	admissionapi "k8s.io/api/admission/v1"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gepcheck/gepcheck/simulator/load"
)

// ParseRequest reads a request written on one line, as a person types it:
//
//	OPERATION GROUP/VERSION RESOURCE[/SUBRESOURCE] [KEY=VALUE]...
//
// (the core group's version is "v1") with the keys ns (the namespace),
// name, user, groups (comma-separated), labels and oldlabels (the object's
// and the old object's, K=V comma-separated), nslabels (the namespace's
// labels besides kubernetes.io/metadata.name, which the API server gives
// every namespace), nsmissing=true (the namespace does not exist) and
// dryrun=true. The object has the kind res serves for the resource (nil:
// the request's kind is unknown). Unknown keys and malformed values are
// errors, and so are labels on a scale request (a Scale has none).
func ParseRequest(line string, res Resources) (Request, error) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return Request{}, fmt.Errorf("want OPERATION GROUP/VERSION RESOURCE[/SUBRESOURCE] [KEY=VALUE]..., got %q", line)
	}
	req := Request{Operation: admissionv1.OperationType(strings.ToUpper(f[0]))}
	if !slices.Contains([]admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect}, req.Operation) {
		return Request{}, fmt.Errorf("operation %q: want CREATE, UPDATE, DELETE or CONNECT (webhooks see no other)", f[0])
	}
	gv, err := schema.ParseGroupVersion(f[1])
	if err != nil || gv.Version == "" {
		return Request{}, fmt.Errorf("group/version %q: want GROUP/VERSION, or v1 for the core group", f[1])
	}
	resource, sub, _ := strings.Cut(f[2], "/")
	req.Resource, req.Subresource = gv.WithResource(resource), sub
	var labels, oldLabels, nsLabels map[string]string
	missing := false
	for _, kv := range f[3:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return Request{}, fmt.Errorf("%q: want KEY=VALUE", kv)
		}
		switch k {
		case "ns":
			req.Namespace = v
		case "name":
			req.Name = v
		case "user":
			req.UserInfo.Username = v
		case "groups":
			req.UserInfo.Groups = strings.Split(v, ",")
		case "labels", "oldlabels", "nslabels":
			m, err := parseLabels(v)
			if err != nil {
				return Request{}, fmt.Errorf("%s: %w", k, err)
			}
			switch k {
			case "labels":
				labels = m
			case "oldlabels":
				oldLabels = m
			default:
				nsLabels = m
			}
		case "nsmissing", "dryrun":
			if v != "true" && v != "false" {
				return Request{}, fmt.Errorf("%s=%s: want true or false", k, v)
			}
			if k == "dryrun" {
				req.DryRun = v == "true"
			} else {
				missing = v == "true"
			}
		default:
			return Request{}, fmt.Errorf("key %q: want ns, name, user, groups, labels, oldlabels, nslabels, nsmissing or dryrun", k)
		}
	}
	if req.Subresource == "scale" && (labels != nil || oldLabels != nil) {
		// A Scale carries no labels, new (as the client sends it) or old
		// (as the API server makes it from the object: scaleFromDeployment
		// and the like set name, namespace, UID, resourceVersion and
		// creationTimestamp): an objectSelector never matches one.
		return Request{}, fmt.Errorf("labels: a Scale has none, whatever the object's (an objectSelector never matches a scale request)")
	}
	if req.Namespace != "" && !missing {
		req.NamespaceLabels = map[string]string{corev1.LabelMetadataName: req.Namespace}
		maps.Copy(req.NamespaceLabels, nsLabels)
	}
	if res != nil {
		var err error
		if req.Kind, err = servedKind(req, res); err != nil {
			return Request{}, err
		}
	}
	object := func(l map[string]string) *unstructured.Unstructured {
		// An object has metadata, if empty (a CONNECT's options have
		// none: an objectSelector never matches them).
		u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{}}}
		u.SetGroupVersionKind(req.Kind)
		u.SetName(req.Name)
		u.SetNamespace(req.Namespace)
		if req.Kind == namespaceKind && req.Name != "" && mutant != MutantNoNameLabel {
			// SetDefaults_Namespace (core/v1 defaults.go) labels every
			// named Namespace with its name, before admission; the one
			// stored has the label too.
			l = maps.Clone(l)
			if l == nil {
				l = map[string]string{}
			}
			l[corev1.LabelMetadataName] = req.Name
		}
		if l != nil {
			u.SetLabels(l)
		}
		return u
	}
	switch req.Operation {
	case admissionv1.Create:
		req.Object = object(labels)
	case admissionv1.Update:
		req.Object, req.OldObject = object(labels), object(oldLabels)
	case admissionv1.Delete:
		req.OldObject = object(oldLabels)
		if labels != nil {
			req.OldObject = object(labels)
		}
	case admissionv1.Connect:
		// The object is the options of the connection (PodExecOptions,
		// …; endpoints/handlers/rest.go, ConnectResource): no metadata,
		// so no labels.
		if labels != nil || oldLabels != nil {
			return Request{}, fmt.Errorf("labels: a CONNECT sends its options (%s), which have none", req.Kind.Kind)
		}
		req.Object = &unstructured.Unstructured{Object: map[string]any{}}
		req.Object.SetGroupVersionKind(req.Kind)
	}
	if req.Resource == namespaces && req.Name != "" {
		// A request on a Namespace carries its name as namespace; the
		// namespace's labels are its own.
		req.Namespace = req.Name
		if !missing {
			req.NamespaceLabels = map[string]string{corev1.LabelMetadataName: req.Name}
			maps.Copy(req.NamespaceLabels, labelsOf(req.OldObject))
			maps.Copy(req.NamespaceLabels, nsLabels)
		}
	}
	return req, nil
}

// servedKind is the kind res serves for req's resource, or why the API
// server refuses req before any webhook sees it: a resource it does not
// serve (404), an operation the resource does not take (405), a
// namespaced resource without a namespace, a cluster-scoped one with one.
func servedKind(req Request, res Resources) (schema.GroupVersionKind, error) {
	what := describeRequest("", req.Resource, req.Subresource)[1:]
	main, ok := res.Lookup(req.Resource, "")
	x, subOK := res.Lookup(req.Resource, req.Subresource)
	switch {
	case !ok || len(main.Verbs) == 0:
		return x.GVK(), fmt.Errorf("%s: not a resource the API server serves (404); give a CustomResourceDefinition's with -f, or read a cluster's with --from-cluster", what)
	case !subOK:
		return x.GVK(), fmt.Errorf("%s: %s has no subresource %q (404)", what, req.Resource.Resource, req.Subresource)
	case !slices.Contains(x.Operations(), req.Operation):
		return x.GVK(), fmt.Errorf("%s %s: it takes %s (its verbs: %s); the API server refuses any other request before admission (405)",
			req.Operation, what, describeOperations(x.Operations()), strings.Join(x.Verbs, ", "))
	case main.Namespaced && req.Namespace == "":
		return x.GVK(), fmt.Errorf("%s: namespaced: give ns=NAMESPACE", what)
	case !main.Namespaced && req.Namespace != "" && req.Resource != namespaces:
		return x.GVK(), fmt.Errorf("ns=%s: %s is cluster-scoped: a request on it has no namespace", req.Namespace, what)
	}
	return x.GVK(), nil
}

func describeOperations(ops []admissionv1.OperationType) string {
	if len(ops) == 0 {
		return "no request that reaches admission"
	}
	s := make([]string, len(ops))
	for i, o := range ops {
		s[i] = string(o)
	}
	return strings.Join(s, ", ")
}

func parseLabels(s string) (map[string]string, error) {
	m := map[string]string{}
	if s == "" {
		return m, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("%q: want KEY=VALUE", kv)
		}
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return nil, fmt.Errorf("label key %q: %s", k, errs[0])
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return nil, fmt.Errorf("label value %q: %s", v, errs[0])
		}
		m[k] = v
	}
	return m, nil
}

// RequestFile reads a request from documents as an API server would send
// it to a webhook: an admission.k8s.io/v1 AdmissionReview's request
// (operation, resource, subResource, kind, namespace, name, object,
// oldObject, userInfo, dryRun), and optionally the v1 Namespace of the
// request's namespace with its labels (without it, a namespace with only
// kubernetes.io/metadata.name). A request res says the API server refuses
// before admission is refused as ParseRequest refuses it; the kind, when
// the review has none, is the one res serves.
func RequestFile(docs []*load.Doc, res Resources) (Request, error) {
	var review *admissionapi.AdmissionReview
	var reviewDoc *load.Doc
	var ns *unstructured.Unstructured
	for _, d := range docs {
		switch {
		case d.Group == "admission.k8s.io" && d.Kind == "AdmissionReview" && review == nil:
			review, reviewDoc = &admissionapi.AdmissionReview{}, d
			if err := load.DecodeStrict(d, review); err != nil {
				return Request{}, err
			}
			if review.Request == nil {
				return Request{}, &load.Error{Source: d.Source, Object: d.Object(), Field: "request", Msg: "required"}
			}
		case d.Group == "" && d.Kind == "Namespace" && ns == nil:
			ns = &unstructured.Unstructured{Object: d.Raw}
		default:
			return Request{}, &load.Error{Source: d.Source, Object: d.Object(), Msg: "want one admission.k8s.io/v1 AdmissionReview and at most one v1 Namespace"}
		}
	}
	if review == nil {
		return Request{}, fmt.Errorf("no admission.k8s.io/v1 AdmissionReview")
	}
	r := review.Request
	req := Request{Operation: admissionv1.OperationType(r.Operation), Resource: schema.GroupVersionResource(r.Resource), Subresource: r.SubResource,
		Kind: schema.GroupVersionKind(r.Kind), Namespace: r.Namespace, Name: r.Name,
		UserInfo: UserInfo{Username: r.UserInfo.Username, UID: r.UserInfo.UID, Groups: r.UserInfo.Groups}}
	if r.DryRun != nil {
		req.DryRun = *r.DryRun
	}
	if len(r.UserInfo.Extra) > 0 {
		req.UserInfo.Extra = map[string][]string{}
		for k, v := range r.UserInfo.Extra {
			req.UserInfo.Extra[k] = v
		}
	}
	for _, o := range []struct {
		raw  []byte
		into **unstructured.Unstructured
	}{{r.Object.Raw, &req.Object}, {r.OldObject.Raw, &req.OldObject}} {
		if len(o.raw) > 0 {
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(o.raw); err != nil {
				return Request{}, fmt.Errorf("request object: %w", err)
			}
			*o.into = u
		}
	}
	if req.Namespace != "" {
		req.NamespaceLabels = map[string]string{corev1.LabelMetadataName: req.Namespace}
		if ns != nil && ns.GetName() == req.Namespace {
			maps.Copy(req.NamespaceLabels, ns.GetLabels())
		}
	}
	if res != nil {
		kind, err := servedKind(req, res)
		if err != nil {
			return Request{}, &load.Error{Source: reviewDoc.Source, Object: reviewDoc.Object(), Field: "request", Msg: err.Error()}
		}
		if req.Kind.Empty() {
			req.Kind = kind
		}
	}
	return req, nil
}
