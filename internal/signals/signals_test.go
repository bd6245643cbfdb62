package signals

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
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
	if err := Stopped(ctx); err == nil || err.Error() != "stopped: interrupt signal received" {
		t.Errorf("Stopped(cancelled) = %v", err)
	}
}

type lockedWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// ExitAfter ends the process the grace after the context is cancelled,
// saying why; stopped first, it never does.
func TestExitAfter(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	exits := make(chan struct{}, 1)
	var stderr lockedWriter
	defer ExitAfter(ctx, &stderr, time.Millisecond, func() { exits <- struct{}{} })()
	cancel(errors.New("terminated"))
	select {
	case <-exits:
		stderr.mu.Lock()
		defer stderr.mu.Unlock()
		if got := stderr.b.String(); got != "gepcheck: stopped: terminated\n" {
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
