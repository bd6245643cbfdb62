package input

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator"
)

const abstract = "../../scenarios/gep-713/abstract-process.yaml"

// Completion reads each file once, never standard input, and keeps the
// references that start with the prefix in any case.
func TestRefs(t *testing.T) {
	all := Refs([]string{abstract, "-", abstract}, nil, true, "")
	if want := []string{"P/default/p1", "P/default/p2"}; !slices.Equal(all, want) {
		t.Errorf("Refs(policies) = %v, want %v", all, want)
	}
	if got := Refs([]string{abstract}, nil, false, "b/"); !slices.Equal(got, []string{"B/b1", "B/b2"}) {
		t.Errorf("Refs(targets, b/) = %v, want B/b1 B/b2", got)
	}
	if got := Refs([]string{"-"}, nil, true, ""); got != nil {
		t.Errorf("Refs(-) = %v, want nothing: standard input is the shell's", got)
	}
	if got := Refs([]string{"no-such-file.yaml"}, nil, true, ""); got != nil {
		t.Errorf("Refs of a missing file = %v, want nothing", got)
	}
}

// Two scenario files are check's input, and the error says so; one is
// simulated.
func TestScenariosHint(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.yaml", "b.yaml"} {
		b, err := os.ReadFile(abstract)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if h := scenariosHint([]string{dir}, simulator.Options{}.Limits.OrDefault()); !strings.Contains(h, "2 scenario files") || !strings.Contains(h, "gepcheck check "+dir) {
		t.Errorf("scenariosHint(two files) = %q, want it to name both and gepcheck check", h)
	}
	if h := scenariosHint([]string{abstract}, simulator.Options{}.Limits.OrDefault()); h != "" {
		t.Errorf("scenariosHint(one file) = %q, want none", h)
	}
}

// diff's arguments: OLD and NEW, or the cluster and a change; each
// mistake is the user's (Error), found before anything is read.
func TestPairArguments(t *testing.T) {
	live := &Cluster{Kubeconfig: filepath.Join(t.TempDir(), "none")}
	for _, c := range []struct {
		name          string
		s             Source
		args, deletes []string
		want          string
	}{
		{"one file", Source{}, []string{"a"}, nil, "pass OLD and NEW"},
		{"-f without --from-cluster", Source{Files: []string{"a"}}, []string{"a", "b"}, nil, "pass OLD and NEW"},
		{"both stdin", Source{}, []string{"-", "-"}, nil, "cannot both be -"},
		{"--delete without --from-cluster", Source{}, []string{"a", "b"}, []string{"x"}, "--delete deletes from the cluster's state"},
		{"no change", Source{Cluster: live}, nil, nil, "with --from-cluster, pass the change"},
		{"OLD NEW with a cluster", Source{Cluster: live, Files: []string{"a"}}, []string{"a", "b"}, nil, "with --from-cluster, pass the change"},
		{"stdin twice", Source{Cluster: live, Files: []string{"-"}}, nil, []string{"-"}, "--delete - and -f -"},
	} {
		_, _, err := c.s.Pair(c.args, c.deletes, simulator.Options{})
		if !errors.As(err, new(exitcode.Input)) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Pair = %v, want an exitcode.Input saying %q", c.name, err, c.want)
		}
	}
}

// --target and --policy read references as kubectl does; an error names
// the flag, and a policy has no section.
func TestTargetAndPolicy(t *testing.T) {
	m, err := simulator.LoadFiles([]string{abstract}, nil, simulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := Policy("p/p1", "default", m); err != nil || r.String() != "P/default/p1" {
		t.Errorf("Policy(p/p1 -n default) = %v, %v, want P/default/p1", r, err)
	}
	if _, err := Policy("P/default/p1#s", "", m); !errors.As(err, new(exitcode.Input)) || !strings.Contains(err.Error(), "--policy: \"P/default/p1#s\": a policy has no section") {
		t.Errorf("Policy with a section = %v, want the flag's error", err)
	}
	if _, err := Target("x", "", m); !errors.As(err, new(exitcode.Input)) || !strings.HasPrefix(err.Error(), "--target: ") {
		t.Errorf("Target(x) = %v, want an Error naming --target", err)
	}
}
