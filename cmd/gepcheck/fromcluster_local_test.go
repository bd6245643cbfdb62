package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite/cluster"
	"github.com/gepcheck/gepcheck/suite/cluster/local/localtest"
)

// TestLocalFromCluster: the README's --from-cluster lines, against a local
// control plane holding docs/examples/diff/before.yaml. diff --from-cluster
// -f docs/examples/diff/change/ gives the change GEP-713 says (Conflict
// resolution rule 1: the route policy rp, attached lower, is the
// challenger; Atomic defaults: it beats gp's default, which is then
// Overridden), and --fail-on overridden exits 1; simulate and explain read
// the cluster too. make ci runs it, beside suite/cluster/local/localtest's
// TestLocalDiff.
func TestLocalFromCluster(t *testing.T) {
	c := localtest.Start(t, []*unstructured.Unstructured{cluster.OpenCRD("policies.controller.io", "ColorPolicy", "Namespaced", "v1")})
	kube, err := cluster.NewKube(c)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := load.Read([]string{"../../docs/examples/diff/before.yaml"}, nil)
	if err != nil {
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
	if err := json.Unmarshal([]byte(gepcheck(exitFailed, "diff", "-f", "../../docs/examples/diff/change/", "-o", "json", "--fail-on", "overridden")), &d); err != nil {
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
	if out := gepcheck(exitOK, "simulate", "-A"); !strings.Contains(out, `{"color":"red"}`) {
		t.Errorf("simulate --from-cluster -A:\n%s", out)
	}
	if out := gepcheck(exitOK, "simulate", "-n", "default", "-f", "../../docs/examples/diff/change/"); !strings.Contains(out, `{"color":"blue"}`) {
		t.Errorf("simulate --from-cluster -f change/:\n%s", out)
	}
	if out := gepcheck(exitOK, "explain", "--target", "Service/default/b1"); !strings.Contains(out, "ColorPolicy/default/gp") {
		t.Errorf("explain --from-cluster:\n%s", out)
	}
	// Another namespace holds none of it.
	gepcheck(exitBadInput, "simulate", "-n", "kube-system")
}
