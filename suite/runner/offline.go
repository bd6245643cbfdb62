package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/input"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// NewResults starts the results of a run in mode under sem, for the
// reports (--report-dir); nil writes none.
type NewResults func(mode string, sem engine.Semantics, caps observe.Capabilities) *report.Results

// Offline is `gepcheck run` without --cluster: scenario files through
// the implementation's offline form (the reference engine, a command
// speaking docs/exec-protocol.md, a translator).
type Offline struct {
	Impl       impl.Implementation
	Config     impl.Config
	Semantics  engine.Semantics
	Vocabulary engine.Vocabulary
	Scenarios  Scenarios
	// Profiles are the profiles of the cases (none: each scenario's own).
	Profiles []string
	Results  NewResults
}

// OfflineRun is what an offline run did.
type OfflineRun struct {
	// Name is the implementation's offline form.
	Name  string
	Cases []differential.CaseResult
	// Results are the reports' results (nil without Offline.Results).
	Results *report.Results
}

// Run runs o. An error is the user's (exitcode.Input), the implementation
// failing to start (input.EnvironmentOr), or failing.
func (o Offline) Run(ctx context.Context) (*OfflineRun, error) {
	d, err := impl.StartOffline(ctx, o.Config, o.Semantics, o.Vocabulary)
	if errors.Is(err, impl.ErrUnsupported) {
		return nil, exitcode.Input{Err: fmt.Errorf("--impl %s runs only in a cluster (--cluster)", o.Impl.Name())}
	}
	if err != nil {
		return nil, input.EnvironmentOr(err)
	}
	cases, err := o.Scenarios.cases(o.Profiles)
	if err != nil {
		return nil, exitcode.Input{Err: err}
	}
	results, err := differential.Cases(ctx, d, cases)
	if err != nil {
		return nil, err
	}
	out := &OfflineRun{Name: d.Name(), Cases: results}
	if o.Results != nil {
		res := o.Results("offline", o.Semantics, d.Capabilities())
		rp := Replay{Impl: o.Impl.Name(), Config: o.Config, Profiles: o.Profiles,
			Semantics: engine.Semantics(res.Semantics), Vocabulary: engine.Vocabulary(res.StatusVocabulary)}
		res.Cases = report.OfflineCases(results, d.Capabilities(), rp.File)
		out.Results = res
	}
	return out, nil
}
