package input

import (
	"errors"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// Diff is gepcheck diff's answer (docs/diff.md): the two states Pair
// reads, each simulated as simulate would (simulator.SimulatePair, the
// warnings of both written on Stderr), compared; after is the state
// after, which --fail-on judges. It refuses two states without a policy
// of a known kind.
func (s Source) Diff(args, deletes []string, opts simulator.Options, sem engine.Semantics) (d *simulator.StateDiff, after *simulator.Output, err error) {
	a, b, err := s.Pair(args, deletes, opts)
	if err != nil {
		return nil, nil, err
	}
	before, after, warns, err := simulator.SimulatePair(a, b, opts, sem)
	PrintWarnings(s.Stderr, warns)
	if err != nil {
		return nil, nil, exitcode.Input{Err: err}
	}
	if len(before.Policies) == 0 && len(after.Policies) == 0 {
		return nil, nil, exitcode.Input{Err: errors.New("neither state has a policy of a known kind to simulate; pass --profile")}
	}
	return simulator.DiffOutputs(before, after), after, nil
}
