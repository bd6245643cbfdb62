package input

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/render"
)

// command is a command with Flags, its arguments parsed and its PreRunE
// run (the cluster flags' check); err is PreRunE's.
func command(t *testing.T, refs bool, args ...string) (*Flags, error) {
	t.Helper()
	var c Flags
	cmd := &cobra.Command{Use: "simulate", RunE: func(*cobra.Command, []string) error { return nil }}
	c.AddFlags(cmd)
	c.Cluster.Refs = refs
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	return &c, cmd.PreRunE(cmd, nil)
}

// Each wrong value is bad input (exit 2) that names its flag.
func TestFlagsOptionsNameTheFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		flag string // what the error starts with
	}{
		{[]string{"--semantics", "nope"}, "--semantics: "},
		{[]string{"--status-vocabulary", "nope"}, "--status-vocabulary: "},
		{[]string{"--ancestor-entries", "nope"}, "--ancestor-entries: "},
		{[]string{"--field-validation", "nope"}, "--field-validation: "},
		{[]string{"-o", "nope"}, `--output "nope": one of table, `},
		{[]string{"--max-documents", "0"}, "--max-bytes, --max-documents, "},
	} {
		c, err := command(t, false, tc.args...)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = c.Options(render.Formats)
		if exitcode.Of(err) != exitcode.BadInput || !strings.HasPrefix(err.Error(), tc.flag) {
			t.Errorf("%v: Options = %v (exit %d), want bad input starting %q", tc.args, err, exitcode.Of(err), tc.flag)
		}
	}
	c, err := command(t, false, "-o", "wide", "--no-headers", "--semantics", "gep713")
	if err != nil {
		t.Fatal(err)
	}
	if _, sem, err := c.Options(render.Formats); err != nil || sem != "gep-713" {
		t.Errorf("Options = %q, %v, want gep-713 (its older spelling read)", sem, err)
	}
	if o := c.TableOptions(); !o.Wide || !o.NoHeaders {
		t.Errorf("TableOptions = %+v, want wide without headers", o)
	}
}

// The cluster flags need --from-cluster, but -n where it is a reference's
// namespace (explain); -n and -A exclude each other.
func TestClusterFlagsNeedFromCluster(t *testing.T) {
	for _, tc := range []struct {
		refs bool
		args []string
		want string // "": no error
	}{
		{false, []string{"--kubeconfig", "k"}, "--kubeconfig reads a cluster: pass --from-cluster too"},
		{false, []string{"-n", "ns"}, "--namespace reads a cluster: pass --from-cluster too"},
		{true, []string{"-n", "ns"}, ""},
		{true, []string{"-A"}, "--all-namespaces reads a cluster: pass --from-cluster too"},
		{false, []string{"--from-cluster", "-n", "ns", "-A"}, "pass one of -n and -A"},
		{false, []string{"--from-cluster", "-n", "ns"}, ""},
	} {
		c, err := command(t, tc.refs, tc.args...)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v, want none", tc.args, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want || exitcode.Of(err) != exitcode.BadInput):
			t.Errorf("%v: %v, want bad input %q", tc.args, err, tc.want)
		}
		if tc.want == "" && tc.refs && c.Cluster.RefNamespace() != "ns" {
			t.Errorf("%v: RefNamespace = %q, want ns", tc.args, c.Cluster.RefNamespace())
		}
		if got := c.Source(nil).Cluster != nil; got != c.Cluster.on {
			t.Errorf("%v: Source reads a cluster: %v, want %v", tc.args, got, c.Cluster.on)
		}
	}
}
