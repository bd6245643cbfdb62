package incluster

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/suite/compare"
)

// statusWatch counts the status writes on a case's objects, gepcheck-side
// (docs/faults.md): a watch per kind and namespace of the objects, and a
// write is an event whose status differs from the last seen of that
// object (a new resourceVersion where status changed). The first sight of
// an object is its baseline, not a write. A write that flips a condition
// (its status or reason, per object, ancestor entry and type) is noted
// too, for the stability oracle. A watch that ends (the API server
// restarted) is opened again; what changed meanwhile is counted then.
type statusWatch struct {
	// own is the implementation's controllerName: other controllers'
	// ancestor and parent entries are not its writes' flips.
	own    string
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	want   map[string]bool           // the objects watched, by key
	status map[string]map[string]any // the last status seen, by key
	writes int
	flips  []compare.Difference
	// flipped counts the writes that flipped a condition.
	flipped int
}

// maxFlips bounds the flips a statusWatch keeps (one per object and
// condition; docs/limits.md): the quiet period bounds the writes.
const maxFlips = 64

// watchStatus starts watching the status of objs.
func (r *Runner) watchStatus(ctx context.Context, objs []*unstructured.Unstructured) *statusWatch {
	ctx, cancel := context.WithCancel(ctx)
	w := &statusWatch{own: r.Impl.ControllerName(), cancel: cancel, want: map[string]bool{}, status: map[string]map[string]any{}}
	type scope struct{ gvk, ns string }
	scopes := map[scope]*unstructured.Unstructured{}
	for _, u := range objs {
		if u.GetKind() == "Namespace" {
			continue // the API server's, not the controller's
		}
		w.want[statusKey(u)] = true
		scopes[scope{u.GroupVersionKind().String(), u.GetNamespace()}] = u
	}
	for _, u := range scopes {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			w.follow(ctx, r.Kube, u)
		}()
	}
	return w
}

// follow watches the objects of u's kind in u's namespace until ctx ends,
// opening the watch again whenever it ends.
func (w *statusWatch) follow(ctx context.Context, k *cluster.Kube, u *unstructured.Unstructured) {
	for ctx.Err() == nil {
		res, err := k.Resource(u.GroupVersionKind(), u.GetNamespace())
		var wi watch.Interface
		if err == nil {
			wi, err = res.Watch(ctx, metav1.ListOptions{})
		}
		if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(cluster.Timeouts.Poll):
			}
			continue
		}
		for ev := range wi.ResultChan() {
			if got, ok := ev.Object.(*unstructured.Unstructured); ok && (ev.Type == watch.Added || ev.Type == watch.Modified) {
				w.seen(got)
			}
		}
		wi.Stop()
	}
}

// seen records got's status.
func (w *statusWatch) seen(got *unstructured.Unstructured) {
	key := statusKey(got)
	st, _, _ := unstructured.NestedMap(got.Object, "status")
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.want[key] {
		return
	}
	before, known := w.status[key]
	w.status[key] = st
	if !known || reflect.DeepEqual(before, st) {
		return
	}
	w.writes++
	flips := flipsOf(key, conditionsOf(before, w.own), conditionsOf(st, w.own))
	if len(flips) == 0 {
		return
	}
	w.flipped++
	for _, f := range flips {
		if len(w.flips) < maxFlips && !slices.ContainsFunc(w.flips, func(d compare.Difference) bool { return d.Key() == f.Key() }) {
			w.flips = append(w.flips, f)
		}
	}
}

// stop ends the watches.
func (w *statusWatch) stop() {
	w.cancel()
	w.wg.Wait()
}

// counts returns the writes seen so far, those that flipped a condition,
// and the objects seen at least once.
func (w *statusWatch) counts() (writes, flipped, objects int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writes, w.flipped, len(w.status)
}

// flipped returns a Flapping difference per object and condition flipped.
func (w *statusWatch) flipDiffs() []compare.Difference {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.flips)
}

// statusKey names an object as the observations name refs: Kind/name, or
// Kind/namespace/name.
func statusKey(u *unstructured.Unstructured) string {
	return u.GetKind() + "/" + objName(u)
}

// condKey is a condition of a status: its entry ("" for
// status.conditions, "@Kind/namespace/name" for an ancestor or parent
// entry, "#name" for a listener) and its type.
type condKey struct{ entry, typ string }

// conditionsOf flattens a status into its conditions, "Status/Reason" by
// entry and type: status.conditions, and those of each ancestor entry
// (GEP-713 PolicyAncestorStatus), route parent (RouteParentStatus) and
// listener of the controller own (an entry without controllerName is
// its).
func conditionsOf(st map[string]any, own string) map[condKey]string {
	out := map[condKey]string{}
	add := func(entry string, conds any) {
		cs, _ := conds.([]any)
		for _, c := range cs {
			cm, _ := c.(map[string]any)
			out[condKey{entry, fmt.Sprint(cm["type"])}] = fmt.Sprint(cm["status"], "/", cm["reason"])
		}
	}
	add("", st["conditions"])
	for _, list := range []string{"ancestors", "parents"} {
		entries, _ := st[list].([]any)
		for _, e := range entries {
			em, _ := e.(map[string]any)
			if ctl, ok := em["controllerName"]; ok && ctl != own {
				continue
			}
			ref, _ := em["ancestorRef"].(map[string]any)
			if ref == nil {
				ref, _ = em["parentRef"].(map[string]any)
			}
			add("@"+refText(ref), em["conditions"])
		}
	}
	listeners, _ := st["listeners"].([]any)
	for _, l := range listeners {
		lm, _ := l.(map[string]any)
		add(fmt.Sprint("#", lm["name"]), lm["conditions"])
	}
	return out
}

// refText prints an ancestorRef or parentRef: Kind/namespace/name, and
// #sectionName when it has one.
func refText(ref map[string]any) string {
	s := fmt.Sprint(ref["kind"], "/")
	if ns, ok := ref["namespace"].(string); ok && ns != "" {
		s += ns + "/"
	}
	s += fmt.Sprint(ref["name"])
	if sec, ok := ref["sectionName"].(string); ok && sec != "" {
		s += "#" + sec
	}
	return s
}

// flipsOf are the conditions of object key whose status or reason differ
// between two writes, or that one of them lacks.
func flipsOf(key string, before, after map[condKey]string) []compare.Difference {
	keys := slices.Collect(maps.Keys(before))
	for k := range after {
		if _, ok := before[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b condKey) int { return strings.Compare(a.entry+"\x00"+a.typ, b.entry+"\x00"+b.typ) })
	var out []compare.Difference
	for _, k := range keys {
		if before[k] != after[k] {
			out = append(out, compare.Difference{Kind: compare.Flapping, Ref: key + k.entry, Condition: k.typ, Want: before[k], Got: after[k]})
		}
	}
	return out
}
