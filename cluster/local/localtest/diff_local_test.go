package localtest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// diffFiles are the step scenarios TestLocalDiff applies to a cluster.
var diffFiles = []string{
	"scenarios/gep-713/steps-inherited-over-time.yaml",
	"scenarios/gep-713/steps-direct-conflict-over-time.yaml",
	"scenarios/gateway-api/backendtlspolicy-conformance-backendtlspolicy.yaml",
	"scenarios/gateway-api/backendtlspolicy-conformance-observed-generation-bump.yaml",
}

// readOptions are the options gepcheck diff --from-cluster -A reads with
// for opts (cluster.ReadOptionsFor, as suite/input/cluster.go), in
// pages of 3.
func readOptions(t *testing.T, opts simulator.Options) cluster.ReadOptions {
	o, err := cluster.ReadOptionsFor(opts, "")
	if err != nil {
		t.Fatal(err)
	}
	o.PageSize = 3 // several pages of every kind with more than 3 objects
	return o
}

// methods records the HTTP methods of the requests made through a config.
type methods struct {
	mu   sync.Mutex
	seen map[string]int
}

func (m *methods) wrap(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			m.mu.Lock()
			m.seen[r.Method]++
			m.mu.Unlock()
			return rt.RoundTrip(r)
		})
	})
	return c
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestLocalDiff: for every step of the step scenarios, the state before
// the step is created in a local control plane, read back read-only
// (cluster.ReadState, paged), and the diff of it against it with the
// step made (its objects deleted, simulator.Delete, as gepcheck diff
// --from-cluster --delete does, then its objects applied, simulator.Apply,
// as -f does) is the one the scenario's expect blocks state
// (scenarios.CheckStepDiff; docs/diff.md); the step is then made in the
// cluster (deletions with the API's delete). Steps that delete are
// counted, and none compared fails the test. The reading makes GET
// requests only.
func TestLocalDiff(t *testing.T) {
	c := Start(t, []*unstructured.Unstructured{cluster.OpenCRD("policies.controller.io", "ColorPolicy", "Namespaced", "v1")})
	ctx := context.Background()
	dyn, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	kube, err := cluster.NewKube(c)
	if err != nil {
		t.Fatal(err)
	}
	rec := &methods{seen: map[string]int{}}
	read := *c
	read.Config = rec.wrap(c.Config)
	judged, caught, random, deleting, undeletedCaught := 0, 0, 0, 0, 0
	type input struct {
		name string
		data []byte
	}
	var inputs []input
	for _, f := range diffFiles {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", f))
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{f, data})
	}
	// Random step cases (generators.Cases): their expectation is the
	// engine's output on each state, simulated on its own offline
	// (expectOf), not the diff.
	// Four seeds: random states hold many creationTimestamps, each a
	// wave a second apart (seeds 4 and 6 took 5 s each).
	for _, seed := range []int{1, 2, 3, 5} {
		prof := []string{"color-inherited", "color-direct"}[seed%2]
		data, err := generators.Print(generators.PrintOptions{Seed: seed, Profile: prof, Steps: 3})
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{fmt.Sprintf("random %s seed %d", prof, seed), data})
	}
	for _, in := range inputs {
		f := in.name
		docs, err := load.ReadBytes(f, in.data, load.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		states, models, err := simulator.StateModels(docs, simulator.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sc := models[0].Scenario
		vocab, err := sc.Vocabulary()
		if err != nil {
			t.Fatal(err)
		}
		sems, err := sc.SemanticsList()
		if err != nil {
			t.Fatal(err)
		}
		opts := simulator.Options{Profiles: sc.Spec.Profiles, Vocabulary: vocab}
		isRandom := strings.HasPrefix(f, "random")
		if isRandom {
			for i := range states {
				models[i].Vocabulary = vocab
				states[i].Expect = expectOf(models[i].Run(sems[0], nil))
			}
		}
		// The cluster holds state 0, then each step is applied to it
		// after it is judged (one wave of creations per step).
		began := time.Now()
		created := create(t, ctx, kube, states[0].Docs)
		t.Logf("%s: state 0 created in %v", f, time.Since(began))
		for i := 0; i+1 < len(states); i++ {
			next := states[i+1]
			name := f + " " + next.Label(len(states)-1)
			st, err := cluster.ReadState(ctx, &read, readOptions(t, opts))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			kept, err := simulator.Delete(st.Docs, next.Deleted, "default")
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			outs, mutated := make([]*simulator.Output, 2), make([]*simulator.Output, 2)
			for j, state := range [][]*load.Doc{st.Docs, simulator.Apply(kept, next.Applied, "default")} {
				m, err := simulator.Build(state, opts)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				outs[j] = m.Run(sems[0], nil)
				mutated[j] = m.RunMutant(sems[0], engine.MutantLowerEstablished)
			}
			// A planted fault: a broken engine (Conflict resolution
			// rule 1 reversed) on the same objects is caught somewhere.
			if len(scenarios.CheckStepDiff(states[i].Expect, next.Expect, simulator.DiffOutputs(mutated[0], mutated[1]))) > 0 {
				caught++
			}
			if isRandom {
				random++
			}
			if len(next.Deleted) > 0 {
				deleting++
				// A planted fault: the deletions left out (-f alone,
				// kubectl apply without --prune) is caught.
				m, err := simulator.Build(simulator.Apply(st.Docs, next.Applied, "default"), opts)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(scenarios.CheckStepDiff(states[i].Expect, next.Expect, simulator.DiffOutputs(outs[0], m.Run(sems[0], nil)))) > 0 {
					undeletedCaught++
				}
			}
			d := simulator.DiffOutputs(outs[0], outs[1])
			for _, p := range scenarios.CheckStepDiff(states[i].Expect, next.Expect, d) {
				t.Errorf("%s [%s]: %s", name, sems[0], p)
			}
			if !d.Changed() && !isRandom {
				t.Errorf("%s: nothing changes", name)
			}
			judged++
			created = step(t, ctx, kube, created, next)
		}
		remove(t, ctx, dyn, kube, created)
		t.Logf("%s: %v", f, time.Since(began))
	}
	if judged-random < 10 || random < 3 {
		t.Errorf("%d steps judged, %d of them random, want at least 10 of the scenarios' and 3 random", judged, random)
	}
	if caught == 0 {
		t.Error("the mutant lower-established was not caught on any step")
	}
	if deleting == 0 || undeletedCaught == 0 {
		t.Errorf("%d steps that delete objects compared, the deletions left out caught on %d: want both above 0", deleting, undeletedCaught)
	}
	t.Logf("%d steps judged (%d random, %d deleting), the mutant caught on %d, the deletions left out on %d; requests by method: %v", judged, random, deleting, caught, undeletedCaught, rec.seen)
	for m := range rec.seen {
		if m != http.MethodGet {
			t.Errorf("reading the cluster made %s requests", m)
		}
	}
	// ReadOnly refuses a write before it leaves the process.
	ro, err := dynamic.NewForConfig(cluster.ReadOnly(c.Config))
	if err != nil {
		t.Fatal(err)
	}
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x", "namespace": "default"}}}
	if _, err := ro.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("default").Create(ctx, cm, metav1.CreateOptions{}); !errors.Is(err, cluster.ErrWrite) {
		t.Errorf("a create through ReadOnly: %v, want ErrWrite", err)
	}
	// The limit of documents holds as for files.
	o := readOptions(t, simulator.Options{})
	o.Limits = load.Limits{MaxDocuments: 2}
	if _, err := cluster.ReadState(ctx, c, o); err == nil || !strings.Contains(err.Error(), "more than 2 objects") {
		t.Errorf("MaxDocuments 2: %v", err)
	}
}

// create creates docs as the API server would store them at their
// creationTimestamps' order: Namespaces first, then one wave per intended
// time, each after the clock's next second (GEP-713, Conflict resolution
// rule 2 reads the stored times).
func create(t *testing.T, ctx context.Context, kube *cluster.Kube, docs []*load.Doc) []*unstructured.Unstructured {
	t.Helper()
	waves := map[string][]*load.Doc{}
	var times []string
	for _, d := range docs {
		at, _, _ := unstructured.NestedString(d.Raw, "metadata", "creationTimestamp")
		if d.Kind == "Namespace" {
			at = ""
		}
		if _, ok := waves[at]; !ok {
			times = append(times, at)
		}
		waves[at] = append(waves[at], d)
	}
	slices.Sort(times)
	var created []*unstructured.Unstructured
	for i, at := range times {
		if i > 0 {
			now := time.Now().Truncate(time.Second)
			time.Sleep(time.Until(now.Add(time.Second + 50*time.Millisecond)))
		}
		for _, d := range waves[at] {
			u := (&unstructured.Unstructured{Object: d.Raw}).DeepCopy()
			unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
			ns := u.GetNamespace()
			if d.Namespace != "" {
				ns = d.Namespace
			}
			if ns == "" {
				ns = "default" // ignored for a cluster-scoped kind (Kube.Resource)
			}
			r, err := kube.Resource(u.GroupVersionKind(), ns)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Create(ctx, u, metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) && u.GetKind() == "Namespace" {
				continue
			}
			if err != nil {
				t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), err)
			}
			created = append(created, got)
		}
	}
	return created
}

// step applies a step to the cluster as the scenario's next state has it
// (simulator.States): its deletions, then its objects, an existing one
// updated (it keeps its creationTimestamp), a new one created after the
// clock's next second (newer than every object before it).
func step(t *testing.T, ctx context.Context, kube *cluster.Kube, created []*unstructured.Unstructured, st simulator.State) []*unstructured.Unstructured {
	t.Helper()
	key := func(kind, ns, name string) string { return kind + "/" + ns + "/" + name }
	ns := func(d *load.Doc) string {
		if d.Namespace == "" && d.Kind != "GatewayClass" && d.Kind != "Namespace" {
			return "default"
		}
		return d.Namespace
	}
	for _, d := range st.Deleted {
		for i, u := range created {
			if key(u.GetKind(), u.GetNamespace(), u.GetName()) == key(d.Kind, ns(d), d.Name) {
				remove(t, ctx, nil, kube, []*unstructured.Unstructured{u})
				created = append(created[:i], created[i+1:]...)
				break
			}
		}
	}
	var fresh []*load.Doc
	for _, d := range st.Applied {
		i := slices.IndexFunc(created, func(u *unstructured.Unstructured) bool {
			return key(u.GetKind(), u.GetNamespace(), u.GetName()) == key(d.Kind, ns(d), d.Name)
		})
		if i < 0 {
			fresh = append(fresh, d)
			continue
		}
		r, err := kube.Resource(created[i].GroupVersionKind(), created[i].GetNamespace())
		if err != nil {
			t.Fatal(err)
		}
		cur, err := r.Get(ctx, created[i].GetName(), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		u := (&unstructured.Unstructured{Object: d.Raw}).DeepCopy()
		u.SetNamespace(created[i].GetNamespace())
		u.SetResourceVersion(cur.GetResourceVersion())
		if created[i], err = r.Update(ctx, u, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("update %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
	if len(fresh) > 0 {
		now := time.Now().Truncate(time.Second)
		time.Sleep(time.Until(now.Add(time.Second + 50*time.Millisecond)))
		created = append(created, create(t, ctx, kube, fresh)...)
	}
	return created
}

// remove deletes what create created, but Namespaces (a namespace's
// deletion waits on controllers), and waits until each is gone.
func remove(t *testing.T, ctx context.Context, dyn dynamic.Interface, kube *cluster.Kube, objs []*unstructured.Unstructured) {
	t.Helper()
	for _, u := range objs {
		if u.GetKind() == "Namespace" {
			continue
		}
		r, err := kube.Resource(u.GroupVersionKind(), u.GetNamespace())
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Delete(ctx, u.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		for range 100 {
			if _, err := r.Get(ctx, u.GetName(), metav1.GetOptions{}); apierrors.IsNotFound(err) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	_ = dyn
}

// expectOf is what a random case expects of a state: the engine's output
// on that state alone, as the scenario files' expect blocks write it
// (every effective policy, with provenance; every policy condition).
func expectOf(out *simulator.Output) *simulator.Expect {
	exp := &simulator.Expect{}
	for _, e := range out.EffectivePolicies {
		spec, _ := e.Spec.(map[string]any)
		exp.EffectivePolicies = append(exp.EffectivePolicies, simulator.ExpectedPath{Path: e.Path, Spec: spec, Provenance: e.Provenance})
	}
	for _, p := range out.Policies {
		ep := simulator.ExpectedPolicy{Ref: p.Ref}
		for _, c := range p.Conditions {
			ep.Conditions = append(ep.Conditions, simulator.ExpectedCondition{Type: c.Type, Status: c.Status, Reason: c.Reason})
		}
		for _, a := range p.Ancestors {
			ea := simulator.ExpectedAncestor{Ref: a.Ref}
			for _, c := range a.Conditions {
				ea.Conditions = append(ea.Conditions, simulator.ExpectedCondition{Type: c.Type, Status: c.Status, Reason: c.Reason})
			}
			ep.Ancestors = append(ep.Ancestors, ea)
		}
		exp.Policies = append(exp.Policies, ep)
	}
	return exp
}
