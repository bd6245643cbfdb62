package gotool

import "testing"

func TestExeName(t *testing.T) {
	for pkg, want := range map[string]string{
		"go.etcd.io/etcd/server/v3":                       "server",
		"k8s.io/kubernetes/cmd/kube-apiserver":            "kube-apiserver",
		"github.com/envoyproxy/gateway/cmd/envoy-gateway": "envoy-gateway",
		"example.com/v2tool":                              "v2tool",
	} {
		if got := exeName(pkg); got != want {
			t.Errorf("exeName(%s) = %s, want %s", pkg, got, want)
		}
	}
}

// TestBatchOf checks what one go build builds: the tool asked for, even
// when it is not one of All (an implementation's controller; a cold cache
// once built nothing for it), and the unbuilt tools of its module.
func TestBatchOf(t *testing.T) {
	t.Setenv("GEPCHECK_CACHE", t.TempDir())
	controller := Tool{Name: "envoy-gateway", Module: "github.com/envoyproxy/gateway", Version: "v1.9.1", Package: "github.com/envoyproxy/gateway/cmd/envoy-gateway"}
	if got := batchOf(controller); len(got) != 1 || got[0] != controller {
		t.Errorf("batchOf(envoy-gateway) = %v, want only it", got)
	}
	got := batchOf(Kubectl)
	names := map[string]bool{}
	for _, o := range got {
		names[o.Name] = true
	}
	if got[0] != Kubectl || len(got) != 3 || !names["kube-apiserver"] || !names["kube-controller-manager"] {
		t.Errorf("batchOf(kubectl) = %v, want kubectl, kube-apiserver, kube-controller-manager", got)
	}
}
