package watchdog

import (
	"errors"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/internal/exitcode"
)

// Flags are the command-line flags of a run's bounds (docs/limits.md):
// --max-memory and --timeout.
type Flags struct {
	MaxMemory int64
	Timeout   time.Duration
}

// AddFlags adds --max-memory and --timeout to fs.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.Int64Var(&f.MaxMemory, "max-memory", 4<<30, "most bytes of memory the run may hold")
	fs.DurationVar(&f.Timeout, "timeout", 0, "most wall-clock time of the run (0: none)")
}

// Watch checks the flags (an exitcode.Input) and watches the rest of the
// run within them (Watch): past a bound, exit ends the process with
// exitcode.BadInput (os.Exit, but in tests). stop ends the watch.
func (f Flags) Watch(stderr io.Writer, exit func(code int)) (stop func(), err error) {
	if f.MaxMemory < 1 || f.Timeout < 0 {
		return nil, exitcode.Input{Err: errors.New("--max-memory must be positive, --timeout not negative")}
	}
	return Watch(stderr, f.MaxMemory, f.Timeout, func() { exit(exitcode.BadInput) }), nil
}
