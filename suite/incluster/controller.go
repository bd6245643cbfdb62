package incluster

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/gepcheck/gepcheck/cluster"
)

// Controller is the implementation's controller under the runner's
// control, so that a fault can crash it and start it again
// (docs/faults.md, restart; the convergence oracle).
type Controller interface {
	// Kill kills the running controller at once (SIGKILL, a crash); a
	// Kill that finds nothing to kill is an error.
	Kill() error
	// Start starts it again on what the cluster holds.
	Start(ctx context.Context) error
}

// Local is the implementation's controller run as local processes
// (Implementation.Start), each start logging into a directory of its
// own: the first from os.MkdirTemp, the later ones beside it.
type Local struct {
	im   Implementation
	c    *cluster.Cluster
	logf func(string)

	mu   sync.Mutex
	dirs []string
	// stop is the running start's stop; nil once killed or stopped.
	stop func()
}

// StartLocal starts im's controller against c (Implementation.Start).
func StartLocal(ctx context.Context, c *cluster.Cluster, im Implementation, logf func(string)) (*Local, error) {
	l := &Local{im: im, c: c, logf: logf}
	if err := l.Start(ctx); err != nil {
		return l, err
	}
	return l, nil
}

// Start implements Controller: a fresh log directory, beside the first.
func (l *Local) Start(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stop != nil {
		return fmt.Errorf("%s's controller is already running", l.im.Name())
	}
	var dir string
	var err error
	if len(l.dirs) == 0 {
		dir, err = os.MkdirTemp("", "gepcheck-controller-")
	} else {
		dir = fmt.Sprintf("%s-start-%d", l.dirs[0], len(l.dirs)+1)
		err = os.Mkdir(dir, 0o755)
	}
	if err != nil {
		return err
	}
	l.dirs = append(l.dirs, dir)
	stop, err := l.im.Start(ctx, l.c, dir, l.logf)
	if err != nil {
		return err
	}
	l.stop = stop
	return nil
}

// Kill implements Controller: every process of the running start is
// killed (cluster.Kill on its log directory), then its stop is called.
func (l *Local) Kill() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stop == nil {
		return fmt.Errorf("%s's controller is not running: nothing to kill", l.im.Name())
	}
	dir := l.dirs[len(l.dirs)-1]
	n := cluster.Kill(dir)
	l.stop()
	l.stop = nil
	if n == 0 {
		return fmt.Errorf("killing %s's controller killed no process logging in %s", l.im.Name(), dir)
	}
	return nil
}

// Stop stops the running controller, if any.
func (l *Local) Stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stop != nil {
		l.stop()
		l.stop = nil
	}
}

// Starts is how many times the controller was started.
func (l *Local) Starts() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.dirs)
}

// Logs are the log directories, one per start, for the message that
// keeps them, and to remove them.
func (l *Local) Logs() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.dirs...)
}

// logsKept says where the logs are kept: as before for one start.
func logsKept(dirs []string) string {
	return "the controller's log is kept in " + strings.Join(dirs, ", ")
}
