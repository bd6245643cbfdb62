// Package fault names the perturbations a case may be run under in a
// cluster (docs/faults.md): the controller killed and started again, the
// API server restarted, a state applied in a burst, the controller's
// watch events delayed, policies sharing a creation second, and
// misoperations in the history. A fault is data of the case, in its
// Scenario document (spec.faults), so that a kept finding replays with
// the perturbations that produced it. The reference engine ignores them:
// a perturbation changes how a controller gets to the final objects, never
// what the specs say of them.
package fault

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Kind is a kind of perturbation, as --faults names it.
type Kind string

const (
	// Restart: the implementation's controller is killed (SIGKILL) and
	// started again on what the cluster then holds.
	Restart Kind = "restart"
	// APIServer: kube-apiserver is stopped and started again with the
	// same etcd, which keeps the objects (the local control plane).
	APIServer Kind = "apiserver"
	// Burst: the state's objects are applied with no wait between them,
	// so that the controller's events coalesce.
	Burst Kind = "burst"
	// Delay: the controller's watch events pass through a proxy on
	// loopback that holds them by a seeded schedule, each watch stream on
	// its own, so that streams deliver out of step with each other.
	Delay Kind = "delay"
	// Ties: the state's new policies are created within one second, in
	// an order drawn from Seed: GEP-713, Conflict resolution rule 2 ties
	// them, and rule 3 (by name) must decide, whatever the order.
	Ties Kind = "ties"
	// Misop: the step is a misoperation (Op), drawn into the history by
	// the generator; named here so that reports count it.
	Misop Kind = "misop"
)

// Kinds are the kinds of perturbation, in the order --faults lists them.
var Kinds = []Kind{Restart, APIServer, Burst, Delay, Ties, Misop}

// Op is a misoperation.
type Op string

const (
	// InvalidThenFixed: a policy is made invalid, and a later step fixes it.
	InvalidThenFixed Op = "invalid-then-fixed"
	// TargetRecreated: a policy's target is deleted, and a later step
	// creates it again.
	TargetRecreated Op = "target-recreated"
	// TargetRefsMoved: a policy's targetRefs move to another object.
	TargetRefsMoved Op = "targetrefs-moved"
)

// Ops are the misoperations.
var Ops = []Op{InvalidThenFixed, TargetRecreated, TargetRefsMoved}

// Limits (docs/limits.md): a case has at most MaxFaults perturbations, a
// restart waits for at most MaxAfterWrites status writes, and a watch
// event is held at most MaxDelay.
const (
	MaxFaults      = 16
	MaxAfterWrites = 64
	MaxDelay       = 5 * time.Second
	// DefaultDelay is how long a watch event is held at most when a
	// Delay fault names no MaxDelay.
	DefaultDelay = 500 * time.Millisecond
)

// Fault is one perturbation of a case, at one of its states.
type Fault struct {
	Kind Kind `json:"kind"`
	// State is the state whose application the fault perturbs: 0 the
	// objects as created, i the state after spec.steps[i-1].
	State int `json:"state"`
	// AfterWrites (Restart, APIServer): the fault happens once the
	// controller has made this many status writes since the state
	// began to be applied; 0: in the middle of applying the state, after
	// half of its objects.
	AfterWrites int `json:"afterWrites,omitempty"`
	// Seed (Delay, Ties): draws the proxy's schedule, or the order the
	// tied policies are created in.
	Seed int64 `json:"seed,omitempty"`
	// MaxDelay (Delay): the longest a watch event is held, a Go duration
	// ("800ms"); DefaultDelay when empty.
	MaxDelay string `json:"maxDelay,omitempty"`
	// Op (Misop): which misoperation the state's step is.
	Op Op `json:"op,omitempty"`
}

// String names f as reports print it: "restart at state 1 after 2
// status writes".
func (f Fault) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s at state %d", f.Kind, f.State)
	switch f.Kind {
	case Restart, APIServer:
		if f.AfterWrites == 0 {
			b.WriteString(" mid-apply")
		} else {
			fmt.Fprintf(&b, " after %d status writes", f.AfterWrites)
		}
	case Delay:
		fmt.Fprintf(&b, " (seed %d, at most %s)", f.Seed, f.Delay())
	case Ties:
		fmt.Fprintf(&b, " (seed %d)", f.Seed)
	case Misop:
		fmt.Fprintf(&b, " (%s)", f.Op)
	}
	return b.String()
}

// Delay is the longest a Delay fault holds a watch event.
func (f Fault) Delay() time.Duration {
	d, err := time.ParseDuration(f.MaxDelay)
	if err != nil || f.MaxDelay == "" {
		return DefaultDelay
	}
	return d
}

// FieldError is a fault that is not valid: Field is its path in the
// Scenario document ("spec.faults[0].state").
type FieldError struct {
	Field, Msg string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Validate checks the faults of a case with states states (1 + its steps),
// each error naming its field.
func Validate(fs []Fault, states int) []*FieldError {
	var errs []*FieldError
	fail := func(field, format string, a ...any) {
		errs = append(errs, &FieldError{Field: field, Msg: fmt.Sprintf(format, a...)})
	}
	if len(fs) > MaxFaults {
		fail("spec.faults", "has %d faults; at most %d (docs/limits.md)", len(fs), MaxFaults)
		return errs
	}
	for i, f := range fs {
		at := fmt.Sprintf("spec.faults[%d]", i)
		if !slices.Contains(Kinds, f.Kind) {
			fail(at+".kind", "%q is not a kind of fault (%s)", f.Kind, KindNames())
		}
		if f.State < 0 || f.State >= states {
			fail(at+".state", "%d is not a state of the case (0 to %d: creation, then after each step)", f.State, states-1)
		}
		if f.AfterWrites < 0 || f.AfterWrites > MaxAfterWrites {
			fail(at+".afterWrites", "%d is not between 0 and %d (docs/limits.md)", f.AfterWrites, MaxAfterWrites)
		} else if f.AfterWrites > 0 && f.Kind != Restart && f.Kind != APIServer {
			fail(at+".afterWrites", "is for restart and apiserver faults only")
		}
		if f.MaxDelay != "" {
			d, err := time.ParseDuration(f.MaxDelay)
			switch {
			case f.Kind != Delay:
				fail(at+".maxDelay", "is for delay faults only")
			case err != nil:
				fail(at+".maxDelay", "%q is not a duration (as 800ms)", f.MaxDelay)
			case d <= 0 || d > MaxDelay:
				fail(at+".maxDelay", "%s is not above 0 and at most %s (docs/limits.md)", d, MaxDelay)
			}
		}
		switch {
		case f.Op != "" && f.Kind != Misop:
			fail(at+".op", "is for misop faults only")
		case f.Kind == Misop && !slices.Contains(Ops, f.Op):
			fail(at+".op", "%q is not a misoperation (%s)", f.Op, joined(Ops))
		case f.Kind == Misop && f.State == 0:
			fail(at+".state", "a misoperation is a step: state 1 or later")
		}
	}
	return errs
}

// At returns the faults of state i, in the order given.
func At(fs []Fault, i int) []Fault {
	var out []Fault
	for _, f := range fs {
		if f.State == i {
			out = append(out, f)
		}
	}
	return out
}

// Has says whether fs holds a fault of kind k at state i.
func Has(fs []Fault, k Kind, i int) bool {
	return slices.ContainsFunc(fs, func(f Fault) bool { return f.Kind == k && f.State == i })
}

// ParseKinds reads --faults: kinds separated by commas, or "all".
func ParseKinds(s string) ([]Kind, error) {
	if s == "all" {
		return slices.Clone(Kinds), nil
	}
	var out []Kind
	for _, w := range strings.Split(s, ",") {
		k := Kind(strings.TrimSpace(w))
		if !slices.Contains(Kinds, k) {
			return nil, fmt.Errorf("%q is not a kind of fault (%s, or all)", k, KindNames())
		}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out, nil
}

// Flag is ks as --faults takes them (ParseKinds reads it back):
// "restart,burst".
func Flag(ks []Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ",")
}

// KindNames lists the kinds, for messages and help.
func KindNames() string { return joined(Kinds) }

func joined[T ~string](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}
