// Package proc starts the processes gepcheck runs (an implementation's
// command, a translator, go builds, a control plane, controllers)
// contained: each in its own process group, killed as a group, its output
// read through limits (docs/limits.md, "Implementations").
package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Contain makes cmd, not yet started, run in its own process group. When
// cmd was made by exec.CommandContext, the end of its context kills the
// whole group (not only the direct child, so that a grandchild holding
// stdout open cannot keep Wait waiting), and Wait waits at most grace for
// the output after the process has ended or the context is done
// (cmd.WaitDelay), then closes the pipes: Wait then returns
// exec.ErrWaitDelay. Call KillGroup after Wait so that no process of the
// group outlives it. The process is also killed if gepcheck dies first
// (Pdeathsig): a process of its own group is out of reach of a signal
// sent to gepcheck's group; what it started in turn is reached only by
// the kills of the group above (the run's context ends on SIGINT and
// SIGTERM).
func Contain(cmd *exec.Cmd, grace time.Duration) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	if cmd.Cancel != nil { // set by exec.CommandContext
		cmd.Cancel = func() error { return KillGroup(cmd) }
	}
	cmd.WaitDelay = grace
}

// KillGroup sends SIGKILL to the process group of cmd, started by Start
// after Contain. A group already gone is not an error.
func KillGroup(cmd *exec.Cmd) error {
	return SignalGroup(cmd, syscall.SIGKILL)
}

// SignalGroup sends sig to the process group of cmd, started after
// Contain. A group already gone is not an error.
func SignalGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// LimitError is the error of a Head past its limit.
type LimitError struct {
	What  string // "stdout"
	Limit int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s is over the limit of %d bytes", e.What, e.Limit)
}

// Head is an io.Writer that keeps the first Limit bytes written to it.
// Past them it keeps nothing more, calls OnCut once (to stop the writer:
// kill its process) and returns a *LimitError, which makes os/exec stop
// reading the pipe. Safe for concurrent use.
type Head struct {
	What  string
	Limit int64
	OnCut func()

	mu  sync.Mutex
	buf []byte
	cut bool
}

// Write implements io.Writer.
func (h *Head) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cut {
		return 0, &LimitError{h.What, h.Limit}
	}
	if room := h.Limit - int64(len(h.buf)); int64(len(p)) > room {
		h.buf = append(h.buf, p[:max(room, 0)]...)
		h.cut = true
		if h.OnCut != nil {
			h.OnCut()
		}
		return int(max(room, 0)), &LimitError{h.What, h.Limit}
	}
	h.buf = append(h.buf, p...)
	return len(p), nil
}

// Bytes returns what was kept.
func (h *Head) Bytes() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf
}

// Cut says whether more than Limit bytes were written.
func (h *Head) Cut() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cut
}

// Tail is an io.Writer that keeps the last Limit bytes written to it (a
// process's stderr, for the message of its failure) and takes any amount.
// Safe for concurrent use.
type Tail struct {
	Limit int

	mu  sync.Mutex
	buf []byte
	cut bool
}

// Write implements io.Writer.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) > t.Limit {
		p = p[len(p)-t.Limit:]
		t.cut = true
	}
	if over := len(t.buf) + len(p) - t.Limit; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// String returns the bytes kept.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// Cut says whether bytes were dropped from the front.
func (t *Tail) Cut() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cut
}

// GroupGone says whether the process group pgid has no process left but
// zombies (which a parent that does not reap, such as some containers'
// init, leaves): every process of a contained command is gone.
func GroupGone(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	for _, d := range dirs {
		stat, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces.
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			return false
		}
	}
	return true
}
