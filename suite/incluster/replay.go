package incluster

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Replay runs the case of a result that failed in a cluster (its scenario
// file, in the state of the step that failed) through d, an offline form
// of the same implementation, and says where the difference comes from:
// the translator, when d shows the same kinds of difference (compare.Kinds;
// status rules are judged in a cluster only), or the controller, when d
// agrees with the reference. The expectation offline is computed from the
// objects as written, in a cluster from the objects as stored; for cases
// whose creation order the cluster kept (Result.Notes) the two are one.
func Replay(ctx context.Context, d observe.Observer, r Result) (string, error) {
	cases, err := observe.FileCases(scenarios.Loaded{File: r.Plan.File, Docs: r.Plan.Docs}, nil)
	if err != nil {
		return "", err
	}
	// One case per state (observe.FileCases), the first the objects
	// as created.
	if r.State >= len(cases) {
		return "", fmt.Errorf("no state %d in %s", r.State, r.Plan.File)
	}
	c := cases[r.State]
	caps := d.Capabilities()
	got, err := d.Observe(ctx, []observe.Case{c})
	if err != nil {
		return "", err
	}
	diff := compare.Diff(observe.Reference([]observe.Case{c}, caps)[0], got[0], caps)
	offline := compare.Kinds(diff)
	var seen []string
	for _, k := range compare.Kinds(r.Diff) {
		if !strings.HasPrefix(k, "status-rule") {
			seen = append(seen, k)
		}
	}
	switch {
	case len(diff) == 0:
		return fmt.Sprintf("offline, %s agrees with the reference: the difference is the controller's", d.Name()), nil
	case len(seen) > 0 && !slices.ContainsFunc(seen, func(k string) bool { return !slices.Contains(offline, k) }):
		return fmt.Sprintf("offline, %s shows it too (%s): the difference is the translator's", d.Name(), strings.Join(offline, ", ")), nil
	}
	return fmt.Sprintf("offline, %s differs otherwise (%s; in the cluster: %s)", d.Name(), strings.Join(offline, ", "), strings.Join(seen, ", ")), nil
}
