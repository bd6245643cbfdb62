// Package watchdog bounds a run's memory and wall-clock time
// (docs/limits.md): past the limit it says which and ends the process,
// instead of the runtime's out-of-memory crash or a run that does not end.
package watchdog

import (
	"fmt"
	"io"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Watch bounds the rest of a run (docs/limits.md): past maxMemory bytes
// of Go heap, or past timeout (when positive), it prints which limit to
// stderr and calls exit, which ends the process (exit 2 in gepcheck). The
// GC is asked to work harder before that (debug.SetMemoryLimit). stop
// ends the watch.
func Watch(stderr io.Writer, maxMemory int64, timeout time.Duration, exit func()) (stop func()) {
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
				exit()
				return
			case <-tick.C:
				metrics.Read(sample)
				if v := sample[0].Value; v.Kind() == metrics.KindUint64 && v.Uint64() > uint64(maxMemory) && !stopped(done) {
					fmt.Fprintf(stderr, "gepcheck: the run needs more than the limit of %d MiB of memory (the limit; --max-memory raises it; docs/limits.md)\n", maxMemory>>20)
					exit()
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
