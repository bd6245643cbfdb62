package admission

import (
	"context"
	"flag"
	"os"
	"testing"

	"k8s.io/client-go/discovery"

	"github.com/gepcheck/gepcheck/cluster/local"
	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/internal/realtest"
)

var update = flag.Bool("update", false, "rewrite kube-apiserver.json from a local control plane's discovery")

// The built-in snapshot is what the kube-apiserver gepcheck builds
// serves: its discovery, read from one running (make ci; -update rewrites
// the snapshot).
func TestLocalResources(t *testing.T) {
	for _, tool := range []gotool.Tool{gotool.Etcd, gotool.KubeAPIServer, gotool.KubeControllerManager} {
		if p, _ := tool.Path(); !exists(p) {
			realtest.Missing(t, "%s is not built (make tools)", tool.Name)
		}
	}
	c, err := local.Start(context.Background(), local.Options{Log: func(s string) { t.Log(s) }})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Stop() }()
	dc, err := discovery.NewDiscoveryClientForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	got := FromDiscovery("kube-apiserver "+gotool.KubernetesVersion, lists)
	data := got.JSON()
	if *update {
		if err := os.WriteFile("kube-apiserver.json", data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(data) != string(builtin) {
		t.Errorf("kube-apiserver.json is not what kube-apiserver %s serves: go test -run TestLocalResources ./admission -update", gotool.KubernetesVersion)
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
