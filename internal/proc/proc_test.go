package proc

import (
	"context"
	"errors"
	"os/exec"
	"strings"
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
func TestContainKillsTheGroup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", "sleep 60 & sleep 60; echo done")
	// A grace longer than the bound below: Wait can return in time only
	// if the context's end killed the grandchild holding stdout too, not
	// through WaitDelay.
	Contain(cmd, 2*time.Minute)
	var out strings.Builder
	cmd.Stdout = &out
	start := time.Now()
	started(t, cmd)
	_ = cmd.Wait()
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("Wait took %s: the grandchild outlived the context", d)
	}
	gone(t, cmd)
}

// A child that exits leaving a grandchild with its stdout open: Wait
// returns after the grace with exec.ErrWaitDelay, and KillGroup ends the
// grandchild.
func TestContainGrandchildAfterExit(t *testing.T) {
	cmd := exec.CommandContext(context.Background(), "sh", "-c", "sleep 30 &")
	Contain(cmd, 200*time.Millisecond)
	cmd.Stdout = &strings.Builder{}
	start := time.Now()
	started(t, cmd)
	if err := cmd.Wait(); !errors.Is(err, exec.ErrWaitDelay) {
		t.Errorf("Wait: %v, want exec.ErrWaitDelay", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Wait took %s", d)
	}
	_ = KillGroup(cmd)
	gone(t, cmd)
}

// gone fails unless cmd ran in its own group (Contain) and no process of
// that group is left, allowing the kernel a moment.
func gone(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	pid := cmd.Process.Pid
	for range 100 {
		if GroupGone(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("a process of group %d is still there", pid)
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
