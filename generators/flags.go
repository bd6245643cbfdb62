package generators

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/fault"
)

// Flags are gepcheck gen's flags: the scenario to print (PrintOptions),
// or the benchmark workload of docs/performance.md.
type Flags struct {
	PrintOptions
	// WorkloadRoutes, when set, prints the workload with this many
	// HTTPRoutes instead (Workload).
	WorkloadRoutes int
	// faults is --faults as given, read into PrintOptions.Faults by Print.
	faults string
	fs     *pflag.FlagSet
}

// AddFlags adds gen's flags to fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	f.fs = fs
	fs.IntVar(&f.Seed, "seed", 0, "seed of the draw")
	fs.IntVar(&f.WorkloadRoutes, "workload-routes", 0, "print the benchmark workload of docs/performance.md with this many HTTPRoutes instead")
	fs.StringVar(&f.Profile, "profile", "", "policy profile: "+strings.Join(append(slices.Clone(ProfileNames), DrawnProfiles()...), ", ")+" (default: drawn)")
	fs.BoolVar(&f.Generic, "generic", false, "draw a generic DAG of abstract kinds instead of Gateway API objects")
	fs.IntVar(&f.MaxObjects, "max-objects", 0, fmt.Sprintf("most objects (GatewayClasses, Gateways, routes, Services, grants; generic nodes) (default %d)", DefaultMaxObjects))
	fs.IntVar(&f.Steps, "steps", 0, fmt.Sprintf("also draw up to N changes over time (spec.steps: policies deleted, re-created, given another spec or targets; targets deleted and re-created), at most %d", MaxDrawnSteps))
	fs.IntVar(&f.MaxPolicies, "max-policies", 0, fmt.Sprintf("most policies (default %d)", DefaultMaxPolicies))
	fs.StringVar(&f.faults, "faults", "", "also draw the perturbations of these kinds the case is run under in a cluster (spec.faults; docs/faults.md), separated by commas: "+fault.KindNames()+", or all; misop adds steps")
}

// Print prints what the flags ask for to w; flags out of their bounds are
// the user's input (exitcode.Input).
func (f *Flags) Print(w io.Writer) error {
	if f.fs != nil && f.fs.Changed("workload-routes") && (f.WorkloadRoutes < 1 || f.WorkloadRoutes > MaxWorkloadRoutes) {
		return exitcode.Input{Err: fmt.Errorf("--workload-routes %d: from 1 to %d (docs/limits.md)", f.WorkloadRoutes, MaxWorkloadRoutes)}
	}
	if f.WorkloadRoutes > 0 {
		// docs/performance.md: the whole-pipeline workload.
		bw := bufio.NewWriter(w)
		if err := Workload(bw, f.WorkloadRoutes, uint64(f.Seed)); err != nil {
			return err
		}
		return bw.Flush()
	}
	if f.faults != "" {
		kinds, err := fault.ParseKinds(f.faults)
		if err != nil {
			return exitcode.Input{Err: fmt.Errorf("--faults: %w", err)}
		}
		f.Faults = kinds
	}
	data, err := Print(f.PrintOptions)
	if err != nil {
		return exitcode.Input{Err: err}
	}
	_, err = w.Write(data)
	return err
}
