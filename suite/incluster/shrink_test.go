package incluster

import (
	"strings"
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/suite/compare"
)

// A budget of rounds is spent after that many rounds, whatever the time;
// one of time once its deadline is past; a zero budget never.
func TestBudget(t *testing.T) {
	past := time.Now().Add(-time.Second)
	for _, tc := range []struct {
		b        Budget
		rounds   int
		deadline time.Time
		want     string
	}{
		{Budget{Rounds: 2}, 1, time.Time{}, ""},
		{Budget{Rounds: 2}, 2, time.Time{}, "(2 rounds) is spent"},
		{Budget{Time: time.Minute}, 100, time.Now().Add(time.Minute), ""},
		{Budget{Time: time.Second}, 0, past, "(1s) is spent"},
		{Budget{}, 1000, time.Time{}, ""},
	} {
		got := tc.b.spent(tc.rounds, tc.deadline)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%+v after %d rounds: %q, want %q", tc.b, tc.rounds, got, tc.want)
		}
	}
	if !(Budget{}).start().IsZero() || (Budget{Time: time.Minute}).start().IsZero() {
		t.Errorf("start: a zero Time has a deadline, or a Time has none")
	}
}

// A shrunk case re-run as shrunk is deterministic when every re-run shows
// its kind of difference; one that fails every time, but not always with
// that kind, says so; else it is flaky. Not re-run, it says nothing.
func TestDeterminism(t *testing.T) {
	kind := compare.Found{Kind: "condition"}
	for _, tc := range []struct {
		reruns, failed, reproduced int
		want                       string
	}{
		{0, 0, 0, ""},
		{3, 3, 3, "deterministic (3 of 3 re-runs fail, 3 with condition)"},
		{3, 3, 0, "fails deterministically, its kind flaky (3 of 3 re-runs fail, 0 with condition)"},
		{3, 1, 1, "flaky (1 of 3 re-runs fail, 1 with condition)"},
		{3, 0, 0, "flaky (0 of 3 re-runs fail, 0 with condition)"},
	} {
		if got := (Shrunk{Kind: kind, Reruns: tc.reruns, Failed: tc.failed, Reproduced: tc.reproduced}).Determinism(); got != tc.want {
			t.Errorf("%d, %d of %d: %q, want %q", tc.failed, tc.reproduced, tc.reruns, got, tc.want)
		}
	}
}
