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
