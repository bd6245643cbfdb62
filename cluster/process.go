package cluster

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/internal/proc"
)

// Process is a program gepcheck runs for a cluster (a control plane
// component, an implementation's controller), its output in a log file.
type Process struct {
	Name string
	Log  string // path of its log
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// Start runs cmd with stdout and stderr to the file logPath. It runs in
// its own process group, so that an interrupt of gepcheck's terminal does
// not stop it before gepcheck has cleaned up, and it is killed if
// gepcheck itself dies.
func Start(name string, cmd *exec.Cmd, logPath string) (*Process, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	proc.Contain(cmd, 5*time.Second)
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Process{Name: name, Log: logPath, cmd: cmd, done: make(chan struct{})}
	running.Lock()
	running.procs[p] = true
	running.Unlock()
	go func() {
		p.err = cmd.Wait()
		running.Lock()
		delete(running.procs, p)
		running.Unlock()
		// What it started does not outlive it.
		_ = proc.KillGroup(cmd)
		logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// Pid is the process's id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited returns, once the process has ended, why, with the tail of its
// log; nil while it runs.
func (p *Process) Exited() error {
	select {
	case <-p.done:
		log, _ := os.ReadFile(p.Log)
		return fmt.Errorf("%s exited: %v\n%s", p.Name, p.err, gotool.Tail(string(log), 10))
	default:
		return nil
	}
}

// Stop sends SIGTERM to the process group, and SIGKILL after grace.
func (p *Process) Stop(grace time.Duration) {
	_ = proc.SignalGroup(p.cmd, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = proc.KillGroup(p.cmd)
		<-p.done
	}
}

// FreePorts returns n loopback ports free now, for processes gepcheck
// starts (a local control plane, an implementation's controllers).
func FreePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// running are the processes started by Start that have not ended, for
// Kill.
var running = struct {
	sync.Mutex
	procs map[*Process]bool
}{procs: map[*Process]bool{}}

// Kill kills at once (SIGKILL, as a crash) every running process Start
// started whose log is in dir or below it, and waits for each to end; it
// returns how many it killed. An implementation's controller logs in the
// directory Implementation.Start is given, so that the restart fault
// (docs/faults.md) kills the whole controller, whatever its processes.
func Kill(dir string) int {
	dir = filepath.Clean(dir) + string(filepath.Separator)
	running.Lock()
	var victims []*Process
	for p := range running.procs {
		if strings.HasPrefix(filepath.Clean(p.Log), dir) {
			victims = append(victims, p)
		}
	}
	running.Unlock()
	for _, p := range victims {
		p.Kill()
	}
	return len(victims)
}

// Kill kills the process at once (SIGKILL to its group, as a crash) and
// waits for it to end.
func (p *Process) Kill() {
	_ = proc.KillGroup(p.cmd)
	<-p.done
}
