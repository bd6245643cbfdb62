package runner

import (
	"fmt"
	"slices"
	"time"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/fault"
	"github.com/gepcheck/gepcheck/suite/incluster"
)

// FaultFlags are run's flags of perturbed runs (docs/faults.md): the
// kinds of fault the random cases are drawn with, and the stability
// oracle's quiet period.
type FaultFlags struct {
	faults string
	quiet  time.Duration
	// Kinds are --faults, read by Validate.
	Kinds []fault.Kind
}

// AddFlags adds --faults and --quiet-period to fs.
func (f *FaultFlags) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.faults, "faults", "", "in a cluster, draw the random scenarios' perturbations of these kinds, separated by commas, or all: "+fault.KindNames()+" (apiserver and delay need --cluster local; docs/faults.md)")
	fs.DurationVar(&f.quiet, "quiet-period", incluster.DefaultQuiet, "in a cluster, how long the stability oracle watches a scenario with faults after its last change; a condition flipped meanwhile is a finding (flapping; docs/faults.md)")
}

// needsLocal are the kinds of fault only the local control plane can
// make: gepcheck runs its API server, and the controller's watches pass
// through gepcheck's proxy.
var needsLocal = []fault.Kind{fault.APIServer, fault.Delay}

// Validate reads --faults and checks --quiet-period against the cluster
// provider (exitcode.Input naming the flag).
func (f *FaultFlags) Validate(provider string) error {
	if f.quiet <= 0 {
		return exitcode.Input{Err: fmt.Errorf("--quiet-period %s: must be more than 0", f.quiet)}
	}
	if f.faults == "" {
		return nil
	}
	kinds, err := fault.ParseKinds(f.faults)
	if err != nil {
		return exitcode.Input{Err: fmt.Errorf("--faults: %w", err)}
	}
	if provider == "" {
		return exitcode.Input{Err: fmt.Errorf("--faults %s needs --cluster: faults perturb a controller in a cluster (docs/faults.md)", f.faults)}
	}
	for _, k := range kinds {
		if slices.Contains(needsLocal, k) && provider != "local" {
			return exitcode.Input{Err: fmt.Errorf("--faults %s: %s needs --cluster local, not %s (docs/faults.md)", f.faults, k, provider)}
		}
	}
	f.Kinds = kinds
	return nil
}

// ReplayFlags are --faults and --quiet-period as a replay repeats them:
// each only when it differs from its default.
func (f *FaultFlags) ReplayFlags() []string {
	var out []string
	if len(f.Kinds) > 0 {
		out = append(out, "--faults", fault.Flag(f.Kinds))
	}
	return append(out, QuietFlag(f.quiet)...)
}

// QuietFlag is --quiet-period for a replay, when not the default.
func QuietFlag(d time.Duration) []string {
	if d == 0 || d == incluster.DefaultQuiet {
		return nil
	}
	return []string{"--quiet-period", d.String()}
}
