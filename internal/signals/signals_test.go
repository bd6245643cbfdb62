package signals

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/internal/exitcode"
)

// Stopped says why a cancelled context stopped the work, and is nil for
// none or one still running.
func TestStopped(t *testing.T) {
	if err := Stopped(nil); err != nil {
		t.Errorf("Stopped(nil) = %v", err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	if err := Stopped(ctx); err != nil {
		t.Errorf("Stopped(running) = %v", err)
	}
	cancel(errors.New("interrupt signal received"))
	if err := Stopped(ctx); err == nil || err.Error() != "stopped: interrupt signal received" || exitcode.Of(err) != exitcode.BadInput {
		t.Errorf("Stopped(cancelled) = %v", err)
	}
	other := errors.New("the implementation's process was killed")
	if err := StoppedOr(ctx, other); err == nil || err.Error() != "stopped: interrupt signal received" {
		t.Errorf("StoppedOr(cancelled) = %v", err)
	}
	if err := StoppedOr(context.Background(), other); err != other {
		t.Errorf("StoppedOr(running) = %v", err)
	}
}

// ExitAfter ends the process the grace after the context is cancelled,
// saying why; stopped first, it never does.
func TestExitAfter(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	exits := make(chan struct{}, 1)
	var stderr strings.Builder // written before exit is called
	defer ExitAfter(ctx, &stderr, time.Millisecond, func() { exits <- struct{}{} })()
	cancel(errors.New("terminated"))
	select {
	case <-exits:
		if got := stderr.String(); got != "gepcheck: stopped: terminated\n" {
			t.Errorf("stderr %q", got)
		}
	case <-time.After(time.Minute):
		t.Fatal("no exit after the context was cancelled")
	}

	ctx, cancel = context.WithCancelCause(context.Background())
	ExitAfter(ctx, &stderr, time.Millisecond, func() { exits <- struct{}{} })()
	cancel(errors.New("terminated"))
	select {
	case <-exits:
		t.Error("a stopped watch ended the process")
	case <-time.After(100 * time.Millisecond):
	}
}
