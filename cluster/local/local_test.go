package local_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/gepcheck/gepcheck/cluster/local/localtest"
)

var gatewayClasses = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "gatewayclasses"}

// TestLocalRestartAPIServer: the objects of a local control plane, a
// ConfigMap and a custom resource (a GatewayClass), survive a restart of
// its kube-apiserver; the cluster's client works after it, on the same
// address; and Stop stops the restarted kube-apiserver.
func TestLocalRestartAPIServer(t *testing.T) {
	c := localtest.Start(t, nil)
	ctx := context.Background()
	kube := kubernetes.NewForConfigOrDie(c.Config)
	dyn := dynamic.NewForConfigOrDie(c.Config)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "restart"}}
	if _, err := kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm, err := kube.CoreV1().ConfigMaps("restart").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass",
		"metadata": map[string]any{"name": "restart"},
		"spec":     map[string]any{"controllerName": "gepcheck.dev/restart"},
	}}
	gcBefore, err := dyn.Resource(gatewayClasses).Create(ctx, gc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	host := c.Config.Host

	start := time.Now()
	if err := c.RestartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-apiserver restarted and ready in %s", time.Since(start).Round(time.Millisecond))
	if c.Config.Host != host {
		t.Errorf("the cluster's address moved from %s to %s", host, c.Config.Host)
	}
	// The client made before the restart, unchanged, reads and writes.
	got, err := kube.CoreV1().ConfigMaps("restart").Get(ctx, "before", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("after the restart: %v", err)
	}
	if got.UID != cm.UID || got.Data["k"] != "v" {
		t.Errorf("the ConfigMap came back as uid %s data %v, was uid %s data %v", got.UID, got.Data, cm.UID, cm.Data)
	}
	gcAfter, err := dyn.Resource(gatewayClasses).Get(ctx, "restart", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the GatewayClass after the restart: %v", err)
	}
	if gcAfter.GetUID() != gcBefore.GetUID() {
		t.Errorf("the GatewayClass came back as uid %s, was %s", gcAfter.GetUID(), gcBefore.GetUID())
	}
	if _, err := kube.CoreV1().ConfigMaps("restart").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("a create after the restart: %v", err)
	}

	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	// Not only unready (etcd is gone): nothing listens on its port.
	if conn, err := net.DialTimeout("tcp", strings.TrimPrefix(host, "https://"), 2*time.Second); err == nil {
		conn.Close()
		t.Errorf("%s still accepts connections after Stop: the restarted kube-apiserver was not stopped", host)
	}
	if err := c.RestartAPIServer(ctx); err == nil {
		t.Error("RestartAPIServer after Stop started kube-apiserver again")
	}
}
