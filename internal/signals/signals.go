// Package signals stops gepcheck's work on SIGINT and SIGTERM: a context
// they cancel, the error that says the work was stopped, and the end of a
// process whose work does not watch the context.
package signals

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gepcheck/gepcheck/internal/exitcode"
)

// Context is cancelled on SIGINT and SIGTERM. Hold one only while the
// work watches it: it takes the signals' default action (ending the
// process) away.
func Context() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// Stopped is nil, or, when ctx (nil: none) was cancelled by a signal, the
// error that says so, the user's (exitcode.Input, exit 2): what an
// implementation did after its processes were killed is no verdict on it.
func Stopped(ctx context.Context) error {
	if ctx != nil && ctx.Err() != nil {
		return exitcode.Input{Err: fmt.Errorf("stopped: %v", context.Cause(ctx))}
	}
	return nil
}

// StoppedOr is Stopped(ctx) when ctx was cancelled by a signal, else err:
// what ran after a signal is no verdict, whatever it returned.
func StoppedOr(ctx context.Context, err error) error {
	if s := Stopped(ctx); s != nil {
		return s
	}
	return err
}

// ExitAfter calls exit, grace after ctx (a Context) is cancelled, having
// said why on stderr, for work that does not watch ctx throughout; stop
// ends the watch.
func ExitAfter(ctx context.Context, stderr io.Writer, grace time.Duration, exit func()) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		select {
		case <-done:
		case <-time.After(grace):
			fmt.Fprintf(stderr, "gepcheck: %v\n", Stopped(ctx))
			exit()
		}
	}()
	return func() { close(done) }
}
