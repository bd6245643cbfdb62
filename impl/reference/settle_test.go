package reference

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// lister lists every object of a kind, as stored (an API server, or the
// fake client of the unit tests).
type lister func(context.Context, schema.GroupVersionKind) ([]unstructured.Unstructured, error)

// clientList lists through a controller-runtime client.
func clientList(cl client.Client) lister {
	return func(ctx context.Context, gvk schema.GroupVersionKind) ([]unstructured.Unstructured, error) {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		err := cl.List(ctx, l)
		return l.Items, err
	}
}

// caughtUp says why ctl's last reconcile did not read what list holds,
// "" when it did: every object of the watched kinds at the resourceVersion
// stored, and nothing else. Then no event is pending (Reconciled).
func caughtUp(ctx context.Context, ctl *Controller, list lister) (string, error) {
	stored := map[string]string{}
	for _, gvk := range ctl.Watched() {
		objs, err := list(ctx, gvk)
		if err != nil {
			return "", err
		}
		for i := range objs {
			stored[refOf(&objs[i])] = objs[i].GetResourceVersion()
		}
	}
	last := ctl.LastReconciled()
	if last == nil {
		return "no reconcile has ended", nil
	}
	var why []string
	refs := maps.Clone(stored)
	maps.Copy(refs, last.Read)
	for _, ref := range slices.Sorted(maps.Keys(refs)) {
		switch read, ok := last.Read[ref]; {
		case !ok:
			why = append(why, ref+" not read")
		case stored[ref] == "":
			why = append(why, ref+" read, not stored")
		case read != stored[ref]:
			why = append(why, fmt.Sprintf("%s read at resourceVersion %s, stored %s", ref, read, stored[ref]))
		}
	}
	return strings.Join(why, "; "), nil
}

// waitCaughtUp polls caughtUp until "", within budget (zero: one look).
func waitCaughtUp(ctx context.Context, ctl *Controller, list lister, budget time.Duration) error {
	deadline := time.Now().Add(budget)
	for {
		why, err := caughtUp(ctx, ctl, list)
		if err == nil && why == "" {
			return nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return err
			}
			return fmt.Errorf("no reconcile read what is stored within %s: %s", budget, why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// settled is docs/cluster.md's Fanout by conditions, not by a quiet spell
// of a guessed length: once ctl has caught up with what is stored, probe
// changes a watched object no computation depends on, and the reconcile
// that read the change must write nothing. Each wait polls within budget.
func settled(ctx context.Context, ctl *Controller, list lister, probe func(context.Context) error, budget time.Duration) error {
	if err := waitCaughtUp(ctx, ctl, list, budget); err != nil {
		return err
	}
	if err := probe(ctx); err != nil {
		return err
	}
	if err := waitCaughtUp(ctx, ctl, list, budget); err != nil {
		return fmt.Errorf("after the probe: %w", err)
	}
	if w := ctl.LastReconciled().Writes; w > 0 {
		return fmt.Errorf("the reconcile of a change no computation depends on wrote %d time(s)", w)
	}
	return nil
}

// probeConfigMap is a probe (settled): a ConfigMap no profile names,
// created or its annotation counted up.
func probeConfigMap(get func(context.Context, *unstructured.Unstructured) (*unstructured.Unstructured, error),
	create, update func(context.Context, *unstructured.Unstructured) error) func(context.Context) error {
	return func(ctx context.Context) error {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvkConfigMap)
		u.SetNamespace("default")
		u.SetName("gepcheck-fanout-probe")
		got, err := get(ctx, u)
		if err != nil {
			u.SetAnnotations(map[string]string{"gepcheck.dev/probe": "0"})
			return create(ctx, u)
		}
		n, _ := strconv.Atoi(got.GetAnnotations()["gepcheck.dev/probe"])
		got.SetAnnotations(map[string]string{"gepcheck.dev/probe": strconv.Itoa(n + 1)})
		return update(ctx, got)
	}
}

// writesAlways is a broken engine whose every computation differs from
// the last (a counter in each policy's first condition message): the
// controller writes status on every reconcile, its own writes causing
// the next.
func writesAlways() func(*simulator.Model, engine.Semantics) *simulator.Output {
	var n atomic.Int64
	return func(m *simulator.Model, sem engine.Semantics) *simulator.Output {
		out := m.Run(sem, nil)
		k := n.Add(1)
		for i := range out.Policies {
			if cs := out.Policies[i].Conditions; len(cs) > 0 {
				cs[0].Message += fmt.Sprintf(" (computation %d)", k)
			}
		}
		return out
	}
}

// rewritesEffective is a broken engine whose effective policies differ
// on every computation (a counter in their provenance): the controller
// rewrites its EffectivePolicy objects on every reconcile, which no
// reconcile follows (it does not watch them).
func rewritesEffective() func(*simulator.Model, engine.Semantics) *simulator.Output {
	var n atomic.Int64
	return func(m *simulator.Model, sem engine.Semantics) *simulator.Output {
		out := m.Run(sem, nil)
		k := strconv.FormatInt(n.Add(1), 10)
		for i := range out.EffectivePolicies {
			p := maps.Clone(out.EffectivePolicies[i].Provenance)
			if p == nil {
				p = map[string]string{}
			}
			p["computation"] = k
			out.EffectivePolicies[i].Provenance = p
		}
		return out
	}
}

// The conditions the local tests wait for (settled): caught up only once
// a reconcile read every change, and settled only when the reconcile of
// the probe wrote nothing; a controller that rewrites what it writes, or
// whose writes never end, is not.
func TestSettleConditions(t *testing.T) {
	ctx := context.Background()
	world := func(simulate func(*simulator.Model, engine.Semantics) *simulator.Output) (*world, func(context.Context) error) {
		w := newWorld(t, example2Objects(t, "default"), &Controller{Simulate: simulate})
		probe := probeConfigMap(func(ctx context.Context, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
			got := u.DeepCopy()
			return got, w.cl.Get(ctx, client.ObjectKeyFromObject(u), got)
		}, func(ctx context.Context, u *unstructured.Unstructured) error { return w.cl.Create(ctx, u) },
			func(ctx context.Context, u *unstructured.Unstructured) error { return w.cl.Update(ctx, u) })
		// The fake client has no controller loop: the reconcile an
		// event would start is run here.
		return w, func(ctx context.Context) error {
			if err := probe(ctx); err != nil {
				return err
			}
			w.reconcile()
			return nil
		}
	}
	w, probe := world(nil)
	list := clientList(w.cl)
	check := func(when, want string) {
		t.Helper()
		why, err := caughtUp(ctx, w.ctl, list)
		if err != nil {
			t.Fatal(err)
		}
		if (want == "") != (why == "") || !strings.Contains(why, want) {
			t.Errorf("%s: caughtUp says %q, want %q", when, why, want)
		}
	}
	check("before any reconcile", "no reconcile has ended")
	w.reconcile()
	check("after a reconcile that wrote status", "ColorPolicy/default/p1 read at resourceVersion")
	w.reconcile()
	check("after a reconcile of that", "")
	svc := w.get("Service/default/b2")
	svc.SetLabels(map[string]string{"touched": "yes"})
	if err := w.cl.Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	check("after a change not reconciled yet", "Service/default/b2 read at resourceVersion")
	w.reconcile()
	check("after the change is reconciled", "")
	if err := w.cl.Create(ctx, namespace("extra", nil)); err != nil {
		t.Fatal(err)
	}
	check("after a new object", "Namespace/extra not read")
	w.reconcile()
	if err := w.cl.Delete(ctx, w.get("Namespace/extra")); err != nil {
		t.Fatal(err)
	}
	check("after a deletion", "Namespace/extra read, not stored")
	w.reconcile()
	if err := settled(ctx, w.ctl, list, probe, 0); err != nil {
		t.Errorf("the reference controller: %v", err)
	}
	if err := settled(ctx, w.ctl, list, probe, 0); err != nil {
		t.Errorf("the reference controller, probed again: %v", err)
	}

	// Planted faults.
	w, probe = world(writesAlways())
	w.reconcile()
	if err := settled(ctx, w.ctl, clientList(w.cl), probe, 0); err == nil || !strings.Contains(err.Error(), "no reconcile read what is stored") {
		t.Errorf("a controller that always writes status: %v, want never caught up", err)
	}
	w, probe = world(rewritesEffective())
	w.reconcile()
	w.reconcile()
	if err := settled(ctx, w.ctl, clientList(w.cl), probe, 0); err == nil || !strings.Contains(err.Error(), "wrote") {
		t.Errorf("a controller that always rewrites its EffectivePolicies: %v, want a write after the probe", err)
	}
}
