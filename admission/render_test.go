package admission

import (
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/load"
)

// The table names every hook of the chain: one called with how it
// answered (a failure under failurePolicy Ignore marked ignored), and,
// when a mutating hook under failurePolicy Fail is down, the hooks after
// it as never reached (docs/admission.md, Failures: "a mutating failure
// stops the chain").
func TestTableShowsAnswersAndHooksNotReached(t *testing.T) {
	docs, err := load.Read([]string{"../scenarios/admission/failure-policy.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, v, err := Configurations(docs)
	if err != nil {
		t.Fatal(err)
	}
	chain := Chain(m, v)
	req, err := ParseRequest("CREATE v1 configmaps ns=team-b name=c user=alice", Builtin())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		behave map[string]Behaviour
		want   map[string]string // hook ID: its row's CALLED and ANSWER columns
	}{
		{map[string]Behaviour{"strict.example.com": Down}, map[string]string{
			"1-mutate/strict.example.com/0":    "yes down",
			"1-mutate/lenient.example.com/0":   "no - reached: the request was refused",
			"2-validate/check-1.example.com/0": "no - reached: the request was refused",
			"2-validate/check-2.example.com/0": "no - reached: the request was refused",
		}},
		{map[string]Behaviour{"lenient.example.com": Slow, "check-1.example.com": Deny}, map[string]string{
			"1-mutate/strict.example.com/0":    "yes allow",
			"1-mutate/lenient.example.com/0":   "yes slow: ignored (failurePolicy Ignore)",
			"2-validate/check-1.example.com/0": "yes deny",
			"2-validate/check-2.example.com/0": "yes allow",
		}},
	} {
		behave, _, err := ResolveBehaviours(chain, tc.behave)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := NewReport(req, Predict(chain, req, Builtin(), behave)).Table(&b); err != nil {
			t.Fatal(err)
		}
		rows := 0
		for _, line := range strings.Split(b.String(), "\n") {
			f := strings.Fields(line)
			if len(f) < 4 {
				continue
			}
			want, ok := tc.want[f[2]]
			if !ok {
				continue
			}
			rows++
			if got := strings.Join(f[3:], " "); !strings.HasPrefix(got, want) {
				t.Errorf("%v: %s: got %q, want it to begin %q", tc.behave, f[2], got, want)
			}
		}
		if rows != len(tc.want) {
			t.Errorf("%v: %d of the %d hooks have a row:\n%s", tc.behave, rows, len(tc.want), b.String())
		}
	}
}
