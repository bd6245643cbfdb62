package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/cluster"
	"github.com/gepcheck/gepcheck/cluster/local/localtest"
	"github.com/gepcheck/gepcheck/impl/envoygateway"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/internal/realtest"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// TestLocalFromCluster: the README's --from-cluster lines, against a local
// control plane holding docs/examples/diff/before.yaml. diff --from-cluster
// -f docs/examples/diff/change/ gives the change GEP-713 says (Conflict
// resolution rule 1: the route policy rp, attached lower, is the
// challenger; Atomic defaults: it beats gp's default, which is then
// Overridden), and --fail-on overridden exits 1; simulate and explain read
// the cluster too. make ci runs it, beside cluster/local/localtest's
// TestLocalDiff.
func TestLocalFromCluster(t *testing.T) {
	// BackendTrafficPolicy served as v1alpha1 only, as Envoy Gateway's
	// CRD serves it (gepcheck's built-in copy checks the version read).
	btp := cluster.OpenCRD("gateway.envoyproxy.io", "BackendTrafficPolicy", "Namespaced", "v1alpha1")
	spec := btp.Object["spec"].(map[string]any)
	spec["versions"] = spec["versions"].([]any)[:1]
	c := localtest.Start(t, []*unstructured.Unstructured{cluster.OpenCRD("policies.controller.io", "ColorPolicy", "Namespaced", "v1"), btp})
	kube, err := cluster.NewKube(c)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := load.Read([]string{"../../docs/examples/diff/before.yaml", "../../docs/examples/envoy-gateway-merge.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	shop := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "shop"}}}
	if r, err := kube.Resource(shop.GroupVersionKind(), ""); err != nil {
		t.Fatal(err)
	} else if _, err := r.Create(context.Background(), shop, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		u := &unstructured.Unstructured{Object: d.Raw}
		ns := d.Namespace
		if ns == "" && d.Kind != "GatewayClass" {
			ns = "default"
		}
		r, err := kube.Resource(u.GroupVersionKind(), ns)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Create(context.Background(), u, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	gepcheck := func(want int, args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args = append(args, "--from-cluster", "--kubeconfig", c.Kubeconfig, "--profile", "color-inherited")
		if code := run(args, strings.NewReader(""), &stdout, &stderr); code != want {
			t.Fatalf("%v: exit %d, want %d: %s", args, code, want, stderr.String())
		}
		return stdout.String()
	}
	var d simulator.StateDiff
	if err := json.Unmarshal([]byte(gepcheck(exitcode.Failed, "diff", "-f", "../../docs/examples/diff/change/", "-o", "json", "--fail-on", "overridden")), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Fields) != 1 || d.Fields[0].Field != "color" || d.Fields[0].Before != "red" || d.Fields[0].After != "blue" ||
		d.Fields[0].BeforeFrom != "ColorPolicy/default/gp" || d.Fields[0].AfterFrom != "ColorPolicy/default/rp" {
		t.Errorf("fields: %+v", d.Fields)
	}
	found := false
	for _, f := range d.Conditions {
		if f.Object == "ColorPolicy/default/gp" && f.Entry == "policy" && f.Type == "Programmed" && f.After != nil && f.After.Reason == "Overridden" {
			found = true
		}
	}
	if !found {
		t.Errorf("gp's Programmed does not flip to Overridden: %+v", d.Conditions)
	}
	// diff --delete: gp deleted as kubectl delete -f deletes it; its red
	// is gone from the path (docs/diff.md, Deleting objects); an object
	// not in the cluster is exit 2 naming the file.
	d = simulator.StateDiff{}
	if err := json.Unmarshal([]byte(gepcheck(exitcode.OK, "diff", "--delete", "../../docs/examples/diff/remove/", "-o", "json")), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Fields) != 1 || d.Fields[0].Field != "color" || d.Fields[0].Before != "red" || d.Fields[0].AfterSet || d.Fields[0].BeforeFrom != "ColorPolicy/default/gp" {
		t.Errorf("diff --delete remove/: fields %+v", d.Fields)
	}
	gepcheck(exitcode.BadInput, "diff", "--delete", "../../docs/examples/diff/change/")
	if out := gepcheck(exitcode.OK, "simulate", "-A"); !strings.Contains(out, `{"color":"red"}`) {
		t.Errorf("simulate --from-cluster -A:\n%s", out)
	}
	if out := gepcheck(exitcode.OK, "simulate", "-n", "default", "-f", "../../docs/examples/diff/change/"); !strings.Contains(out, `{"color":"blue"}`) {
		t.Errorf("simulate --from-cluster -f change/:\n%s", out)
	}
	if out := gepcheck(exitcode.OK, "explain", "--target", "Service/default/b1"); !strings.Contains(out, "ColorPolicy/default/gp") {
		t.Errorf("explain --from-cluster:\n%s", out)
	}
	// Another namespace holds none of it.
	gepcheck(exitcode.BadInput, "simulate", "-n", "kube-system")
	// simulate --impl reads the cluster as simulate does (one input
	// path), the change applied over it.
	if out := gepcheck(exitcode.OK, "simulate", "--impl", "reference", "-n", "default", "-f", "../../docs/examples/diff/change/"); !strings.Contains(out, `{"color":"blue"}  {"color":"blue"}  =`) {
		t.Errorf("simulate --impl reference --from-cluster -f change/:\n%s", out)
	}
	// Envoy Gateway's translator, offline, on what was read from the
	// cluster (namespace shop): it merges the rule policy onto the
	// Gateway's (docs/envoy-gateway.md, Findings, 2), timeout 2s with 3
	// retries on the rule pay.
	if bin, err := envoygateway.EgctlPath(envoygateway.Version, envoygateway.EgctlFast); err != nil || !fileExists(bin) {
		realtest.Missing(t, "egctl %s is not cached (run make egctl)", envoygateway.Version)
		return
	}
	// The cluster holds diff's class "example" of another controller
	// beside Envoy Gateway's "eg": egctl is given "eg" only
	// (TestEgctlInputOtherControllersClass).
	var stdout, stderr bytes.Buffer
	// The README's line, as JSON: the ancestor entries overridden.
	args := []string{"simulate", "--impl", "envoy-gateway", "--from-cluster", "--kubeconfig", c.Kubeconfig, "-n", "shop", "--ancestor-entries", "listener", "-o", "json"}
	if code := run(args, strings.NewReader(""), &stdout, &stderr); code != exitcode.OK {
		t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
	}
	var res struct {
		Overridden []struct {
			Flag    string `json:"flag"`
			Claimed string `json:"claimed"`
			Used    string `json:"used"`
		} `json:"overridden"`
		Observed struct {
			Effective []struct {
				Path []string       `json:"path"`
				Spec map[string]any `json:"spec"`
			} `json:"effective"`
		} `json:"observed"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	merged := false
	for _, p := range res.Observed.Effective {
		b, _ := json.Marshal(p.Spec)
		if strings.Contains(strings.Join(p.Path, " "), "HTTPRoute/shop/checkout#pay") && strings.Contains(string(b), `"requestTimeout":"2s"`) && strings.Contains(string(b), `"numRetries":3`) {
			merged = true
		}
	}
	if len(res.Overridden) != 1 || res.Overridden[0].Flag != "--ancestor-entries" || res.Overridden[0].Claimed != "gateway" || res.Overridden[0].Used != "listener" {
		t.Errorf("simulate --impl envoy-gateway --ancestor-entries listener: overridden %+v", res.Overridden)
	}
	if !merged {
		t.Errorf("simulate --impl envoy-gateway --from-cluster: no merged timeout 2s and 3 retries on checkout#pay:\n%s", stdout.String())
	}
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}
