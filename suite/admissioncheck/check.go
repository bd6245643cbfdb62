package admissioncheck

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/gepcheck/gepcheck/simulator/admission"
)

// Case is one check: webhook configurations, a request, how the hooks
// answer (admission.Allow when not named), and the CRDs whose resources
// the request or the rules name.
type Case struct {
	Mutating   []admissionv1.MutatingWebhookConfiguration
	Validating []admissionv1.ValidatingWebhookConfiguration
	Request    admission.Request
	Behave     map[string]admission.Behaviour
	CRDs       []apiextensionsv1.CustomResourceDefinition
}

// Result is what the API server did with a case, beside the prediction.
type Result struct {
	// Predicted and Observed are the mutating hooks called, in order,
	// then "|", then the validating hooks called, sorted (they are called
	// concurrently).
	Predicted, Observed []string
	// PredictedAllowed and Allowed say whether the request succeeded.
	PredictedAllowed, Allowed bool
	// Error is the API server's answer when it refused the request.
	Error string
	// Differences say where the two part; empty when they agree.
	Differences []string
}

// Checker sends cases to one API server.
type Checker struct {
	Config *rest.Config
	Server *Server
	// Resources are the API server's own (a case's CRDs are added).
	Resources *admission.Snapshot
	// Slow is how long a slow hook takes: more than the timeoutSeconds
	// the configurations give (the check sets 1 s).
	Slow time.Duration

	dyn   dynamic.Interface
	kube  kubernetes.Interface
	ext   apiextensionsclient.Interface
	crds  map[string]bool    // installed, by name
	users map[string]clients // impersonating clients, by user and groups
	n     int                // cases checked
	gen   int                // sentinel generations
}

// Namespaces are the namespaces requests are made in, with their labels
// (generators.AdmissionRequests draws them).
var Namespaces = map[string]map[string]string{"team-a": {"team": "a"}, "team-b": nil}

// Users are the users requests are made as: impersonated, each bound to
// cluster-admin.
var Users = []string{"alice", "system:admin"}

// Prepare creates the namespaces and gives the users rights.
func (c *Checker) Prepare(ctx context.Context) error {
	var err error
	if c.dyn, err = dynamic.NewForConfig(c.Config); err != nil {
		return err
	}
	if c.kube, err = kubernetes.NewForConfig(c.Config); err != nil {
		return err
	}
	if c.ext, err = apiextensionsclient.NewForConfig(c.Config); err != nil {
		return err
	}
	c.crds = map[string]bool{}
	for _, ns := range slices.Sorted(maps.Keys(Namespaces)) {
		o := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: Namespaces[ns]}}
		if _, err := c.kube.CoreV1().Namespaces().Create(ctx, o, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	for _, u := range Users {
		b := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "gepcheck-admission-" + strings.ReplaceAll(u, ":", "-")},
			RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
			Subjects: []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: u}}}
		if _, err := c.kube.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return c.sync(ctx, true, true)
}

// Check registers the case's configurations (renamed with a common
// prefix, which keeps their order by name), waits until the API server
// calls them, sends the request, and compares the calls recorded with the
// prediction. The configurations and the objects made for the request are
// deleted before it returns.
func (c *Checker) Check(ctx context.Context, cs Case) (r Result, err error) {
	c.n++
	prefix := fmt.Sprintf("gepcheck-%d-", c.n)
	// A name of its own, so that an object of an earlier case being
	// deleted (a Namespace is not gone at once) is not in the way; names
	// decide nothing in the prediction.
	cs.Request = renameRequest(cs.Request, fmt.Sprintf("x-%d", c.n))
	if err := c.install(ctx, cs.CRDs); err != nil {
		return r, err
	}
	chain := admission.Chain(cs.Mutating, cs.Validating)
	p := admission.Predict(chain, cs.Request, c.Resources.WithCRDs(cs.CRDs), cs.Behave)
	o := p.Outcome
	// What each hook called is sent: the resource and kind of its rule's
	// version (matchPolicy Equivalent converts).
	predictedSent := map[string]string{}
	for _, v := range p.Verdicts {
		if v.Called {
			predictedSent[string(v.Hook.Phase)+"/"+v.Hook.ID()] = sent(metav1.GroupVersionResource(v.Resource), metav1.GroupVersionKind(v.Kind))
		}
	}
	// A hook that is down is called but cannot record the call.
	reached := func(ids []string) []string {
		return slices.DeleteFunc(slices.Clone(ids), func(id string) bool {
			i := slices.IndexFunc(chain, func(h *admission.Hook) bool { return h.ID() == id })
			return admission.BehaviourOf(cs.Behave, id, chain[i].Name) == admission.Down
		})
	}
	r = Result{Predicted: append(append(reached(o.Mutating), "|"), reached(o.Validating)...), PredictedAllowed: o.Allowed}
	// The object an UPDATE or DELETE acts on, made before any hook is.
	base, cleanup, err := c.base(ctx, cs.Request)
	defer cleanup()
	if err != nil {
		return r, err
	}
	m, v := c.registered(prefix, cs)
	defer func() {
		if derr := c.deregister(context.WithoutCancel(ctx), m, v); derr != nil && err == nil {
			err = derr
		}
	}()
	if err := c.register(ctx, m, v); err != nil {
		return r, err
	}
	behave, patchKey := map[string]admission.Behaviour{}, map[string]string{}
	for _, h := range chain {
		behave[serverKey(prefix, h)] = admission.BehaviourOf(cs.Behave, h.ID(), h.Name)
		patchKey[serverKey(prefix, h)] = admission.PatchAnnotation(h)
	}
	c.Server.Expect(behave, patchKey, c.Slow)
	err = c.send(ctx, cs.Request, base)
	var calls []string
	var validating []string
	for _, call := range c.Server.Calls() {
		phase, key, _ := strings.Cut(call.Hook, "/")
		id, ok := strings.CutPrefix(key, prefix)
		if !ok || call.Name != cs.Request.Name {
			// A sentinel, or a call on another object: the controllers
			// of the cluster make requests too (a namespace being
			// deleted is updated as it is finalized).
			continue
		}
		if admission.Phase(phase) == admission.Validating {
			validating = append(validating, id)
		} else {
			calls = append(calls, id)
		}
		if want, got := predictedSent[phase+"/"+id], sent(call.Resource, call.Kind); want != "" && want != got {
			r.Differences = append(r.Differences, fmt.Sprintf("%s %s is sent %s, predicted %s", phase, id, got, want))
		}
	}
	slices.Sort(validating)
	r.Observed = append(append(calls, "|"), validating...)
	r.Allowed = err == nil
	if err != nil {
		r.Error = err.Error()
	}
	if !slices.Equal(r.Predicted, r.Observed) {
		r.Differences = append(r.Differences, fmt.Sprintf("hooks called: predicted %s, the API server %s", strings.Join(r.Predicted, " "), strings.Join(r.Observed, " ")))
	}
	if r.Allowed != r.PredictedAllowed {
		r.Differences = append(r.Differences, fmt.Sprintf("request allowed: predicted %v, the API server %v (%s)", r.PredictedAllowed, r.Allowed, r.Error))
	}
	return r, nil
}

// install creates the CRDs not installed yet, labelled for cleanup, and
// waits until their resources are served (Established, and in discovery).
// They stay: a later case may use them.
func (c *Checker) install(ctx context.Context, crds []apiextensionsv1.CustomResourceDefinition) error {
	for _, crd := range crds {
		if c.crds[crd.Name] {
			continue
		}
		crd = *crd.DeepCopy()
		crd.ResourceVersion = ""
		if crd.Labels == nil {
			crd.Labels = map[string]string{}
		}
		crd.Labels["gepcheck.dev/managed-by"] = "gepcheck"
		if _, err := c.ext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, &crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create CRD %s: %w", crd.Name, err)
		}
		deadline := time.Now().Add(syncTimeout)
		for {
			got, err := c.ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
			established := err == nil && slices.ContainsFunc(got.Status.Conditions, func(cond apiextensionsv1.CustomResourceDefinitionCondition) bool {
				return cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue
			})
			served := established
			for _, v := range crd.Spec.Versions {
				if _, derr := c.kube.Discovery().ServerResourcesForGroupVersion(crd.Spec.Group + "/" + v.Name); v.Served && derr != nil {
					served = false
				}
			}
			if served {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("CRD %s not served within %s", crd.Name, syncTimeout)
			}
			select {
			case <-time.After(100 * time.Millisecond):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		c.crds[crd.Name] = true
	}
	return nil
}

// sent says what a hook is sent: resource and kind.
func sent(r metav1.GroupVersionResource, k metav1.GroupVersionKind) string {
	return fmt.Sprintf("%s/%s %s as %s/%s %s", r.Group, r.Version, r.Resource, k.Group, k.Version, k.Kind)
}

// serverKey is where the server answers for h: its phase (a mutating and a
// validating configuration may have the same name, and so their hooks the
// same ID), then its ID in the case's configurations, renamed.
func serverKey(prefix string, h *admission.Hook) string {
	return string(h.Phase) + "/" + prefix + h.ID()
}

// registered are the case's configurations as registered: names
// prefixed, every hook's URL its ID on the server (or down), the server's
// CA, a timeout of 1 s (a slow hook answers after Slow), labels for
// cleanup.
func (c *Checker) registered(prefix string, cs Case) ([]admissionv1.MutatingWebhookConfiguration, []admissionv1.ValidatingWebhookConfiguration) {
	one := int32(1)
	hooks := map[string]*admission.Hook{} // by phase/configuration/index
	for _, h := range admission.Chain(cs.Mutating, cs.Validating) {
		hooks[fmt.Sprintf("%s/%s/%d", h.Phase, h.Configuration, h.Index)] = h
	}
	cfg := func(phase admission.Phase, config string, i int) admissionv1.WebhookClientConfig {
		h := hooks[fmt.Sprintf("%s/%s/%d", phase, config, i)]
		url := c.Server.URLFor(serverKey(prefix, h), admission.BehaviourOf(cs.Behave, h.ID(), h.Name))
		return admissionv1.WebhookClientConfig{URL: &url, CABundle: c.Server.CABundle}
	}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: prefix + name, Labels: map[string]string{"gepcheck.dev/managed-by": "gepcheck"}}
	}
	var m []admissionv1.MutatingWebhookConfiguration
	for _, x := range cs.Mutating {
		x = *x.DeepCopy()
		for i := range x.Webhooks {
			x.Webhooks[i].ClientConfig, x.Webhooks[i].TimeoutSeconds = cfg(admission.Mutating, x.Name, i), &one
		}
		x.ObjectMeta = meta(x.Name)
		m = append(m, x)
	}
	var v []admissionv1.ValidatingWebhookConfiguration
	for _, x := range cs.Validating {
		x = *x.DeepCopy()
		for i := range x.Webhooks {
			x.Webhooks[i].ClientConfig, x.Webhooks[i].TimeoutSeconds = cfg(admission.Validating, x.Name, i), &one
		}
		x.ObjectMeta = meta(x.Name)
		v = append(v, x)
	}
	return m, v
}

// The sentinels are one hook of each kind, in configurations named to
// sort before any case's, that only a probe calls (a dry-run ConfigMap
// with the label gepcheck.dev/probe). Each sync moves their URL to a new
// path and waits until a probe reaches both there: the API server has then
// read every change made to the configurations before (its informers
// deliver a kind's events in order).
const sentinel = "gepcheck-0"

func (c *Checker) sentinels(gen int) (*admissionv1.MutatingWebhookConfiguration, *admissionv1.ValidatingWebhookConfiguration) {
	none, one, ignore := admissionv1.SideEffectClassNone, int32(1), admissionv1.Ignore
	url := fmt.Sprintf("%s/hooks/sentinel/%d", c.Server.URL, gen)
	w := admissionv1.MutatingWebhook{Name: "sentinel.gepcheck.dev", SideEffects: &none, AdmissionReviewVersions: []string{"v1"}, TimeoutSeconds: &one, FailurePolicy: &ignore,
		ClientConfig:   admissionv1.WebhookClientConfig{URL: &url, CABundle: c.Server.CABundle},
		ObjectSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"gepcheck.dev/probe": "true"}},
		Rules: []admissionv1.RuleWithOperations{{Operations: []admissionv1.OperationType{admissionv1.Create},
			Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}}
	meta := metav1.ObjectMeta{Name: sentinel, Labels: map[string]string{"gepcheck.dev/managed-by": "gepcheck"}}
	return &admissionv1.MutatingWebhookConfiguration{ObjectMeta: meta, Webhooks: []admissionv1.MutatingWebhook{w}},
		&admissionv1.ValidatingWebhookConfiguration{ObjectMeta: meta, Webhooks: []admissionv1.ValidatingWebhook{admission.ValidatingForm(w)}}
}

// sync moves the sentinels (which must each be reachable: see register)
// and waits until a probe reaches the moved ones; want says which.
func (c *Checker) sync(ctx context.Context, mutating, validating bool) error {
	c.gen++
	m, v := c.sentinels(c.gen)
	api := c.kube.AdmissionregistrationV1()
	if cur, err := api.MutatingWebhookConfigurations().Get(ctx, sentinel, metav1.GetOptions{}); err == nil {
		m.ResourceVersion = cur.ResourceVersion
		_, err = api.MutatingWebhookConfigurations().Update(ctx, m, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
	} else if _, err := api.MutatingWebhookConfigurations().Create(ctx, m, metav1.CreateOptions{}); err != nil {
		return err
	}
	if cur, err := api.ValidatingWebhookConfigurations().Get(ctx, sentinel, metav1.GetOptions{}); err == nil {
		v.ResourceVersion = cur.ResourceVersion
		if _, err := api.ValidatingWebhookConfigurations().Update(ctx, v, metav1.UpdateOptions{}); err != nil {
			return err
		}
	} else if _, err := api.ValidatingWebhookConfigurations().Create(ctx, v, metav1.CreateOptions{}); err != nil {
		return err
	}
	path := fmt.Sprintf("sentinel/%d", c.gen)
	probe := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: "team-b", Labels: map[string]string{"gepcheck.dev/probe": "true"}}}
	deadline := time.Now().Add(syncTimeout)
	for time.Now().Before(deadline) {
		c.Server.Expect(nil, nil, 0)
		_, _ = c.kube.CoreV1().ConfigMaps("team-b").Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		seen := 0
		for _, call := range c.Server.Calls() {
			if call.Hook == path {
				seen++
			}
		}
		if want := btoi(mutating) + btoi(validating); seen >= want {
			return nil
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return fmt.Errorf("the API server did not take the webhook configurations within %s", syncTimeout)
}

// syncTimeout bounds the wait for the API server to read configurations.
const syncTimeout = 30 * time.Second

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// register creates the validating configurations and waits until both
// sentinels are reached (no mutating hook of the case can fail the probe
// yet, and validating hooks are all called), then the mutating ones and
// waits until the mutating sentinel, first of all, is reached.
func (c *Checker) register(ctx context.Context, m []admissionv1.MutatingWebhookConfiguration, v []admissionv1.ValidatingWebhookConfiguration) error {
	api := c.kube.AdmissionregistrationV1()
	for i := range v {
		if _, err := api.ValidatingWebhookConfigurations().Create(ctx, &v[i], metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create %s: %w", v[i].Name, err)
		}
	}
	if err := c.sync(ctx, true, true); err != nil {
		return err
	}
	for i := range m {
		if _, err := api.MutatingWebhookConfigurations().Create(ctx, &m[i], metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create %s: %w", m[i].Name, err)
		}
	}
	return c.sync(ctx, true, false)
}

// deregister deletes the configurations and waits until the API server
// has dropped them (both sentinels reached again).
func (c *Checker) deregister(ctx context.Context, m []admissionv1.MutatingWebhookConfiguration, v []admissionv1.ValidatingWebhookConfiguration) error {
	api := c.kube.AdmissionregistrationV1()
	for _, x := range m {
		_ = api.MutatingWebhookConfigurations().Delete(ctx, x.Name, metav1.DeleteOptions{})
	}
	for _, x := range v {
		_ = api.ValidatingWebhookConfigurations().Delete(ctx, x.Name, metav1.DeleteOptions{})
	}
	return c.sync(ctx, true, true)
}

// renameRequest is req on an object named name.
func renameRequest(req admission.Request, name string) admission.Request {
	req.Name = name
	for _, u := range []**unstructured.Unstructured{&req.Object, &req.OldObject} {
		if *u != nil && req.Operation != admissionv1.Connect { // a CONNECT's options have no name
			*u = (*u).DeepCopy()
			(*u).SetName(name)
		}
	}
	if req.Resource.Resource == "namespaces" {
		req.Namespace = name
		if req.NamespaceLabels != nil {
			req.NamespaceLabels = maps.Clone(req.NamespaceLabels)
			req.NamespaceLabels["kubernetes.io/metadata.name"] = name
		}
	}
	return req
}
