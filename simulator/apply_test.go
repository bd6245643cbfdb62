package simulator

import (
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/load"
)

// Apply is kubectl apply's result: a replaced object keeps its stored
// creationTimestamp, a new one is newer than every stored one (and a time
// it writes is not kept), a namespaced one without a namespace goes to the
// namespace given, nothing is deleted (docs/diff.md).
func TestApply(t *testing.T) {
	read := func(name, text string) []*load.Doc {
		docs, err := load.ReadBytes(name, []byte(text), load.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return docs
	}
	base := read("cluster", `apiVersion: v1
kind: Service
metadata: {name: b1, namespace: team-a, creationTimestamp: "2025-03-01T00:00:00Z"}
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p1, namespace: team-a, creationTimestamp: "2025-03-02T00:00:00Z"}
spec: {color: red}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: c, creationTimestamp: "2025-03-01T00:00:00Z"}
spec: {controllerName: example.com/c}
`)
	change := read("change.yaml", `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p1}
spec: {color: blue}
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p2, creationTimestamp: "2020-01-01T00:00:00Z"}
spec: {color: green}
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p1, namespace: team-b}
spec: {color: yellow}
`)
	got := Apply(base, change, "team-a")
	var lines []string
	for _, d := range got {
		ts, _ := writtenTime(d.Raw)
		spec, _ := d.Raw["spec"].(map[string]any)
		lines = append(lines, d.Kind+"/"+d.Namespace+"/"+d.Name+" "+ts.Format("2006-01-02T15:04:05Z")+" "+compact(spec["color"]))
	}
	want := []string{
		`Service/team-a/b1 2025-03-01T00:00:00Z null`,
		`ColorPolicy/team-a/p1 2025-03-02T00:00:00Z "blue"`,
		`GatewayClass//c 2025-03-01T00:00:00Z null`,
		`ColorPolicy/team-a/p2 2025-03-02T00:00:01Z "green"`,
		`ColorPolicy/team-b/p1 2025-03-02T00:00:01Z "yellow"`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	// The base is left as it was.
	if spec := base[1].Raw["spec"].(map[string]any); spec["color"] != "red" {
		t.Errorf("the base changed: %v", spec)
	}
}

// Delete is kubectl delete -f's result: the objects named (kind,
// namespace, name; a namespaced one without a namespace in the namespace
// given) are gone, the rest kept in order; one not there is an error
// naming the file, document and line; deleted then applied again, an
// object is created anew, newer than every other (docs/diff.md, Deleting
// objects).
func TestDelete(t *testing.T) {
	read := func(name, text string) []*load.Doc {
		docs, err := load.ReadBytes(name, []byte(text), load.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return docs
	}
	base := read("cluster", `apiVersion: v1
kind: Service
metadata: {name: b1, namespace: team-a, creationTimestamp: "2025-03-01T00:00:00Z"}
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p1, namespace: team-a, creationTimestamp: "2025-03-02T00:00:00Z"}
spec: {color: red}
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p1, namespace: team-b, creationTimestamp: "2025-03-01T00:00:00Z"}
spec: {color: yellow}
`)
	gone := read("gone.yaml", `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p1}
spec: {color: anything}
`)
	got, err := Delete(base, gone, "team-a")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range got {
		names = append(names, d.Kind+"/"+d.Namespace+"/"+d.Name)
	}
	if strings.Join(names, " ") != "Service/team-a/b1 ColorPolicy/team-b/p1" {
		t.Errorf("after deleting p1 of team-a: %v", names)
	}
	again := Apply(got, gone, "team-a")
	ts, _ := writtenTime(again[len(again)-1].Raw)
	if d := again[len(again)-1]; d.Namespace != "team-a" || d.Name != "p1" || ts.Format("2006-01-02T15:04:05Z") != "2025-03-01T00:00:01Z" {
		t.Errorf("p1 applied again: %s/%s at %v, want team-a/p1 created after team-b/p1 (2025-03-01T00:00:01Z)", d.Namespace, d.Name, ts)
	}
	missing := read("gone.yaml", `apiVersion: v1
kind: Service
metadata: {name: b1, namespace: team-a}
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: nosuch, namespace: team-a}
`)
	_, err = Delete(base, missing, "team-a")
	if err == nil || !strings.Contains(err.Error(), "gone.yaml: document 2 (line 5): ColorPolicy team-a/nosuch: to delete, but not in the state") || strings.Contains(err.Error(), "b1") {
		t.Errorf("deleting an object not there: %v, want the error naming gone.yaml document 2 only", err)
	}
	// A cluster-scoped object's metadata.namespace is ignored, as kubectl
	// ignores it: the GatewayClass is found and deleted.
	classes := read("cluster", "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec: {controllerName: x}\n")
	got, err = Delete(classes, read("gone.yaml", "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg, namespace: team-a}\n"), "team-a")
	if err != nil || len(got) != 0 {
		t.Errorf("deleting a GatewayClass written with a namespace: %v, %d left, want it deleted", err, len(got))
	}
	// Covered asks about each deletion where Delete places it: a
	// namespaced object without a namespace in namespace, a cluster-scoped
	// one in none; what the read left out (here apps) is unread.
	var asked []string
	in, unread := Covered(read("gone.yaml", `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg, namespace: team-a}
---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p1}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app}
`), "team-a", func(group, kind, ns string) bool {
		asked = append(asked, kind+"@"+ns)
		return group != "apps"
	})
	if strings.Join(asked, " ") != "GatewayClass@ ColorPolicy@team-a Deployment@team-a" || len(in) != 2 || len(unread) != 1 || unread[0].Kind != "Deployment" {
		t.Errorf("Covered asked %v, read %d, unread %v", asked, len(in), unread)
	}
}
