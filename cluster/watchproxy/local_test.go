package watchproxy_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiwatch "k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/gepcheck/gepcheck/cluster/local/localtest"
	"github.com/gepcheck/gepcheck/cluster/watchproxy"
)

// protobuf is a client config as controllers built on client-go's typed
// clients often have: it asks for protobuf, which the proxy turns into
// JSON for watches.
func protobuf(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.ContentType = "application/vnd.kubernetes.protobuf"
	c.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	return c
}

// seen is a ConfigMap event as a watch delivered it.
type seen struct {
	name, rv string
	at       time.Time
}

// watchConfigMaps watches ns's ConfigMaps with kube until the test ends.
func watchConfigMaps(t *testing.T, kube kubernetes.Interface, ns string) <-chan seen {
	t.Helper()
	w, err := kube.CoreV1().ConfigMaps(ns).Watch(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	out := make(chan seen, 100)
	go func() {
		for ev := range w.ResultChan() {
			if cm, ok := ev.Object.(*corev1.ConfigMap); ok && ev.Type == apiwatch.Added {
				out <- seen{cm.Name, cm.ResourceVersion, time.Now()}
			}
		}
	}()
	return out
}

func keys(ss []seen) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.name+"@"+s.rv)
	}
	return out
}

func createConfigMaps(t *testing.T, kube kubernetes.Interface, ns string, n int, gap time.Duration) {
	t.Helper()
	for i := range n {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%02d", i)}}
		if _, err := kube.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(gap)
	}
}

func createNamespace(t *testing.T, kube kubernetes.Interface, name string) {
	t.Helper()
	if _, err := kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestLocalWatchProxy: through the proxy, in a local control plane, a
// watch of a client-go typed client that asks for protobuf gets its
// events later than a direct watch, in the same order; a long schedule
// holds them until Release delivers them all; status writes are counted,
// and only they; and a watch through the proxy goes on after
// kube-apiserver restarts.
func TestLocalWatchProxy(t *testing.T) {
	c := localtest.Start(t, nil)
	p, err := watchproxy.Start(c, func(s string) { t.Log(s) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	direct := kubernetes.NewForConfigOrDie(c.Config)
	proxied := kubernetes.NewForConfigOrDie(protobuf(p.Cluster().Config))

	t.Run("delay", func(t *testing.T) {
		const hold = 1500 * time.Millisecond
		createNamespace(t, direct, "delay")
		want, got := watchConfigMaps(t, direct, "delay"), watchConfigMaps(t, proxied, "delay")
		p.Delay(11, hold)
		defer p.Release()
		createConfigMaps(t, direct, "delay", 12, 30*time.Millisecond)
		w, g := collect(t, want, 12, 10*time.Second), collect(t, got, 12, 10*time.Second)
		if !slices.Equal(keys(g), keys(w)) {
			t.Fatalf("through the proxy %v, directly %v", keys(g), keys(w))
		}
		var longest time.Duration
		for i := range w {
			lag := g[i].at.Sub(w[i].at)
			longest = max(longest, lag)
			if lag > hold+slack {
				t.Errorf("%s: %s later through the proxy; a hold is at most %s", g[i].name, lag, hold)
			}
		}
		if longest < 200*time.Millisecond {
			t.Errorf("no event came 200ms later through the proxy (at most %s later): not delayed", longest)
		}
	})

	t.Run("release", func(t *testing.T) {
		createNamespace(t, direct, "release")
		got := watchConfigMaps(t, proxied, "release")
		p.Delay(12, time.Hour)
		createConfigMaps(t, direct, "release", 3, 0)
		select {
		case s := <-got:
			t.Fatalf("%s came at once under a schedule of up to an hour", s.name)
		case <-time.After(500 * time.Millisecond):
		}
		p.Release()
		if g := collect(t, got, 3, 2*time.Second); !slices.Equal([]string{g[0].name, g[1].name, g[2].name}, []string{"cm-00", "cm-01", "cm-02"}) {
			t.Errorf("released %v", keys(g))
		}
	})

	t.Run("status writes", func(t *testing.T) {
		statusWrites(t, dynamic.NewForConfigOrDie(c.Config), dynamic.NewForConfigOrDie(p.Cluster().Config), p)
	})

	t.Run("apiserver restart", func(t *testing.T) {
		createNamespace(t, direct, "restart")
		factory := informers.NewSharedInformerFactoryWithOptions(proxied, 0, informers.WithNamespace("restart"))
		inf := factory.Core().V1().ConfigMaps().Informer()
		stop := make(chan struct{})
		defer close(stop)
		factory.Start(stop)
		if !cache.WaitForCacheSync(stop, inf.HasSynced) {
			t.Fatal("the informer through the proxy did not sync")
		}
		if err := c.RestartAPIServer(context.Background()); err != nil {
			t.Fatal(err)
		}
		createConfigMaps(t, direct, "restart", 1, 0)
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if _, ok, _ := inf.GetStore().GetByKey("restart/cm-00"); ok {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Error("the informer through the proxy did not see a ConfigMap created after kube-apiserver restarted")
	})
}

var gatewayClasses = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gatewayclasses"}

// statusWrites: a GatewayClass's status written through the proxy twice
// counts 2; its spec updated, a status write refused (a stale
// resourceVersion) and one made directly count nothing.
func statusWrites(t *testing.T, direct, proxied dynamic.Interface, p *watchproxy.Proxy) {
	ctx := context.Background()
	gc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass",
		"metadata": map[string]any{"name": "writes"},
		"spec":     map[string]any{"controllerName": "gepcheck.dev/writes"},
	}}
	before := p.Writes()
	obj, err := proxied.Resource(gatewayClasses).Create(ctx, gc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	setStatus := func(client dynamic.Interface, o *unstructured.Unstructured, reason string) (*unstructured.Unstructured, error) {
		o = o.DeepCopy()
		_ = unstructured.SetNestedSlice(o.Object, []any{map[string]any{
			"type": "Accepted", "status": "True", "reason": reason, "message": "",
			"lastTransitionTime": "2026-11-28T00:00:00Z", "observedGeneration": int64(1),
		}}, "status", "conditions")
		return client.Resource(gatewayClasses).UpdateStatus(ctx, o, metav1.UpdateOptions{})
	}
	stale := obj
	if obj, err = setStatus(proxied, obj, "Accepted"); err != nil {
		t.Fatal(err)
	}
	if obj, err = setStatus(proxied, obj, "Accepted"); err != nil {
		t.Fatal(err)
	}
	if _, err := setStatus(proxied, stale, "Stale"); err == nil {
		t.Fatal("a status write with a stale resourceVersion was accepted")
	}
	if obj, err = setStatus(direct, obj, "Direct"); err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(obj.Object, "a GatewayClass", "spec", "description")
	if _, err := proxied.Resource(gatewayClasses).Update(ctx, obj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := p.Writes() - before; got != 2 {
		t.Errorf("%d status writes counted, want 2", got)
	}
}
