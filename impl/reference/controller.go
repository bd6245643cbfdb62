// Package reference is gepcheck-reference, a controller that implements
// the built-in profiles' policy kinds for real, in a cluster, with the
// reference engine: it writes each policy's status (Accepted and Enforced,
// per ancestor and aggregated), the <Kind>Affected condition on the
// objects policies affect (GEP-713, "Target object status"), and a
// read-only EffectivePolicy object per affected object, one of the
// discoverability options of the Kuadrant RFC ("Effective policies").
//
// It recomputes the whole cluster on any change of the objects it
// watches and writes only what changed (fanout: no write when the
// computed status equals the stored one).
package reference

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

// ControllerName is the GatewayClass controllerName gepcheck-reference
// serves, and the controllerName of the status it writes.
const ControllerName = "gepcheck.dev/reference-controller"

// AnnotationProfiles on a namespace names the built-in profiles (comma
// separated) the controller computes the objects of that namespace with;
// namespaces that share a value are computed together, and namespaces
// without it with the controller's default profiles.
const AnnotationProfiles = "gepcheck.dev/profiles"

// AnnotationPartition on a namespace separates it from the other
// namespaces of its profile set: only namespaces with the same profiles
// and the same partition are computed together, so that an object that
// does not load in one partition leaves the others alone. gepcheck's
// runner gives each scenario its own.
const AnnotationPartition = "gepcheck.dev/partition"

// LabelManagedBy marks the EffectivePolicy objects the controller owns.
const LabelManagedBy = "app.kubernetes.io/managed-by"

const managedBy = "gepcheck-reference"

// DefaultProfiles are served when a namespace names none: one profile per
// policy kind the controller serves (the built-in kinds whose
// implementations are other plug-ins are theirs to serve).
var DefaultProfiles = []string{
	"color-inherited", "backendtlspolicy-gateway-api", "gep2649-retryon", "gep2649-cdncaching",
	"gep2649-tlsminimumversion", "kuadrant-authpolicy", "kuadrant-ratelimitpolicy",
}

// Kinds lists the policy kinds the controller may serve: those of
// DefaultProfiles.
func Kinds() []schema.GroupVersionKind {
	bs, _ := profile.Builtins()
	seen := map[string]bool{}
	var out []schema.GroupVersionKind
	for _, n := range DefaultProfiles {
		p := bs[n]
		g, k := p.Spec.Policy.Group, p.Spec.Policy.Kind
		if seen[g+k] {
			continue
		}
		seen[g+k] = true
		out = append(out, schema.GroupVersionKind{Group: g, Version: "v1", Kind: k})
	}
	return out
}

// routeKinds are the route kinds of the hierarchy (simulator/topology:
// Gateway API v1.6's HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute),
// whose status holds a parent status per parentRef
// (RouteStatus.Parents).
var routeKinds = []schema.GroupVersionKind{gvkHTTPRoute, gvkGRPCRoute, gvkTLSRoute, gvkTCPRoute, gvkUDPRoute}

// optionalKinds are the hierarchy's kinds a cluster with an older Gateway
// API may not serve (ListenerSet is Standard since v1.5, TLSRoute,
// TCPRoute and UDPRoute v1 since v1.5): watched and read where the
// cluster serves them, logged where it does not.
var optionalKinds = []schema.GroupVersionKind{gvkListenerSet, gvkTLSRoute, gvkTCPRoute, gvkUDPRoute}

func isRoute(kind string) bool {
	return slices.ContainsFunc(routeKinds, func(g schema.GroupVersionKind) bool { return g.Kind == kind })
}

var (
	gvkNamespace       = schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}
	gvkService         = schema.GroupVersionKind{Version: "v1", Kind: "Service"}
	gvkConfigMap       = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"} // what profiles' references name
	gvkGatewayClass    = schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "GatewayClass"}
	gvkGateway         = schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "Gateway"}
	gvkHTTPRoute       = schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "HTTPRoute"}
	gvkGRPCRoute       = schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "GRPCRoute"}
	gvkTLSRoute        = schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "TLSRoute"}
	gvkTCPRoute        = schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "TCPRoute"}
	gvkUDPRoute        = schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "UDPRoute"}
	gvkListenerSet     = schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "ListenerSet"}
	gvkReferenceGrant  = schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1beta1", Kind: "ReferenceGrant"}
	gvkObjectFields    = schema.GroupVersionKind{Group: "gepcheck.dev", Version: "v1alpha1", Kind: "ObjectFields"}
	gvkEffectivePolicy = schema.GroupVersionKind{Group: "gepcheck.dev", Version: "v1alpha1", Kind: "EffectivePolicy"}
)

// Controller is gepcheck-reference.
type Controller struct {
	Config *rest.Config
	// Profiles served where a namespace names none (DefaultProfiles when
	// empty).
	Profiles []string
	// Semantics of the engine (sticky-overrides when empty).
	Semantics engine.Semantics
	// Vocabulary is the status vocabulary of the policies' conditions it
	// writes (engine.Vocabulary; merged GEP-713's when empty): every
	// model it computes is in it (simulator.Model.Vocabulary).
	Vocabulary engine.Vocabulary
	// Limits and CEL bound the work on what the cluster holds, as the CLI's
	// flags do (docs/limits.md); zero fields take the defaults.
	Limits load.Limits
	CEL    engine.CELLimits
	// Simulate, when set, computes a model instead of the reference
	// engine (m.Run(sem, nil)): tests put a deliberately broken engine
	// here to show that a check catches it.
	Simulate func(m *simulator.Model, sem engine.Semantics) *simulator.Output
	// Mutant plants a fault in how the controller reads, reconciles and
	// writes (Mutants; the hidden --mutant flag of gepcheck controller
	// reference): none when empty.
	Mutant Mutant
	Log    func(string)

	// replaceConditions, set by tests only, makes a broken status writer
	// that replaces a policy's conditions with its own instead of merging
	// them (mergePolicyConditions): another writer's are lost.
	replaceConditions bool
	// perTargetAncestors, set by tests only, makes a broken status writer
	// that writes a policy of a kind reporting per ancestor Gateway an
	// entry per target (per targetRef when it is rejected whole) instead
	// of the engine's entry per Gateway, as this controller once did.
	perTargetAncestors bool

	client client.Client
	policy []schema.GroupVersionKind // served policy kinds
	// hierarchy are the kinds of the hierarchy the cluster serves, read
	// on every reconcile: Gateways, then ListenerSets, then routes (so
	// that foreign is complete when what attaches to it is read).
	hierarchy []schema.GroupVersionKind
	watch     []schema.GroupVersionKind // what a change of recomputes all
	writes    atomic.Int64

	// read is what the reconcile under way read (reconciles run one at a
	// time: controller-runtime's MaxConcurrentReconciles is 1); last is
	// the last reconcile that ended without error.
	read map[string]string
	mu   sync.Mutex
	last *Reconciled

	mutant mutantState
}

// Reconciled is what one reconcile read of the watched kinds (each
// object's resourceVersion by Kind/namespace/name) and how many writes the
// API server accepted from it. One that read what the API server holds
// and wrote nothing is a fixed point: no event is pending, and none of its
// own follows (docs/cluster.md, Fanout).
type Reconciled struct {
	Read   map[string]string
	Writes int64
}

// LastReconciled is the last reconcile that ended without error; nil
// before any.
func (c *Controller) LastReconciled() *Reconciled {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// Watched are the kinds whose changes the controller reconciles on (set
// up by Run).
func (c *Controller) Watched() []schema.GroupVersionKind { return slices.Clone(c.watch) }

// Run starts the controller and blocks until ctx is done. Policy kinds
// whose CRD the cluster lacks are not served (and logged).
func (c *Controller) Run(ctx context.Context) error {
	ctrl.SetLogger(klog.NewKlogr())
	mgr, err := manager.New(c.Config, manager.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Logger:                 ctrl.Log.WithName("gepcheck-reference"),
		Client:                 client.Options{Cache: &client.CacheOptions{Unstructured: true}},
	})
	if err != nil {
		return err
	}
	// kube-apiserver may be restarting as the controller starts (the
	// apiserver fault, docs/faults.md): discovery is tried again, as a
	// controller restarted by its kubelet would be, for up to
	// discoveryWait.
	var watch []schema.GroupVersionKind
	err = wait.PollUntilContextTimeout(ctx, time.Second, discoveryWait, true, func(context.Context) (bool, error) {
		watch, err = c.setup(mgr.GetClient(), mgr.GetRESTMapper())
		var d discoveryError
		if errors.As(err, &d) {
			c.logf("discovery: %v; trying again", d.err)
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return err
	}
	world := func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: "world"}}}
	}
	b := ctrl.NewControllerManagedBy(mgr).Named("gepcheck-reference")
	for _, gvk := range watch {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		b = b.Watches(u, handler.EnqueueRequestsFromMapFunc(c.events(world)))
	}
	// Several controllers may run in one process (tests).
	b = b.WithOptions(controller.Options{SkipNameValidation: ptr.To(true)})
	if err := b.Complete(reconcile.Func(c.reconciler())); err != nil {
		return err
	}
	if c.Mutant == Flap {
		if err := mgr.Add(manager.RunnableFunc(c.flap)); err != nil {
			return err
		}
	}
	c.logf("gepcheck-reference serving %s (controllerName %s)", kindNames(c.policy), ControllerName)
	return mgr.Start(ctx)
}

// setup fills in the defaults, makes the controller read and write
// through cl, and returns the kinds to watch: the hierarchy's and the
// served policy kinds (those whose CRD mapper knows).
func (c *Controller) setup(cl client.Client, mapper meta.RESTMapper) ([]schema.GroupVersionKind, error) {
	if len(c.Profiles) == 0 {
		c.Profiles = DefaultProfiles
	}
	if c.Semantics == "" {
		c.Semantics = engine.StickyOverrides
	}
	if c.Vocabulary == "" {
		c.Vocabulary = engine.VocabularyMerged
	}
	c.client = cl
	c.policy = nil
	// The kinds of the hierarchy simulator/topology builds: a change of
	// any of them may change what a policy reaches.
	watch := []schema.GroupVersionKind{gvkNamespace, gvkService, gvkConfigMap, gvkGatewayClass, gvkGateway, gvkHTTPRoute, gvkGRPCRoute, gvkReferenceGrant, gvkObjectFields}
	served := map[schema.GroupVersionKind]bool{}
	for _, gvk := range optionalKinds {
		if ok, err := isServed(mapper, gvk); err != nil {
			return nil, err
		} else if !ok {
			c.logf("not reading %s: the cluster does not serve it", gvk.Kind)
			continue
		}
		served[gvk] = true
		watch = append(watch, gvk)
	}
	c.hierarchy = []schema.GroupVersionKind{gvkService, gvkConfigMap, gvkGateway}
	if served[gvkListenerSet] {
		c.hierarchy = append(c.hierarchy, gvkListenerSet)
	}
	for _, gvk := range routeKinds {
		if gvk == gvkHTTPRoute || gvk == gvkGRPCRoute || served[gvk] {
			c.hierarchy = append(c.hierarchy, gvk)
		}
	}
	c.hierarchy = append(c.hierarchy, gvkReferenceGrant)
	for _, gvk := range Kinds() {
		if ok, err := isServed(mapper, gvk); err != nil {
			return nil, err
		} else if !ok {
			c.logf("not serving %s: its CRD is not installed", gvk.Kind)
			continue
		}
		c.policy = append(c.policy, gvk)
		watch = append(watch, gvk)
	}
	for _, gvk := range watch {
		if ok, err := isServed(mapper, gvk); err != nil {
			return nil, err
		} else if !ok {
			return nil, fmt.Errorf("%s is not served by the cluster", gvk.Kind)
		}
	}
	c.watch = watch
	return watch, nil
}

// discoveryWait bounds how long the controller waits, as it starts, for
// kube-apiserver to answer discovery.
const discoveryWait = 2 * time.Minute

// discoveryError is discovery that did not answer (kube-apiserver down or
// restarting): not an answer that a kind is not served.
type discoveryError struct{ err error }

func (e discoveryError) Error() string { return "discovery: " + e.err.Error() }

// isServed says whether the cluster serves gvk: false when discovery
// answers that it does not, a discoveryError when discovery does not
// answer.
func isServed(mapper meta.RESTMapper, gvk schema.GroupVersionKind) (bool, error) {
	_, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	switch {
	case err == nil:
		return true, nil
	case meta.IsNoMatchError(err):
		return false, nil
	}
	return false, discoveryError{err}
}

func kindNames(gvks []schema.GroupVersionKind) string {
	var s []string
	for _, g := range gvks {
		s = append(s, g.Kind)
	}
	return strings.Join(s, ", ")
}

func (c *Controller) logf(format string, a ...any) {
	if c.Log != nil {
		c.Log(fmt.Sprintf(format, a...))
	}
}

func (c *Controller) list(ctx context.Context, gvk schema.GroupVersionKind) ([]unstructured.Unstructured, error) {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	if err := c.client.List(ctx, l); err != nil {
		return nil, err
	}
	return l.Items, nil
}

// group is a set of namespaces computed together.
type group struct {
	profiles []string
	objects  []*unstructured.Unstructured
	// foreign are the Gateways of other controllers' GatewayClasses, and
	// the routes attached to those only (Kind/namespace/name): not
	// computed, and no status of this controller's names them (Gateway
	// API: implementations "can only populate Route status for the
	// Gateways/parent resources they are responsible for" and "MUST ONLY
	// populate ancestor status for the Ancestor resources they are
	// responsible for").
	foreign map[string]bool
}

func (g *group) namespaces() []string {
	var out []string
	for _, o := range g.objects {
		if o.GetKind() == "Namespace" {
			out = append(out, o.GetName())
		}
	}
	return out
}

func (c *Controller) reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	c.read = map[string]string{}
	before := c.writes.Load()
	nss, err := c.listWatched(ctx, gvkNamespace)
	if err != nil {
		return reconcile.Result{}, err
	}
	groups := map[string]*group{}
	groupOf := map[string]*group{}
	for i := range nss {
		ns := &nss[i]
		profiles := ns.GetAnnotations()[AnnotationProfiles]
		if profiles == "" {
			profiles = strings.Join(c.Profiles, ",")
		}
		key := profiles + "|" + ns.GetAnnotations()[AnnotationPartition]
		g := groups[key]
		if g == nil {
			g = &group{profiles: strings.Split(profiles, ",")}
			groups[key] = g
		}
		// A terminating namespace's objects are going: not computed.
		if ns.GetDeletionTimestamp() == nil {
			groupOf[ns.GetName()] = g
			g.objects = append(g.objects, ns)
		}
	}
	// GatewayClasses of this controller belong to every group; Gateways
	// only when their class is one of them.
	classes, err := c.listWatched(ctx, gvkGatewayClass)
	if err != nil {
		return reconcile.Result{}, err
	}
	ours := map[string]bool{}
	for i := range classes {
		gc := &classes[i]
		if ctl, _, _ := unstructured.NestedString(gc.Object, "spec", "controllerName"); ctl == ControllerName {
			ours[gc.GetName()] = true
			for _, g := range groups {
				g.objects = append(g.objects, gc)
			}
		}
	}
	foreign := map[string]bool{}
	for _, g := range groups {
		g.foreign = foreign
	}
	// Gateways are listed before ListenerSets and routes (c.hierarchy),
	// so that foreign is complete when what attaches to them is.
	kinds := slices.Concat(c.hierarchy, c.policy)
	for _, gvk := range kinds {
		objs, err := c.listWatched(ctx, gvk)
		if err != nil {
			return reconcile.Result{}, err
		}
		for i := range objs {
			o := &objs[i]
			if gvk == gvkGateway {
				if cls, _, _ := unstructured.NestedString(o.Object, "spec", "gatewayClassName"); !ours[cls] {
					foreign[refOf(o)] = true
					continue
				}
			}
			if gvk == gvkListenerSet {
				// GEP-1713: a ListenerSet's listeners are its parent
				// Gateway's; of another controller's Gateway, they are
				// that controller's.
				if p, _, _ := unstructured.NestedMap(o.Object, "spec", "parentRef"); foreign[parentObject(o, p)] {
					foreign[refOf(o)] = true
					continue
				}
			}
			if isRoute(gvk.Kind) && foreignParentsOnly(o, foreign) {
				foreign[refOf(o)] = true
				continue
			}
			if g := groupOf[o.GetNamespace()]; g != nil && o.GetDeletionTimestamp() == nil {
				g.objects = append(g.objects, o)
			}
		}
	}
	fields, err := c.listWatched(ctx, gvkObjectFields)
	if err != nil {
		return reconcile.Result{}, err
	}
	for i := range fields {
		ns, _, _ := unstructured.NestedString(fields[i].Object, "spec", "target", "namespace")
		if g := groupOf[ns]; g != nil {
			g.objects = append(g.objects, &fields[i])
		}
	}
	c.mutate(groups, groupOf) // nothing unless a Mutant is set
	var errs []string
	for _, key := range slices.Sorted(maps.Keys(groups)) {
		if err := c.apply(ctx, groups[key]); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		c.logf("reconcile: %s", strings.Join(errs, "; "))
		return reconcile.Result{RequeueAfter: 2 * time.Second}, nil
	}
	c.mu.Lock()
	c.last = &Reconciled{Read: c.read, Writes: c.writes.Load() - before}
	c.mu.Unlock()
	return reconcile.Result{}, nil
}

// listWatched lists a watched kind and records what the reconcile read
// (Reconciled).
func (c *Controller) listWatched(ctx context.Context, gvk schema.GroupVersionKind) ([]unstructured.Unstructured, error) {
	objs, err := c.list(ctx, gvk)
	for i := range objs {
		c.read[refOf(&objs[i])] = objs[i].GetResourceVersion()
	}
	return objs, err
}

// parentObject returns the Gateway or ListenerSet (Kind/namespace/name) a
// route's parentRef (or a ListenerSet's spec.parentRef) names, or "" when
// it names another kind.
func parentObject(route *unstructured.Unstructured, p map[string]any) string {
	group, set := p["group"].(string)
	if !set {
		group = "gateway.networking.k8s.io"
	}
	kind, _ := p["kind"].(string)
	if kind == "" {
		kind = "Gateway"
	}
	if group != "gateway.networking.k8s.io" || kind != "Gateway" && kind != "ListenerSet" {
		return ""
	}
	ns, _ := p["namespace"].(string)
	if ns == "" {
		ns = route.GetNamespace()
	}
	name, _ := p["name"].(string)
	return kind + "/" + ns + "/" + name
}

// foreignParentsOnly says whether every parentRef of a route names a
// Gateway (or a ListenerSet of a Gateway) of another controller.
func foreignParentsOnly(route *unstructured.Unstructured, foreign map[string]bool) bool {
	refs, _, _ := unstructured.NestedSlice(route.Object, "spec", "parentRefs")
	for _, r := range refs {
		rm, _ := r.(map[string]any)
		if !foreign[parentObject(route, rm)] {
			return false
		}
	}
	return len(refs) > 0
}

// apply computes one group with the engine and writes what changed.
func (c *Controller) apply(ctx context.Context, g *group) error {
	hasPolicy := false
	byRef := map[string]*unstructured.Unstructured{}
	for _, o := range g.objects {
		hasPolicy = hasPolicy || c.isPolicy(o)
		byRef[refOf(o)] = o
	}
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	if !hasPolicy {
		// The last policy is gone: no object is affected any more, and
		// no path has an effective policy.
		if err := c.clearAffected(ctx, byRef, nil, now, g.foreign); err != nil {
			return err
		}
		return c.writeEffective(ctx, g, &simulator.Output{}, byRef)
	}
	m, rejected, err := c.load(g)
	if err != nil {
		return fmt.Errorf("namespaces %s (profiles %s): %v", strings.Join(g.namespaces(), ", "), strings.Join(g.profiles, ","), err)
	}
	if m == nil {
		// Logged by load; requeueing would meet the same error. With no
		// model, no Gateway is known to reach a policy: one of a kind
		// that reports status per ancestor gets no entry.
		var errs []string
		for _, r := range rejected {
			if err := c.writePolicyStatus(ctx, r.object, rejectedStatus(nil, g.profiles, r), now); err != nil {
				errs = append(errs, err.Error())
			}
		}
		return joined(errs)
	}
	var out *simulator.Output
	if c.Simulate != nil {
		out = c.Simulate(m, c.Semantics)
	} else {
		out = m.Run(c.Semantics, nil)
	}
	for _, r := range rejected {
		out.Policies = append(out.Policies, rejectedStatus(m, g.profiles, r))
	}
	full, errs := c.writePolicies(ctx, g, out, byRef, now)
	affected, terrs := c.writeTargets(ctx, g, out, byRef, ancestorsFull(full), now)
	errs = append(errs, terrs...)
	if err := c.clearAffected(ctx, byRef, affected, now, g.foreign); err != nil {
		errs = append(errs, err.Error())
	}
	if err := c.writeEffective(ctx, g, out, byRef); err != nil {
		errs = append(errs, err.Error())
	}
	return joined(errs)
}

// joined is errs as one error, nil when there is none.
func joined(errs []string) error {
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// writePolicies writes the status of out's policies (apply). full says,
// per Gateway a policy's full ancestor list has no room for
// (WrittenAncestors), per condition type, the policies left out.
func (c *Controller) writePolicies(ctx context.Context, g *group, out *simulator.Output, byRef map[string]*unstructured.Unstructured, now metav1.Time) (full map[string]map[string][]string, errs []string) {
	full = map[string]map[string][]string{}
	for _, ps := range out.Policies {
		o := byRef[ps.Ref]
		if o == nil {
			continue
		}
		if ps.Ancestors != nil {
			// The engine's status per ancestor Gateway (simulator,
			// statusAncestors) is what is written: Gateways of other
			// controllers are not in the model, so none is named.
			var over []engine.PolicyTarget
			ps.Ancestors, over = WrittenAncestors(ps.Ancestors, othersEntries(o))
			for _, a := range over {
				if full[a.Ref] == nil {
					full[a.Ref] = map[string][]string{}
				}
				typ := affectedType(g.profiles, o)
				full[a.Ref][typ] = append(full[a.Ref][typ], refOf(o))
			}
			if err := c.writePolicyStatus(ctx, o, ps, now); err != nil {
				errs = append(errs, err.Error())
			}
			continue
		}
		// Ancestors of other controllers are theirs to report; a policy
		// with only those is left alone.
		var own []engine.PolicyTarget
		for _, t := range ps.Targets {
			if !g.foreign[strings.SplitN(t.Ref, "#", 2)[0]] {
				own = append(own, t)
			}
		}
		if len(ps.Targets) > 0 && len(own) == 0 {
			continue
		}
		ps.Targets = own
		if err := c.writePolicyStatus(ctx, o, ps, now); err != nil {
			errs = append(errs, err.Error())
		}
	}
	return full, errs
}

// writeTargets writes the status of out's targets, with signals, the
// conditions of Gateways whose ancestor lists are full (ancestorsFull),
// on their objects too (apply); affected are the objects written.
func (c *Controller) writeTargets(ctx context.Context, g *group, out *simulator.Output, byRef map[string]*unstructured.Unstructured, signals map[string][]engine.Condition, now metav1.Time) (affected map[string]bool, errs []string) {
	affected = map[string]bool{}
	for _, ts := range out.Targets {
		o := byRef[ts.Ref]
		if o == nil {
			continue // sections: listener and route parent status have no place for it
		}
		affected[ts.Ref] = true
		ts.Conditions = append(slices.Clip(ts.Conditions), signals[ts.Ref]...)
		delete(signals, ts.Ref)
		if err := c.writeTargetStatus(ctx, o, ts, now, g.foreign); err != nil {
			errs = append(errs, err.Error())
		}
	}
	for _, ref := range slices.Sorted(maps.Keys(signals)) {
		if o := byRef[ref]; o != nil {
			affected[ref] = true
			if err := c.writeTargetStatus(ctx, o, engine.TargetStatus{Ref: ref, Conditions: signals[ref]}, now, g.foreign); err != nil {
				errs = append(errs, err.Error())
			}
		}
	}
	return affected, errs
}

// rejection is an object left out of the computation, and why.
type rejection struct {
	object *unstructured.Unstructured
	msg    string
}

// load reads g's objects as the CLI reads files, within the same limits
// but --max-bytes (simulator.FromObjects).
// An object the loader refuses (over a limit, or invalid) is left out and,
// when it is a policy, rejected with the loader's message; the rest is
// loaded again, so one bad object never stops the others from being
// reconciled (docs/limits.md). Each round leaves out at least one object:
// at most len(g.objects)+1 rounds. An error that names no object (the
// hierarchy has more paths than the limit) rejects every policy of g, and m
// is nil.
func (c *Controller) load(g *group) (m *simulator.Model, rejected []rejection, err error) {
	objs := g.objects
	for {
		raw := make([]map[string]any, len(objs))
		for i, o := range objs {
			raw[i] = cluster.SimulatorObject(o)
			if c.Mutant != "" {
				c.byArrival(raw[i], o)
			}
		}
		m, err := simulator.FromObjects(raw, simulator.Options{Profiles: g.profiles, Limits: c.Limits, CEL: c.CEL, Vocabulary: c.Vocabulary})
		if err == nil {
			return m, rejected, nil
		}
		var errs load.Errors
		if !errors.As(err, &errs) {
			return nil, rejected, err
		}
		bad := map[int][]string{}
		for _, e := range errs {
			if d := e.Source.Doc; d >= 1 && d <= len(objs) {
				bad[d-1] = append(bad[d-1], withoutSource(e))
			}
		}
		if len(bad) == 0 {
			// Nothing to leave out: every policy carries the error.
			for _, o := range objs {
				if c.isPolicy(o) {
					rejected = append(rejected, rejection{o, strings.Join(errorLines(errs), "; ")})
				}
			}
			c.logf("namespaces %s: %v", strings.Join(g.namespaces(), ", "), err)
			return nil, rejected, nil
		}
		var keep []*unstructured.Unstructured
		for i, o := range objs {
			msgs, ok := bad[i]
			switch {
			case !ok:
				keep = append(keep, o)
			case c.isPolicy(o):
				rejected = append(rejected, rejection{o, strings.Join(msgs, "; ")})
			default:
				c.logf("%s left out: %s", refOf(o), strings.Join(msgs, "; "))
			}
		}
		objs = keep
	}
}

func (c *Controller) isPolicy(o *unstructured.Unstructured) bool {
	return slices.ContainsFunc(c.policy, func(k schema.GroupVersionKind) bool { return k.GroupKind() == o.GroupVersionKind().GroupKind() })
}

// withoutSource is e without the file and document, which name the
// controller's own rendering of the cluster's objects, not the user's.
func withoutSource(e *load.Error) string {
	e2 := *e
	e2.Source, e2.Object = load.Source{}, ""
	return e2.Error()
}

func errorLines(errs load.Errors) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, withoutSource(e))
	}
	return out
}

// refOf names an object as the engine does: Kind/namespace/name.
func refOf(o *unstructured.Unstructured) string {
	if o.GetNamespace() == "" {
		return o.GetKind() + "/" + o.GetName()
	}
	return o.GetKind() + "/" + o.GetNamespace() + "/" + o.GetName()
}

// conditions turns engine conditions into metav1 conditions for
// generation, keeping lastTransitionTime where status is unchanged.
func conditions(cs []engine.Condition, old []any, generation int64, now metav1.Time) []any {
	prev := map[string]map[string]any{}
	for _, o := range old {
		if m, ok := o.(map[string]any); ok {
			prev[fmt.Sprint(m["type"])] = m
		}
	}
	var out []any
	for _, c := range cs {
		ltt := now.UTC().Format(time.RFC3339)
		if p := prev[c.Type]; p != nil && p["status"] == c.Status {
			if s, ok := p["lastTransitionTime"].(string); ok {
				ltt = s
			}
		}
		msg := c.Message
		if msg == "" {
			msg = c.Reason
		}
		m := map[string]any{"type": c.Type, "status": c.Status, "reason": c.Reason, "message": msg, "lastTransitionTime": ltt}
		// An object without metadata.generation (a Service) gets none:
		// the API server drops observedGeneration 0 (metav1.Condition,
		// omitempty), and status that has it would differ from the stored
		// one on every reconcile (docs/cluster.md, Fanout).
		if generation != 0 {
			m["observedGeneration"] = generation
		}
		out = append(out, m)
	}
	return out
}

// rejectedStatus is the status of a policy the loader refused, rejected
// whole (Accepted=False/Invalid). For a kind that reports status per
// ancestor Gateway, the simulator names the Gateways that reach its
// targetRefs (Model.GatewaysReaching), as it does for a policy the engine
// rejects whole; with no model (m nil), none is known and it has no entry.
func rejectedStatus(m *simulator.Model, profiles []string, r rejection) engine.PolicyStatus {
	ps := engine.PolicyStatus{Ref: refOf(r.object), Conditions: []engine.Condition{{Type: engine.TypeAccepted, Status: "False", Reason: engine.ReasonInvalid, Message: r.msg}}}
	if !perAncestorKind(profiles, r.object) {
		return ps
	}
	ps.Ancestors = []engine.PolicyTarget{}
	if m != nil {
		for _, gw := range m.GatewaysReaching(targetRefs(r.object)) {
			ps.Ancestors = append(ps.Ancestors, engine.PolicyTarget{Ref: gw.String(), Conditions: ps.Conditions})
		}
	}
	return ps
}

// MaxAncestors is the most entries Gateway API v1's PolicyStatus.Ancestors
// holds ("A maximum of 16 ancestors will be represented in this list";
// MaxItems=16).
const MaxAncestors = 16

// WrittenAncestors splits the engine's status per ancestor Gateway of a
// policy (engine.PolicyStatus.Ancestors, in ref order) into the entries
// written and those the list has no room for: Gateway API v1,
// PolicyStatus.Ancestors, "If this slice is full, implementations MUST NOT
// add further entries. Instead they MUST consider the policy
// unimplementable and signal that on any related resources such as the
// ancestor that would be referenced here." Other controllers' entries
// share the list: others is how many entries of theirs it holds.
func WrittenAncestors(as []engine.PolicyTarget, others int) (written, over []engine.PolicyTarget) {
	room := max(MaxAncestors-others, 0)
	if len(as) <= room {
		return as, nil
	}
	return as[:room:room], as[room:]
}

// othersEntries counts the entries of other controllers in o's
// status.ancestors.
func othersEntries(o *unstructured.Unstructured) int {
	as, _, _ := unstructured.NestedSlice(o.Object, "status", "ancestors")
	n := 0
	for _, a := range as {
		if am, ok := a.(map[string]any); ok && am["controllerName"] != ControllerName {
			n++
		}
	}
	return n
}

// ancestorsFull are the conditions written on each Gateway that the full
// ancestor lists of some policies have no room for (WrittenAncestors):
// per kind, its <Kind>Affected condition (GEP-713, Target object status;
// the kind's profile names it), False, naming the policies, one condition
// of a type as Gateway API's listType=map conditions allow, so that it is
// cleared as the others are once the lists have room again. full maps a
// Gateway to condition types to the policies left out.
func ancestorsFull(full map[string]map[string][]string) map[string][]engine.Condition {
	out := map[string][]engine.Condition{}
	for gw, types := range full {
		for _, typ := range slices.Sorted(maps.Keys(types)) {
			refs := slices.Sorted(slices.Values(types[typ]))
			refs = slices.Compact(refs)
			out[gw] = append(out[gw], engine.Condition{Type: typ, Status: "False", Reason: "AncestorsFull",
				Message: fmt.Sprintf("%s not implemented through this Gateway: each policy's status already has %d ancestor entries, the most Gateway API's PolicyStatus.Ancestors holds", strings.Join(refs, ", "), MaxAncestors)})
		}
	}
	return out
}

// affectedType is the <Kind>Affected condition type of o's kind (its
// profile among profiles), or "" when no profile names one.
func affectedType(profiles []string, o *unstructured.Unstructured) string {
	if p := profileOf(profiles, o); p != nil {
		return p.AffectedCondition()
	}
	return ""
}

// builtins are the built-in profiles, parsed once (profileOf is asked per
// policy on every reconcile).
var builtins = sync.OnceValues(profile.Builtins)

// profileOf is the profile of o's kind among the built-in profiles
// profiles, or nil.
func profileOf(profiles []string, o *unstructured.Unstructured) *profile.Profile {
	bs, _ := builtins()
	for _, n := range profiles {
		if p, ok := bs[n]; ok && p.Spec.Policy.Kind == o.GetKind() && p.Spec.Policy.Group == o.GroupVersionKind().Group {
			return p
		}
	}
	return nil
}

// perAncestorKind says whether the profile of o's kind among profiles
// reports status per ancestor Gateway (profile.Spec.StatusAncestors), as
// the engine's output says for the policies it computed
// (engine.PolicyStatus.Ancestors not nil).
func perAncestorKind(profiles []string, o *unstructured.Unstructured) bool {
	p := profileOf(profiles, o)
	return p != nil && p.Spec.StatusAncestors == profile.StatusAncestorsGateway
}

// targetRefs reads a policy's spec.targetRefs as the engine names
// objects (a targetRef names an object in the policy's namespace).
func targetRefs(o *unstructured.Unstructured) []ref.Ref {
	trs, _, _ := unstructured.NestedSlice(o.Object, "spec", "targetRefs")
	var out []ref.Ref
	for _, t := range trs { // bounded by the CRD (MaxItems)
		tm, _ := t.(map[string]any)
		g, _ := tm["group"].(string)
		k, _ := tm["kind"].(string)
		n, _ := tm["name"].(string)
		sec, _ := tm["sectionName"].(string)
		out = append(out, ref.Ref{Group: g, Kind: k, Namespace: o.GetNamespace(), Name: n, Section: sec})
	}
	return out
}

// writePolicyStatus writes a policy's status. For a kind that reports
// status per ancestor Gateway (ps.Ancestors not nil: Gateway API's
// PolicyStatus, which holds ancestors only), the engine's entry per
// ancestor Gateway, as it computed them (simulator, statusAncestors),
// and nothing aggregated. For the others, status.conditions aggregated (as
// Kuadrant's policies report them) and status.ancestors per target
// (GEP-713's PolicyAncestorStatus, with this controller's name).
func (c *Controller) writePolicyStatus(ctx context.Context, o *unstructured.Unstructured, ps engine.PolicyStatus, now metav1.Time) error {
	status := map[string]any{}
	perAncestor := ps.Ancestors != nil
	if !perAncestor {
		old, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
		status["conditions"] = c.mergePolicyConditions(conditions(ps.Conditions, old, o.GetGeneration(), now), old)
	}
	// Ancestor entries are a map keyed by ancestorRef and controllerName
	// (Gateway API PolicyStatus.Ancestors): other controllers' entries
	// are kept as they are, and this controller's replaced.
	oldAnc, _, _ := unstructured.NestedSlice(o.Object, "status", "ancestors")
	var ancestors []any
	for _, a := range oldAnc {
		if am, ok := a.(map[string]any); ok && am["controllerName"] != ControllerName {
			ancestors = append(ancestors, a)
		}
	}
	// entry is this controller's entry for ancestor ref, its conditions
	// merged into those stored there.
	entry := func(ref map[string]any, cs []engine.Condition) any {
		var prev []any
		for _, a := range oldAnc {
			if am, ok := a.(map[string]any); ok && am["controllerName"] == ControllerName && reflect.DeepEqual(am["ancestorRef"], ref) {
				prev, _, _ = unstructured.NestedSlice(am, "conditions")
			}
		}
		return map[string]any{
			"ancestorRef":    ref,
			"controllerName": ControllerName,
			"conditions":     c.mergePolicyConditions(conditions(cs, prev, o.GetGeneration(), now), prev),
		}
	}
	entries := ps.Targets
	switch {
	case perAncestor && c.perTargetAncestors:
		// A broken writer, for tests: per target, or per targetRef.
		if len(entries) == 0 {
			for _, t := range targetRefs(o) {
				entries = append(entries, engine.PolicyTarget{Ref: t.String(), Conditions: ps.Conditions})
			}
		}
	case perAncestor:
		entries = ps.Ancestors // trimmed to the room left by apply (WrittenAncestors)
	}
	for _, t := range entries {
		ancestors = append(ancestors, entry(parentRef(t.Ref), t.Conditions))
	}
	if len(ancestors) > 0 || len(oldAnc) > 0 {
		status["ancestors"] = append([]any{}, ancestors...)
	}
	return c.updateStatus(ctx, o, status)
}

// policyConditionTypes are the condition types this controller is
// responsible for in a policy's status (the engine's); any other is
// another writer's.
var policyConditionTypes = []string{engine.TypeAccepted, engine.TypeEnforced, engine.TypeProgrammed, "ResolvedRefs"}

// mergePolicyConditions merges this controller's conditions mine into
// old, the conditions stored: Gateway API PolicyAncestorStatus.Conditions,
// "Implementations MUST perform a read-modify-write cycle on this field
// before modifying it. Implementations MUST NOT remove or reorder
// Conditions that they are not directly responsible for. For example, if
// an implementation sees a Condition with type `special.io/SomeField`, it
// MUST NOT remove, change or update that Condition." A condition of
// another writer stays as it is, where it is; one of this controller's
// is replaced in place, or dropped when mine no longer has it; the rest
// of mine follows in order.
func (c *Controller) mergePolicyConditions(mine, old []any) []any {
	if c.replaceConditions {
		return mine // a broken writer, for tests: nothing of another writer kept
	}
	byType := map[string]any{}
	for _, m := range mine {
		byType[fmt.Sprint(m.(map[string]any)["type"])] = m
	}
	placed := map[string]bool{}
	var out []any
	for _, x := range old {
		xm, ok := x.(map[string]any)
		if !ok {
			continue
		}
		t := fmt.Sprint(xm["type"])
		switch n, ok := byType[t]; {
		case ok && !placed[t]:
			out = append(out, n)
			placed[t] = true
		case !ok && !slices.Contains(policyConditionTypes, t):
			out = append(out, x)
		}
	}
	for _, m := range mine {
		if t := fmt.Sprint(m.(map[string]any)["type"]); !placed[t] {
			out = append(out, m)
		}
	}
	return out
}

// parentRef turns Kind/namespace/name#section into a Gateway API
// ParentReference.
func parentRef(ref string) map[string]any {
	sec := ""
	if i := strings.Index(ref, "#"); i >= 0 {
		ref, sec = ref[:i], ref[i+1:]
	}
	parts := strings.Split(ref, "/")
	r := map[string]any{"kind": parts[0], "name": parts[len(parts)-1]}
	switch parts[0] {
	case "Service", "Namespace":
		r["group"] = ""
	default:
		r["group"] = "gateway.networking.k8s.io"
	}
	if len(parts) == 3 {
		r["namespace"] = parts[1]
	}
	if sec != "" {
		r["sectionName"] = sec
	}
	return r
}

// clearAffected removes this controller's <Kind>Affected conditions from
// the objects of byRef that are not affected any more (GEP-713, Target
// object status: the condition says a policy affects the object; one left
// from an earlier state would say what is no longer true).
func (c *Controller) clearAffected(ctx context.Context, byRef map[string]*unstructured.Unstructured, affected map[string]bool, now metav1.Time, foreign map[string]bool) error {
	var errs []string
	for _, ref := range slices.Sorted(maps.Keys(byRef)) {
		o := byRef[ref]
		if affected[ref] || foreign[ref] || c.isPolicy(o) || !c.hasAffected(o) {
			continue
		}
		if err := c.writeTargetStatus(ctx, o, engine.TargetStatus{Ref: ref}, now, foreign); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// ownsType reports whether a condition type is the <Kind>Affected of a
// policy kind this controller serves.
func (c *Controller) ownsType(t string) bool {
	return slices.ContainsFunc(c.policy, func(k schema.GroupVersionKind) bool { return strings.HasSuffix(t, "/"+k.Kind+"Affected") })
}

// hasAffected reports whether o carries a condition of a type this
// controller owns, in status.conditions or in its own route parent status.
func (c *Controller) hasAffected(o *unstructured.Unstructured) bool {
	var lists [][]any
	if conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions"); conds != nil {
		lists = append(lists, conds)
	}
	parents, _, _ := unstructured.NestedSlice(o.Object, "status", "parents")
	for _, p := range parents {
		if pm, ok := p.(map[string]any); ok && pm["controllerName"] == ControllerName {
			conds, _, _ := unstructured.NestedSlice(pm, "conditions")
			lists = append(lists, conds)
		}
	}
	for _, l := range lists {
		for _, x := range l {
			if m, ok := x.(map[string]any); ok && c.ownsType(fmt.Sprint(m["type"])) {
				return true
			}
		}
	}
	return false
}

// writeTargetStatus merges this controller's <Kind>Affected conditions
// into the target's status.conditions (routes: into the parent status of
// each of its parents but other controllers' Gateways). Listener and rule
// sections are reported on their object.
func (c *Controller) writeTargetStatus(ctx context.Context, o *unstructured.Unstructured, ts engine.TargetStatus, now metav1.Time, foreign map[string]bool) error {
	if o.GetKind() == "Namespace" || o.GetKind() == "GatewayClass" {
		return nil
	}
	status, _, _ := unstructured.NestedMap(o.Object, "status")
	if status == nil {
		status = map[string]any{}
	}
	merge := func(old []any) []any {
		mine := map[string]bool{}
		for _, cnd := range ts.Conditions {
			mine[cnd.Type] = true
		}
		// Affected conditions of the kinds this controller serves that
		// ts does not hold are stale: dropped.
		var keep []any
		for _, x := range old {
			if m, ok := x.(map[string]any); ok && !mine[fmt.Sprint(m["type"])] && !c.ownsType(fmt.Sprint(m["type"])) {
				keep = append(keep, x)
			}
		}
		return append(keep, conditions(ts.Conditions, old, o.GetGeneration(), now)...)
	}
	if isRoute(o.GetKind()) {
		parents, _, _ := unstructured.NestedSlice(o.Object, "status", "parents")
		refs, _, _ := unstructured.NestedSlice(o.Object, "spec", "parentRefs")
		out := []any{}
		for _, p := range parents {
			if pm, ok := p.(map[string]any); ok && pm["controllerName"] != ControllerName {
				out = append(out, p)
			}
		}
		for _, r := range refs {
			rm, _ := r.(map[string]any)
			if foreign[parentObject(o, rm)] {
				continue
			}
			var old []any
			for _, p := range parents {
				if pm, ok := p.(map[string]any); ok && pm["controllerName"] == ControllerName && reflect.DeepEqual(pm["parentRef"], rm) {
					old, _, _ = unstructured.NestedSlice(pm, "conditions")
				}
			}
			if conds := merge(old); len(conds) > 0 {
				// A parent status holds at least one condition
				// (Gateway API's RouteParentStatus).
				out = append(out, map[string]any{"parentRef": rm, "controllerName": ControllerName, "conditions": conds})
			}
		}
		status["parents"] = out
	} else {
		old, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
		status["conditions"] = merge(old)
	}
	return c.updateStatus(ctx, o, status)
}

// updateStatus writes status when it differs from the stored one.
func (c *Controller) updateStatus(ctx context.Context, o *unstructured.Unstructured, status map[string]any) error {
	status = normalize(status)
	old, _, _ := unstructured.NestedMap(o.Object, "status")
	merged := map[string]any{}
	maps.Copy(merged, old)
	maps.Copy(merged, status)
	if reflect.DeepEqual(normalize(old), normalize(merged)) {
		return nil
	}
	cp := o.DeepCopy()
	cp.Object["status"] = merged
	if err := c.client.Status().Update(ctx, cp); err != nil {
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return nil // a newer event follows
		}
		return fmt.Errorf("status of %s: %w", refOf(o), err)
	}
	c.writes.Add(1)
	return nil
}

// normalize round-trips through JSON so that numbers compare alike.
func normalize(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	data, _ := yaml.Marshal(m)
	var out map[string]any
	_ = yaml.Unmarshal(data, &out)
	return out
}

// writeEffective keeps one EffectivePolicy per policy kind and affected
// object (the last element of a path), in that object's namespace, owned
// by it; stale ones are deleted.
func (c *Controller) writeEffective(ctx context.Context, g *group, out *simulator.Output, byRef map[string]*unstructured.Unstructured) error {
	type view struct {
		ns, name string
		owner    *unstructured.Unstructured
		spec     map[string]any
	}
	views := map[string]*view{}
	for _, e := range out.EffectivePolicies {
		end := e.Path[len(e.Path)-1]
		obj := strings.SplitN(end, "#", 2)[0]
		owner := byRef[obj]
		if owner == nil || owner.GetNamespace() == "" {
			continue
		}
		name := dnsName(strings.ToLower(e.PolicyKind+"-"+strings.ReplaceAll(strings.ReplaceAll(end[strings.Index(end, "/")+1:], "/", "-"), "#", "-")) + "-" + strings.ToLower(owner.GetKind()))
		v := views[owner.GetNamespace()+"/"+name]
		if v == nil {
			sec := ""
			if i := strings.Index(end, "#"); i >= 0 {
				sec = end[i+1:]
			}
			target := map[string]any{"kind": owner.GetKind(), "name": owner.GetName(), "group": owner.GroupVersionKind().Group}
			if sec != "" {
				target["sectionName"] = sec
			}
			v = &view{ns: owner.GetNamespace(), name: name, owner: owner, spec: map[string]any{"policyKind": e.PolicyKind, "targetRef": target, "paths": []any{}}}
			views[v.ns+"/"+v.name] = v
		}
		v.spec["paths"] = append(v.spec["paths"].([]any), map[string]any{
			"path": toAny(e.Path), "spec": e.Spec, "provenance": e.Provenance, "policies": toAny(e.Policies),
		})
	}
	// Existing views in the group's namespaces.
	have := map[string]*unstructured.Unstructured{}
	nsInGroup := map[string]bool{}
	for _, o := range g.objects {
		if o.GetKind() == "Namespace" {
			nsInGroup[o.GetName()] = true
		}
	}
	existing, err := c.list(ctx, gvkEffectivePolicy)
	if err != nil && !meta.IsNoMatchError(err) {
		return err
	}
	for i := range existing {
		e := &existing[i]
		if nsInGroup[e.GetNamespace()] && e.GetLabels()[LabelManagedBy] == managedBy {
			have[e.GetNamespace()+"/"+e.GetName()] = e
		}
	}
	for key, v := range views {
		spec := normalize(v.spec)
		if h := have[key]; h != nil {
			delete(have, key)
			if old, _, _ := unstructured.NestedMap(h.Object, "spec"); reflect.DeepEqual(normalize(old), spec) {
				continue
			}
			cp := h.DeepCopy()
			cp.Object["spec"] = spec
			if err := c.client.Update(ctx, cp); apierrors.IsConflict(err) {
				continue
			} else if err != nil {
				return err
			}
			c.writes.Add(1)
			continue
		}
		u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
		u.SetGroupVersionKind(gvkEffectivePolicy)
		u.SetNamespace(v.ns)
		u.SetName(v.name)
		u.SetLabels(map[string]string{LabelManagedBy: managedBy})
		u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: v.owner.GetAPIVersion(), Kind: v.owner.GetKind(), Name: v.owner.GetName(), UID: v.owner.GetUID()}})
		if err := c.client.Create(ctx, u); apierrors.IsAlreadyExists(err) {
			continue
		} else if err != nil {
			return err
		}
		c.writes.Add(1)
	}
	for _, h := range have {
		if err := c.client.Delete(ctx, h); apierrors.IsNotFound(err) {
			continue
		} else if err != nil {
			return err
		}
		c.writes.Add(1)
	}
	return nil
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// dnsName makes s a valid object name, unique by a hash when shortened.
func dnsName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	s = strings.Trim(b.String(), "-.")
	if len(s) <= 63 {
		return s
	}
	h := sha256.Sum256([]byte(s))
	return strings.Trim(s[:54], "-.") + "-" + hex.EncodeToString(h[:])[:8]
}

// Writes counts the writes the API server accepted from the controller
// (for fanout tests).
func (c *Controller) Writes() int64 { return c.writes.Load() }
