package simulator

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/internal/exitcode"
)

// --fail-on's values are bad input naming the flag where wrong; "changed"
// is diff's only; a tripped value is a failure (exit 1) that lists it.
func TestFailOnFlag(t *testing.T) {
	parse := func(withChanged bool, args ...string) ([]FailOn, error) {
		var f FailOnFlag
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		f.AddFlags(fs, withChanged)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return f.Parse()
	}
	if _, err := parse(false, "--fail-on", "changed"); exitcode.Of(err) != exitcode.BadInput || !strings.HasPrefix(err.Error(), `--fail-on "changed": a single state`) {
		t.Errorf("simulate --fail-on changed: %v, want bad input", err)
	}
	if _, err := parse(true, "--fail-on", "nope"); exitcode.Of(err) != exitcode.BadInput || !strings.HasPrefix(err.Error(), `--fail-on "nope"`) {
		t.Errorf("--fail-on nope: %v, want bad input naming it", err)
	}
	fail, err := parse(true, "--fail-on", "changed,Invalid", "--fail-on", "changed")
	if err != nil || len(fail) != 2 {
		t.Fatalf("--fail-on changed,Invalid --fail-on changed = %v, %v, want changed and invalid once each", fail, err)
	}
	out := &Output{}
	if err := TrippedError(fail, false, out); err != nil {
		t.Errorf("TrippedError(nothing changed, no policy) = %v, want nil", err)
	}
	err = TrippedError(fail, true, out)
	if want := "--fail-on: 1 tripped:\nchanged: the effective policies or the conditions change"; err == nil || err.Error() != want || exitcode.Of(err) != exitcode.Failed {
		t.Errorf("TrippedError(changed) = %v, want failure %q", err, want)
	}
	if err := TrippedError([]FailOn{FailInvalid}, true, out); err != nil {
		t.Errorf("TrippedError(changed, without --fail-on changed) = %v, want nil", err)
	}
}
