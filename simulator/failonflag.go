package simulator

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/internal/exitcode"
)

// FailOnFlag is --fail-on (docs/diff.md) of simulate and, with "changed"
// among its values, of diff.
type FailOnFlag struct {
	values      []string
	withChanged bool
}

// AddFlags adds --fail-on to fs; withChanged: "changed" is a value (diff).
func (f *FailOnFlag) AddFlags(fs *pflag.FlagSet, withChanged bool) {
	f.withChanged = withChanged
	values := "conflicted, invalid, targetnotfound, overridden"
	if withChanged {
		values = "changed, " + values
	}
	fs.StringSliceVar(&f.values, "fail-on", nil, "exit 1 when the result has any of: "+values+" (repeatable, or a comma list; docs/diff.md)")
}

// Parse reads the flag's values (ParseFailOn); a wrong one is an
// exitcode.Input naming the flag.
func (f *FailOnFlag) Parse() ([]FailOn, error) {
	fail, err := ParseFailOn(f.values, f.withChanged)
	if err != nil {
		return nil, exitcode.Input{Err: fmt.Errorf("--fail-on %w", err)}
	}
	return fail, nil
}

// TrippedError is the error (an exitcode.Failure, exit 1) of a run whose
// --fail-on values fail tripped on out (Tripped), or on a change
// (FailChanged) when changed; nil when none did.
func TrippedError(fail []FailOn, changed bool, out *Output) error {
	var lines []string
	for _, f := range fail {
		if f == FailChanged && changed {
			lines = append(lines, "changed: the effective policies or the conditions change")
		}
	}
	lines = append(lines, Tripped(out, fail)...)
	if len(lines) == 0 {
		return nil
	}
	return exitcode.Failure{Msg: fmt.Sprintf("--fail-on: %d tripped:\n%s", len(lines), strings.Join(lines, "\n"))}
}
