package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/spf13/pflag"
)

// runBounds are the flags of the run's bounds (--max-memory, --timeout)
// of simulate, explain, check and admission (docs/limits.md), and how the
// watch ends the process (os.Exit but in tests: a value, not a global the
// watch's goroutine would read while a test replaces it).
type runBounds struct {
	maxMemory int64
	timeout   time.Duration
	exit      func(code int)
}

func (b *runBounds) add(fs *pflag.FlagSet, exit func(code int)) {
	b.exit = exit
	fs.Int64Var(&b.maxMemory, "max-memory", 4<<30, "most bytes of memory the run may hold")
	fs.DurationVar(&b.timeout, "timeout", 0, "most wall-clock time of the run (0: none)")
}

// watch checks the flags and watches the rest of the run within them
// (watch); stop ends the watch.
func (b runBounds) watch(stderr io.Writer) (stop func(), err error) {
	if b.maxMemory < 1 || b.timeout < 0 {
		return nil, inputError{errors.New("--max-memory must be positive, --timeout not negative")}
	}
	return watch(stderr, b.maxMemory, b.timeout, b.exit), nil
}

// watch bounds the rest of a simulate or explain run (docs/limits.md):
// past maxMemory bytes of Go heap, or past timeout (when positive), it
// prints which limit and exits with exitBadInput, instead of the runtime's
// out-of-memory crash or a run that does not end. The GC is asked to work
// harder before that (debug.SetMemoryLimit). stop ends the watch.
func watch(stderr io.Writer, maxMemory int64, timeout time.Duration, exit func(code int)) (stop func()) {
	prev := debug.SetMemoryLimit(maxMemory * 9 / 10)
	done := make(chan struct{})
	var deadline <-chan time.Time
	if timeout > 0 {
		deadline = time.After(timeout)
	}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	tick := time.NewTicker(50 * time.Millisecond)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-deadline:
				if stopped(done) {
					return
				}
				fmt.Fprintf(stderr, "gepcheck: the run took longer than the limit of %s (the limit; --timeout raises it)\n", timeout)
				exit(exitBadInput)
				return
			case <-tick.C:
				metrics.Read(sample)
				if v := sample[0].Value; v.Kind() == metrics.KindUint64 && v.Uint64() > uint64(maxMemory) && !stopped(done) {
					fmt.Fprintf(stderr, "gepcheck: the run needs more than the limit of %d MiB of memory (the limit; --max-memory raises it; docs/limits.md)\n", maxMemory>>20)
					exit(exitBadInput)
					return
				}
			}
		}
	}()
	return func() {
		tick.Stop()
		close(done)
		debug.SetMemoryLimit(prev)
	}
}

// stopped reports whether done is closed: select picks at random among
// ready cases, and a stopped watch must never fire.
func stopped(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}
