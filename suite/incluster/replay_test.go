package incluster

import (
	"context"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/features"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// offlineForm is an offline implementation for Replay: the reference's
// observation, changed by edit.
type offlineForm struct{ edit func(*observe.Observation) }

func (offlineForm) Name() string                       { return "offline-form" }
func (offlineForm) Capabilities() observe.Capabilities { return observe.Capabilities{} }
func (f offlineForm) Observe(_ context.Context, cases []observe.Case) ([]observe.Observation, error) {
	out := observe.Reference(cases, observe.Capabilities{})
	for i := range out {
		f.edit(&out[i])
	}
	return out, nil
}

// TestReplay: a failure in a cluster, replayed offline in the state of its
// step, is the translator's when the offline form shows the same kind of
// difference, the controller's when it agrees.
func TestReplay(t *testing.T) {
	p, err := NewPlan("../../scenarios/gep-713/steps-direct-conflict-over-time.yaml", Target{Run: "r", Features: features.All})
	if err != nil {
		t.Fatal(err)
	}
	// In the cluster, p2 stayed Conflicted after p1 was deleted.
	r := Result{Plan: p, Case: p, Outcome: Fail, State: 3, Diff: []compare.Difference{
		{Kind: compare.PolicyCondition, Ref: "ColorPolicy/default/p2", Condition: "Accepted", Want: "True/Accepted", Got: "False/Conflicted"},
	}}
	keepsRejection := func(o *observe.Observation) {
		for i, s := range o.Policies {
			if s.Ref == "ColorPolicy/default/p2" {
				o.Policies[i].Conditions = []observe.Condition{{Type: "Accepted", Status: "False", Reason: "Conflicted"}}
			}
		}
	}
	dropsEffective := func(o *observe.Observation) { o.Effective = nil }
	for _, c := range []struct {
		name string
		edit func(*observe.Observation)
		want string
	}{
		{"agrees", func(*observe.Observation) {}, "the difference is the controller's"},
		{"same difference", keepsRejection, "conflicted): the difference is the translator's"},
		{"another difference", dropsEffective, "differs otherwise"},
	} {
		got, err := Replay(context.Background(), offlineForm{c.edit}, r)
		if err != nil || !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}
