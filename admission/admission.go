// Package admission predicts the admission webhooks an API server calls on
// a request: which hooks of the MutatingWebhookConfigurations and
// ValidatingWebhookConfigurations match it and why, in what order they are
// called, and what becomes of the request when some of them are down, slow
// or deny it. It is gepcheck's reference for Kubernetes dynamic admission
// control (admissionregistration.k8s.io/v1), written from kube-apiserver
// v1.36's source (docs/admission.md cites it line by line) and checked
// against a real kube-apiserver.
//
// The goal is the one the dynamic admission control proposal sets: "Admin
// is able to predict what initializers/webhooks will be applied to newly
// created objects". Initializers are gone; webhooks remain.
package admission

import (
	"sync"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
)

// Phase is the admission phase a hook runs in: every mutating hook runs
// before any validating one (kube-apiserver's plugin order:
// MutatingAdmissionWebhook, then ValidatingAdmissionWebhook).
type Phase string

// Phases.
const (
	Mutating   Phase = "mutating"
	Validating Phase = "validating"
)

// Hook is one webhook of a configuration, with the API's defaults applied
// (Defaults).
type Hook struct {
	Phase Phase
	// Configuration is the name of the configuration the hook is in, and
	// Index its place among the configuration's webhooks.
	Configuration string
	Index         int
	Name          string
	Rules         []admissionv1.RuleWithOperations
	// FailurePolicy, MatchPolicy, SideEffects and TimeoutSeconds are
	// never nil once defaulted.
	FailurePolicy     admissionv1.FailurePolicyType
	MatchPolicy       admissionv1.MatchPolicyType
	NamespaceSelector metav1.LabelSelector
	ObjectSelector    metav1.LabelSelector
	SideEffects       admissionv1.SideEffectClass
	TimeoutSeconds    int32
	// Reinvocation is the reinvocationPolicy of a mutating hook (Never
	// for a validating one).
	Reinvocation    admissionv1.ReinvocationPolicyType
	MatchConditions []admissionv1.MatchCondition

	id                      string
	compile                 sync.Once // matcher
	compiled                matchconditions.Matcher
	parse                   sync.Once // selectors
	nsSelector, objSelector labels.Selector
	nsErr, objErr           error
}

// ID names a hook uniquely in a chain: configuration/name/n, n counting
// the hooks of that name before it in the configuration, as the API server
// names them (webhook names in a configuration are not always unique in
// objects stored before v1 validated them).
func (h *Hook) ID() string { return h.id }

// Request is what the API server asks admission about: an operation on a
// resource (and subresource) of a group and version, in a namespace, by a
// user, with the object and the old object where the operation has them.
type Request struct {
	// Operation is CREATE, UPDATE, DELETE or CONNECT; reads (GET, LIST,
	// WATCH) are never admitted.
	Operation   admissionv1.OperationType
	Resource    schema.GroupVersionResource
	Subresource string
	// Kind is the kind of the object the request sends (for a
	// subresource, the subresource's kind: Scale, Eviction, …). Empty:
	// looked up in Resources.
	Kind      schema.GroupVersionKind
	Namespace string
	Name      string
	// NamespaceLabels are the labels of the request's namespace as the
	// API server reads them; nil when the namespace does not exist.
	NamespaceLabels map[string]string
	// Object is nil for DELETE, and a CONNECT's options (PodExecOptions,
	// …: no metadata) for CONNECT; OldObject is nil for CREATE and
	// CONNECT.
	Object, OldObject *unstructured.Unstructured
	UserInfo          UserInfo
	DryRun            bool
	// budget, when set (PredictBounded), bounds the prediction.
	budget *budget
}

// UserInfo is the requesting user, as an AdmissionReview carries it.
type UserInfo struct {
	Username string              `json:"username,omitempty"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

// Resources is what the API server knows of its resources: the kind each
// serves and, for matchPolicy Equivalent, the resources that serve the
// same objects (every version of a group's resource, a CRD's versions,
// core events and events.k8s.io events).
type Resources interface {
	// Equivalents lists the resources equivalent to r (r included) for
	// subresource, in the order the API server registered them.
	Equivalents(r schema.GroupVersionResource, subresource string) []schema.GroupVersionResource
	// Lookup is what the API server serves as resource r (and
	// subresource): its kind, scope and verbs; false when it knows no
	// such resource.
	Lookup(r schema.GroupVersionResource, subresource string) (Served, bool)
}

// namespaces is the Namespace resource, which the API server treats as
// cluster-scoped even though a request on one carries its name as the
// request's namespace.
var namespaces = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// namespaceKind is the kind of a Namespace.
var namespaceKind = schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}
