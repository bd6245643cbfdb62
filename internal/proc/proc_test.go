package proc

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Head keeps the first Limit bytes and refuses the rest, once cut.
func TestHead(t *testing.T) {
	cuts := 0
	h := &Head{What: "stdout", Limit: 5, OnCut: func() { cuts++ }}
	if n, err := h.Write([]byte("abc")); n != 3 || err != nil {
		t.Fatalf("Write under the limit: %d, %v", n, err)
	}
	n, err := h.Write([]byte("defgh"))
	var le *LimitError
	if n != 2 || !errors.As(err, &le) || le.Limit != 5 {
		t.Fatalf("Write over the limit: %d, %v", n, err)
	}
	if _, err := h.Write([]byte("i")); err == nil {
		t.Errorf("a Write after the cut succeeded")
	}
	if string(h.Bytes()) != "abcde" || !h.Cut() || cuts != 1 {
		t.Errorf("kept %q, cut %v, OnCut called %d times", h.Bytes(), h.Cut(), cuts)
	}
}

// Tail keeps the last Limit bytes of any amount.
func TestTail(t *testing.T) {
	tl := &Tail{Limit: 4}
	for _, s := range []string{"ab", "cdefg", "h"} {
		if n, err := tl.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write %q: %d, %v", s, n, err)
		}
	}
	if tl.String() != "efgh" || !tl.Cut() {
		t.Errorf("kept %q, cut %v", tl.String(), tl.Cut())
	}
	short := &Tail{Limit: 4}
	short.Write([]byte("ab"))
	if short.String() != "ab" || short.Cut() {
		t.Errorf("kept %q, cut %v", short.String(), short.Cut())
	}
}

// The end of the context kills the whole group, a grandchild holding
// stdout open too: Wait returns soon, and no process of the group is left.
// The context ends once the grandchild is started (the child says so), not
// after a guessed time.
func TestContainKillsTheGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", "sleep 600 & echo started; sleep 600; echo done")
	// A grace longer than the bound below: Wait can return in time only
	// if the context's end killed the grandchild holding stdout too, not
	// through WaitDelay.
	Contain(cmd, 3*time.Minute)
	out := &signalWriter{want: "started\n", seen: make(chan struct{})}
	cmd.Stdout = out
	started(t, cmd)
	select {
	case <-out.seen:
	case <-time.After(2 * time.Minute):
		t.Fatal("the child did not start its grandchild")
	}
	start := time.Now()
	cancel()
	_ = cmd.Wait()
	if d := time.Since(start); d > time.Minute {
		t.Errorf("Wait took %s: the grandchild outlived the context", d)
	}
	gone(t, cmd)
}

// signalWriter closes seen once what was written holds want; written by
// exec's copying goroutine.
type signalWriter struct {
	mu   sync.Mutex
	b    strings.Builder
	want string
	seen chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	had := strings.Contains(w.b.String(), w.want)
	w.b.Write(p)
	if !had && strings.Contains(w.b.String(), w.want) {
		close(w.seen)
	}
	return len(p), nil
}

// A child that exits leaving a grandchild with its stdout open: Wait
// returns after the grace with exec.ErrWaitDelay, and KillGroup ends the
// grandchild (which would sleep far longer than the bound on Wait).
func TestContainGrandchildAfterExit(t *testing.T) {
	cmd := exec.CommandContext(context.Background(), "sh", "-c", "sleep 600 &")
	Contain(cmd, 200*time.Millisecond)
	cmd.Stdout = &strings.Builder{}
	start := time.Now()
	started(t, cmd)
	if err := cmd.Wait(); !errors.Is(err, exec.ErrWaitDelay) {
		t.Errorf("Wait: %v, want exec.ErrWaitDelay", err)
	}
	if d := time.Since(start); d > 5*time.Minute {
		t.Errorf("Wait took %s", d)
	}
	_ = KillGroup(cmd)
	gone(t, cmd)
}

// gone fails unless cmd ran in its own group (Contain) and no process of
// that group is left, polling a minute at most for the kernel to reap it
// (on a loaded machine, a killed process lingers).
func gone(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	pid := cmd.Process.Pid
	for deadline := time.Now().Add(time.Minute); !GroupGone(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("a process of group %d is still there", pid)
			return
		}
	}
}

// started starts cmd and checks it leads its own process group.
func started(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if pg, err := syscall.Getpgid(cmd.Process.Pid); err != nil || pg != cmd.Process.Pid {
		t.Errorf("process %d is in group %d (%v), not its own", cmd.Process.Pid, pg, err)
	}
}
