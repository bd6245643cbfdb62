package runner

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/fault"
)

// --faults and --quiet-period are validated into exit 2 naming the flag;
// apiserver and delay need the local control plane (docs/faults.md).
func TestFaultFlags(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		provider string
		err      string // "" valid
		kinds    []fault.Kind
	}{
		{nil, "", "", nil},
		{[]string{"--faults", "restart,burst"}, "kind", "", []fault.Kind{fault.Restart, fault.Burst}},
		{[]string{"--faults", "all"}, "local", "", fault.Kinds},
		{[]string{"--faults", "restart,crash"}, "local", `--faults: "crash" is not a kind of fault`, nil},
		{[]string{"--faults", "burst,apiserver"}, "kubeconfig", "--faults burst,apiserver: apiserver needs --cluster local", nil},
		{[]string{"--faults", "delay"}, "kind", "delay needs --cluster local", nil},
		{[]string{"--faults", "burst"}, "", "--faults burst needs --cluster", nil},
		{[]string{"--quiet-period", "0s"}, "local", "--quiet-period 0s: must be more than 0", nil},
	} {
		var f FaultFlags
		fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
		f.AddFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		err := f.Validate(tc.provider)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%q on %q: %v", tc.args, tc.provider, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || exitcode.Of(err) != exitcode.BadInput):
			t.Errorf("%q on %q: error %v (exit %d), want exit 2 with %q", tc.args, tc.provider, err, exitcode.Of(err), tc.err)
		case tc.err == "" && !slices.Equal(f.Kinds, tc.kinds):
			t.Errorf("%q: kinds %q, want %q", tc.args, f.Kinds, tc.kinds)
		}
	}
}

// A replay repeats --faults and a --quiet-period that is not the default,
// and nothing for a run without them.
func TestFaultReplayFlags(t *testing.T) {
	f := FaultFlags{Kinds: []fault.Kind{fault.Restart, fault.Ties}, quiet: 5 * time.Second}
	if got, want := f.ReplayFlags(), []string{"--faults", "restart,ties", "--quiet-period", "5s"}; !slices.Equal(got, want) {
		t.Errorf("ReplayFlags %q, want %q", got, want)
	}
	var none FaultFlags
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	none.AddFlags(fs)
	if got := none.ReplayFlags(); len(got) != 0 {
		t.Errorf("defaults replayed as %q", got)
	}
}
