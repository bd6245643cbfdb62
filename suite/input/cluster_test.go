package input

import (
	"os"
	"path/filepath"
	"testing"
)

// The namespace a change's objects without one are applied to is the one
// kubectl apply -f would put them in: -n's, else the kubeconfig context's,
// else default (docs/diff.md, The two states). -A reads every namespace
// but does not move the change to default (kubectl apply has no -A).
func TestApplyNamespace(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user: {token: t}
contexts:
- name: team-a
  context: {cluster: c, user: u, namespace: team-a}
- name: none
  context: {cluster: c, user: u}
current-context: team-a
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		c    Cluster
		want string
	}{
		{"-n", Cluster{Namespace: "team-b", Kubeconfig: kubeconfig}, "team-b"},
		{"context", Cluster{Kubeconfig: kubeconfig}, "team-a"},
		{"-A, context", Cluster{AllNamespaces: true, Kubeconfig: kubeconfig}, "team-a"},
		{"--context without a namespace", Cluster{Kubeconfig: kubeconfig, Context: "none"}, "default"},
		{"-A, --context without a namespace", Cluster{AllNamespaces: true, Kubeconfig: kubeconfig, Context: "none"}, "default"},
	} {
		if got := c.c.ApplyNamespace(); got != c.want {
			t.Errorf("%s: applied to %q, want %q", c.name, got, c.want)
		}
	}
}
