package admission

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	admissionapi "k8s.io/api/admission/v1"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

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
	req, err := parseTarget(f[0], f[1], f[2])
	if err != nil {
		return Request{}, err
	}
	var l lineLabels
	seen := map[string]bool{}
	for _, kv := range f[3:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return Request{}, fmt.Errorf("%q: want KEY=VALUE", kv)
		}
		if seen[k] {
			return Request{}, fmt.Errorf("key %q given twice", k)
		}
		seen[k] = true
		if err := l.set(&req, k, v); err != nil {
			return Request{}, err
		}
	}
	if req.Subresource == "scale" && (l.labels != nil || l.oldLabels != nil) {
		// A Scale carries no labels, new (as the client sends it) or old
		// (as the API server makes it from the object: scaleFromDeployment
		// and the like set name, namespace, UID, resourceVersion and
		// creationTimestamp): an objectSelector never matches one.
		return Request{}, fmt.Errorf("labels: a Scale has none, whatever the object's (an objectSelector never matches a scale request)")
	}
	if req.Namespace != "" && !l.nsMissing {
		req.NamespaceLabels = map[string]string{corev1.LabelMetadataName: req.Namespace}
		maps.Copy(req.NamespaceLabels, l.nsLabels)
	}
	if res != nil {
		if req.Kind, err = servedKind(req, res); err != nil {
			return Request{}, err
		}
	}
	if err := l.objects(&req); err != nil {
		return Request{}, err
	}
	if req.Resource == namespaces && req.Name != "" {
		// A request on a Namespace carries its name as namespace; the
		// namespace's labels are its own.
		req.Namespace = req.Name
		if !l.nsMissing {
			req.NamespaceLabels = map[string]string{corev1.LabelMetadataName: req.Name}
			maps.Copy(req.NamespaceLabels, labelsOf(req.OldObject))
			maps.Copy(req.NamespaceLabels, l.nsLabels)
		}
	}
	return req, nil
}

// parseTarget reads the first three words of a request line: the
// operation (one a webhook sees), GROUP/VERSION and RESOURCE[/SUBRESOURCE].
func parseTarget(op, groupVersion, resource string) (Request, error) {
	req := Request{Operation: admissionv1.OperationType(strings.ToUpper(op))}
	if !slices.Contains([]admissionv1.OperationType{admissionv1.Create, admissionv1.Update, admissionv1.Delete, admissionv1.Connect}, req.Operation) {
		return Request{}, fmt.Errorf("operation %q: want CREATE, UPDATE, DELETE or CONNECT (webhooks see no other)", op)
	}
	gv, err := schema.ParseGroupVersion(groupVersion)
	if err != nil || gv.Version == "" {
		return Request{}, fmt.Errorf("group/version %q: want GROUP/VERSION, or v1 for the core group", groupVersion)
	}
	r, sub, _ := strings.Cut(resource, "/")
	req.Resource, req.Subresource = gv.WithResource(r), sub
	return req, nil
}

// lineLabels are what the KEY=VALUE words of a request line say beyond
// the Request's own fields: the object's labels (labels), the old
// object's (oldlabels), the namespace's (nslabels), and whether the
// namespace exists (nsmissing). nil is a key not given.
type lineLabels struct {
	labels, oldLabels, nsLabels map[string]string
	nsMissing                   bool
}

// set reads one KEY=VALUE word of a request line into req or l.
func (l *lineLabels) set(req *Request, k, v string) error {
	switch k {
	case "ns":
		if msg := namespaceProblem(v); msg != "" {
			return fmt.Errorf("ns=%s: %s", v, msg)
		}
		req.Namespace = v
	case "name":
		if msg := nameProblem(v, req.Resource); msg != "" {
			return fmt.Errorf("name=%s: %s", v, msg)
		}
		req.Name = v
	case "user":
		req.UserInfo.Username = v
	case "groups":
		req.UserInfo.Groups = strings.Split(v, ",")
	case "labels", "oldlabels", "nslabels":
		m, err := parseLabels(v)
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		switch k {
		case "labels":
			l.labels = m
		case "oldlabels":
			l.oldLabels = m
		default:
			l.nsLabels = m
		}
	case "nsmissing", "dryrun":
		if v != "true" && v != "false" {
			return fmt.Errorf("%s=%s: want true or false", k, v)
		}
		if k == "dryrun" {
			req.DryRun = v == "true"
		} else {
			l.nsMissing = v == "true"
		}
	default:
		return fmt.Errorf("key %q: want ns, name, user, groups, labels, oldlabels, nslabels, nsmissing or dryrun", k)
	}
	return nil
}

// objects gives req, whose kind, namespace and name are set, the objects
// its operation sends with l's labels: CREATE the object, UPDATE both,
// DELETE the old one (labels= or oldlabels= give its labels), CONNECT
// its options.
func (l *lineLabels) objects(req *Request) error {
	switch req.Operation {
	case admissionv1.Create:
		req.Object = newObject(*req, l.labels)
	case admissionv1.Update:
		req.Object, req.OldObject = newObject(*req, l.labels), newObject(*req, l.oldLabels)
	case admissionv1.Delete:
		req.OldObject = newObject(*req, l.oldLabels)
		if l.labels != nil {
			req.OldObject = newObject(*req, l.labels)
		}
	case admissionv1.Connect:
		// The object is the options of the connection (PodExecOptions,
		// …; endpoints/handlers/rest.go, ConnectResource): no metadata,
		// so no labels.
		if l.labels != nil || l.oldLabels != nil {
			return fmt.Errorf("labels: a CONNECT sends its options (%s), which have none", req.Kind.Kind)
		}
		req.Object = &unstructured.Unstructured{Object: map[string]any{}}
		req.Object.SetGroupVersionKind(req.Kind)
	}
	return nil
}

// newObject is an object of req's kind, namespace and name with labels l
// (none when nil). An object has metadata, if empty (a CONNECT's options
// have none: an objectSelector never matches them).
func newObject(req Request, l map[string]string) *unstructured.Unstructured {
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

// namespaceProblem is why the API server refuses ns as a request's
// namespace, or "": a namespace's name is a DNS-1123 label
// (ValidateNamespaceName).
func namespaceProblem(ns string) string {
	if ns == "" {
		return "empty"
	}
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return "not a namespace name: " + errs[0]
	}
	return ""
}

// nameProblem is why the API server refuses name as the name of an object
// of resource r, or "": every name is a path segment (no "/" or "%", not
// "." or "..": ValidatePathSegmentName, checked on every request), a
// Namespace's a DNS-1123 label. Other resources' own rules are not
// checked.
func nameProblem(name string, r schema.GroupVersionResource) string {
	if name == "" {
		return ""
	}
	if r == namespaces {
		return namespaceProblem(name)
	}
	if errs := path.IsValidPathSegmentName(name); len(errs) > 0 {
		return "not a valid name: " + errs[0]
	}
	return ""
}

// RequestFile reads a request from documents as an API server would send
// it to a webhook: an admission.k8s.io/v1 (or v1beta1) AdmissionReview's
// request (operation, resource, subResource, kind, namespace, name,
// object, oldObject, userInfo, dryRun), and optionally the v1 Namespace of
// the request's namespace with its labels (without it, a namespace with
// only kubernetes.io/metadata.name). Both are decoded strictly (an unknown
// field is an error) and validated as the API server would: the
// namespace's name and the request's a DNS-1123 label, the Namespace's
// labels valid, the Namespace the request's (another is an error, not
// ignored). A request res says the API server refuses before admission is
// refused as ParseRequest refuses it; the kind, when the review has none,
// is the one res serves. Every error names the file, document, line and
// field; file names the input when it holds no review.
func RequestFile(file string, docs []*load.Doc, res Resources) (Request, error) {
	in, err := readRequestDocs(docs)
	if err != nil {
		return Request{}, err
	}
	if in.review == nil {
		return Request{}, fmt.Errorf("%s: no admission.k8s.io/v1 AdmissionReview", file)
	}
	req, err := fromReview(in.review.Request, in.reviewDoc)
	if err != nil {
		return Request{}, err
	}
	if in.ns != nil && in.ns.Name != req.Namespace {
		what := "namespace " + strconv.Quote(req.Namespace)
		if req.Namespace == "" {
			what = "no namespace"
		}
		return Request{}, docError(in.nsDoc, "metadata.name", fmt.Sprintf("%s: the Namespace given must be the request's, which has %s", in.ns.Name, what))
	}
	if req.Namespace != "" {
		req.NamespaceLabels = map[string]string{corev1.LabelMetadataName: req.Namespace}
		if in.ns != nil {
			maps.Copy(req.NamespaceLabels, in.ns.Labels)
		}
	}
	if res != nil {
		kind, err := servedKind(req, res)
		if err != nil {
			return Request{}, docError(in.reviewDoc, "request", err.Error())
		}
		if req.Kind.Empty() {
			req.Kind = kind
		}
	}
	return req, nil
}

// requestDocs are the documents of a request file: the AdmissionReview
// and the Namespace (nil when not given), each with the document it was
// read from.
type requestDocs struct {
	review           *admissionapi.AdmissionReview
	ns               *corev1.Namespace
	reviewDoc, nsDoc *load.Doc
}

// readRequestDocs reads docs as RequestFile takes them: the first
// AdmissionReview, the first Namespace, and nothing else.
func readRequestDocs(docs []*load.Doc) (requestDocs, error) {
	var in requestDocs
	var err error
	for _, d := range docs {
		switch {
		case d.Group == "admission.k8s.io" && d.Kind == "AdmissionReview" && in.review == nil:
			in.reviewDoc = d
			if in.review, err = readReview(d); err != nil {
				return requestDocs{}, err
			}
		case d.Group == "" && d.Kind == "Namespace" && in.ns == nil:
			in.nsDoc = d
			if in.ns, err = readNamespace(d); err != nil {
				return requestDocs{}, err
			}
		default:
			return requestDocs{}, docError(d, "", "want one admission.k8s.io/v1 AdmissionReview and at most one v1 Namespace")
		}
	}
	return in, nil
}

// readReview decodes d, an AdmissionReview, strictly: of the versions
// kube-apiserver sends, with a request.
func readReview(d *load.Doc) (*admissionapi.AdmissionReview, error) {
	if d.Version != "v1" && d.Version != "v1beta1" {
		return nil, docError(d, "apiVersion", fmt.Sprintf("admission.k8s.io/%s: want admission.k8s.io/v1 (or v1beta1, the versions kube-apiserver sends)", d.Version))
	}
	review := &admissionapi.AdmissionReview{}
	if err := load.DecodeStrict(d, review); err != nil {
		return nil, err
	}
	if review.Request == nil {
		return nil, docError(d, "", "field request: required")
	}
	return review, nil
}

// readNamespace decodes d, a Namespace, strictly, and validates its name
// and labels as the API server would.
func readNamespace(d *load.Doc) (*corev1.Namespace, error) {
	if d.Version != "v1" {
		return nil, docError(d, "apiVersion", fmt.Sprintf("%s: want v1", d.Version))
	}
	ns := &corev1.Namespace{}
	if err := load.DecodeStrict(d, ns); err != nil {
		return nil, err
	}
	if msg := namespaceProblem(ns.Name); msg != "" {
		return nil, docError(d, "metadata.name", msg)
	}
	if fes := metav1validation.ValidateLabels(ns.Labels, field.NewPath("metadata", "labels")); len(fes) > 0 {
		return nil, docError(d, fes[0].Field, fes[0].ErrorBody())
	}
	return ns, nil
}

// fromReview is the Request of r, an AdmissionReview's request read from
// d, its namespace and name validated as the API server would.
func fromReview(r *admissionapi.AdmissionRequest, d *load.Doc) (Request, error) {
	req := Request{Operation: admissionv1.OperationType(r.Operation), Resource: schema.GroupVersionResource(r.Resource), Subresource: r.SubResource,
		Kind: schema.GroupVersionKind(r.Kind), Namespace: r.Namespace, Name: r.Name,
		UserInfo: UserInfo{Username: r.UserInfo.Username, UID: r.UserInfo.UID, Groups: r.UserInfo.Groups}}
	if r.Namespace != "" {
		if msg := namespaceProblem(r.Namespace); msg != "" {
			return Request{}, docError(d, "request.namespace", msg)
		}
	}
	if msg := nameProblem(r.Name, req.Resource); msg != "" {
		return Request{}, docError(d, "request.name", msg)
	}
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
		field string
		raw   []byte
		into  **unstructured.Unstructured
	}{{"request.object", r.Object.Raw, &req.Object}, {"request.oldObject", r.OldObject.Raw, &req.OldObject}} {
		if len(o.raw) > 0 && string(o.raw) != "null" {
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(o.raw); err != nil {
				return Request{}, docError(d, o.field, err.Error())
			}
			*o.into = u
		}
	}
	return req, nil
}

// docError is msg about d, at field when it names one.
func docError(d *load.Doc, field, msg string) error {
	src := d.Source
	if field != "" {
		src = d.At(field)
	}
	return &load.Error{Source: src, Object: d.Object(), Field: field, Msg: msg}
}
