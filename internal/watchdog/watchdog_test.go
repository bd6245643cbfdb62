package watchdog

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// The watchdog ends a run over its memory or time and prints a message
// naming the limit and its flag (docs/limits.md); stopped, it does
// nothing. Each watch ends the run through its own exit function: the
// cases run in parallel (go test -race in make ci finds any watch reading
// another's, as a global replaced by tests was).
func TestWatch(t *testing.T) {
	// Parallel watches restore each other's memory limits out of order.
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(limit) })
	for _, tc := range []struct {
		name    string
		memory  int64
		timeout time.Duration
		want    string
	}{
		{"memory", 1, 0, "more than the limit of 0 MiB of memory (the limit; --max-memory raises it"},
		{"time", 1 << 40, time.Millisecond, "took longer than the limit of 1ms (the limit; --timeout raises it)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			exits := make(chan struct{}, 1)
			var stderr bytes.Buffer // written before exit is called
			stop := Watch(&stderr, tc.memory, tc.timeout, func() { exits <- struct{}{} })
			defer stop()
			select {
			case <-exits:
				if !strings.Contains(stderr.String(), tc.want) {
					t.Errorf("stderr %q; want %q", stderr.String(), tc.want)
				}
			case <-time.After(time.Minute):
				t.Fatal("the watchdog did not fire")
			}
		})
	}
	t.Run("stopped", func(t *testing.T) {
		t.Parallel()
		exits := make(chan struct{}, 1)
		var stderr bytes.Buffer // written before exit is called
		// Stopped long before its deadline (a loaded machine may pause
		// this goroutine for milliseconds between watch and stop), it
		// stays silent past the deadline.
		Watch(&stderr, 1<<40, 200*time.Millisecond, func() { exits <- struct{}{} })()
		select {
		case <-exits:
			t.Error("a stopped watchdog ended the run")
		case <-time.After(500 * time.Millisecond):
		}
	})
}
