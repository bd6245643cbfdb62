package check

import (
	"context"
	"errors"
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
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	"github.com/gepcheck/gepcheck/admission"
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
	crds  map[string]apiextensionsv1.CustomResourceDefinitionSpec // installed, by name: the spec sent
	users map[string]clients                                      // impersonating clients, by user and groups
	n     int                                                     // cases checked
	gen   int                                                     // sentinel generations
}

// Namespaces are the namespaces requests are made in, with their labels
// (gen.Requests draws them).
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
	c.crds = map[string]apiextensionsv1.CustomResourceDefinitionSpec{}
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
			predictedSent[string(v.Hook.Phase)+"/"+v.Hook.ID()] = sent(Call{Operation: string(cs.Request.Operation), Resource: metav1.GroupVersionResource(v.Resource),
				SubResource: cs.Request.Subresource, Kind: metav1.GroupVersionKind(v.Kind), Namespace: cs.Request.Namespace})
		}
	}
	rec := o.Recorded(cs.Behave)
	r = Result{Predicted: append(append(rec.Mutating, "|"), rec.Validating...), PredictedAllowed: o.Allowed}
	// The object an UPDATE or DELETE acts on, made before any hook is.
	base, cleanup, err := c.base(ctx, cs.Request)
	defer cleanup()
	if err != nil {
		return r, err
	}
	m, v := c.registered(prefix, cs, chain)
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
		behave[serverKey(prefix, h)] = admission.BehaviourOf(cs.Behave, h.ID())
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
		if want, got := predictedSent[phase+"/"+id], sent(call); want != "" && want != got {
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
	} else if d := refusal(o.Failures, err); d != "" {
		r.Differences = append(r.Differences, d)
	}
	return r, nil
}

// refusal says how err, the API server's refusal of a request, differs
// from every refusal predicted: its HTTP code, or a message that does not
// hold the predicted one (the API server adds the webhook's words, or
// the connection's error); "" when one agrees or nothing was refused.
func refusal(predicted []admission.Failure, err error) string {
	var status apierrors.APIStatus
	if err == nil || !errors.As(err, &status) {
		return ""
	}
	got := status.Status()
	if slices.ContainsFunc(predicted, func(f admission.Failure) bool { return f.Code == got.Code && strings.Contains(got.Message, f.Message) }) {
		return ""
	}
	var want []string
	for _, f := range predicted {
		want = append(want, fmt.Sprintf("HTTP %d %s", f.Code, f.Message))
	}
	return fmt.Sprintf("refusal: predicted %s, the API server HTTP %d %s", strings.Join(want, " or "), got.Code, got.Message)
}

// install creates the CRDs not installed yet, labelled for cleanup, or
// updates one installed with another spec (two scenario files may define a
// CRD of one name differently), and waits until their resources are served
// (Established, and in discovery). They stay: a later case may use them.
func (c *Checker) install(ctx context.Context, crds []apiextensionsv1.CustomResourceDefinition) error {
	api := c.ext.ApiextensionsV1().CustomResourceDefinitions()
	for _, crd := range crds {
		spec, installed := c.crds[crd.Name]
		if installed && apiequality.Semantic.DeepEqual(spec, crd.Spec) {
			continue
		}
		crd = *crd.DeepCopy()
		crd.ResourceVersion = ""
		if crd.Labels == nil {
			crd.Labels = map[string]string{}
		}
		crd.Labels["gepcheck.dev/managed-by"] = "gepcheck"
		_, err := api.Create(ctx, &crd, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
				got, err := api.Get(ctx, crd.Name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				got.Spec = crd.Spec
				_, err = api.Update(ctx, got, metav1.UpdateOptions{})
				return err
			})
		}
		if err != nil {
			return fmt.Errorf("create CRD %s: %w", crd.Name, err)
		}
		deadline := time.Now().Add(syncTimeout)
		for {
			got, err := api.Get(ctx, crd.Name, metav1.GetOptions{})
			established := err == nil && slices.ContainsFunc(got.Status.Conditions, func(cond apiextensionsv1.CustomResourceDefinitionCondition) bool {
				return cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue
			})
			served := established
			for _, v := range crd.Spec.Versions {
				if v.Served && !slices.Equal(c.discovered(crd.Spec.Group+"/"+v.Name, crd.Spec.Names.Plural), crdResources(crd.Spec.Names.Plural, v)) {
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
		c.crds[crd.Name] = crd.Spec
	}
	return nil
}

// discovered lists the resource plural and its subresources as discovery
// serves them in group version gv, sorted; none when gv is not served.
func (c *Checker) discovered(gv, plural string) []string {
	l, err := c.kube.Discovery().ServerResourcesForGroupVersion(gv)
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range l.APIResources {
		if r.Name == plural || strings.HasPrefix(r.Name, plural+"/") {
			out = append(out, r.Name)
		}
	}
	slices.Sort(out)
	return out
}

// crdResources lists the resources a CRD's version v serves as plural:
// itself and its subresources, sorted.
func crdResources(plural string, v apiextensionsv1.CustomResourceDefinitionVersion) []string {
	out := []string{plural}
	if v.Subresources != nil && v.Subresources.Scale != nil {
		out = append(out, plural+"/scale")
	}
	if v.Subresources != nil && v.Subresources.Status != nil {
		out = append(out, plural+"/status")
	}
	return out
}

// sent says what a hook is sent: operation, resource, subresource, kind
// and namespace.
func sent(c Call) string {
	r, k := c.Resource, c.Kind
	s := fmt.Sprintf("%s %s/%s %s", c.Operation, r.Group, r.Version, r.Resource)
	if c.SubResource != "" {
		s += "/" + c.SubResource
	}
	s += fmt.Sprintf(" as %s/%s %s", k.Group, k.Version, k.Kind)
	if c.Namespace != "" {
		s += " in " + c.Namespace
	}
	return s
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
// cleanup; chain is the case's (admission.Chain).
func (c *Checker) registered(prefix string, cs Case, chain []*admission.Hook) ([]admissionv1.MutatingWebhookConfiguration, []admissionv1.ValidatingWebhookConfiguration) {
	one := int32(1)
	type at struct {
		phase  admission.Phase
		config string
		index  int
	}
	hooks := map[at]*admission.Hook{}
	for _, h := range chain {
		hooks[at{h.Phase, h.Configuration, h.Index}] = h
	}
	cfg := func(phase admission.Phase, config string, i int) admissionv1.WebhookClientConfig {
		h := hooks[at{phase, config, i}]
		url := c.Server.URLFor(serverKey(prefix, h), admission.BehaviourOf(cs.Behave, h.ID()))
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

// syncTimeout bounds the wait for the API server to read configurations
// (polled, not slept): generous, as make ci runs the Local tests of
// several packages at once, each with its own control plane, on 2 cores,
// and 30 s was once not enough there.
const syncTimeout = 2 * time.Minute

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
			if l := (*u).GetLabels(); l[corev1.LabelMetadataName] != "" {
				l[corev1.LabelMetadataName] = name // a Namespace's own label (ParseRequest)
				(*u).SetLabels(l)
			}
		}
	}
	if req.Resource.Resource == "namespaces" {
		req.Namespace = name
		if req.NamespaceLabels != nil {
			req.NamespaceLabels = maps.Clone(req.NamespaceLabels)
			req.NamespaceLabels[corev1.LabelMetadataName] = name
		}
	}
	return req
}
