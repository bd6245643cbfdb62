// Package exec is the implementation that runs any command speaking the
// protocol of docs/exec-protocol.md: an implementation in any language,
// judged offline.
package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/internal/proc"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/suite/features"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// Exec observes cases with any command, one process per case, speaking the
// protocol of docs/exec-protocol.md: the case's YAML on stdin (and the same
// documents as a JSON array in the file named by GEPCHECK_CASE_JSON), an
// observe.Observation as JSON on stdout, exit code 0.
type Exec struct {
	// Command and its arguments.
	Command []string
	// Features the command supports (policy kinds, "sectionName", …);
	// nil: everything.
	Features features.Set
	// Timeout per case (10s when zero) and processes run at once (1 when
	// zero).
	Timeout     time.Duration
	Parallelism int
	// MaxOutput is the most bytes of stdout read (DefaultMaxOutput when
	// zero): past it the case fails and the command is killed.
	MaxOutput int64
	// Env adds NAME=value variables to the command's environment.
	Env []string
	// CompareConditions lists the condition types compared (nil: all).
	CompareConditions []string
	// Profiles names the profile the command claims per policy kind
	// (observe.Capabilities.Profiles; nil: any).
	Profiles map[string]string
	// IgnoresCreationTimestamps says the command reads no
	// metadata.creationTimestamp (observe.Capabilities).
	IgnoresCreationTimestamps bool
	// AncestorEntries is the reading of status per ancestor the command
	// claims (observe.Capabilities.AncestorEntries).
	AncestorEntries simulator.AncestorEntries
}

// Limits of a command's output (docs/limits.md, "Implementations").
const (
	DefaultMaxOutput = 64 << 20 // bytes of stdout
	MaxMaxOutput     = 1 << 30  // the most --exec-max-output may be
	StderrTail       = 64 << 10 // bytes of stderr kept, the last
	// WaitDelay is how long the output of a command that has exited is
	// still read: a process it started that holds stdout open longer is
	// killed with it.
	WaitDelay = time.Second
)

// CommandError is a command that cannot be run at all (not found, not
// executable, not a format the system runs): the user's to mend, not the
// implementation's fault: bad input (exit 2, exitcode.BadInput), its
// message naming the flag first.
type CommandError struct {
	Command string
	Err     error
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("--exec-command %s cannot be run: %v", ref.Printable(e.Command), e.Err)
}

func (e *CommandError) Unwrap() error { return e.Err }

// ExitCode implements exitcode.Coder: the user's input.
func (*CommandError) ExitCode() int { return exitcode.BadInput }

// Name implements observe.Observer.
func (e *Exec) Name() string { return "exec:" + filepath.Base(e.Command[0]) }

// Capabilities implements observe.Observer.
func (e *Exec) Capabilities() observe.Capabilities {
	return observe.Capabilities{Features: e.Features, Conditions: e.CompareConditions, Profiles: e.Profiles, IgnoresCreationTimestamps: e.IgnoresCreationTimestamps, AncestorEntries: e.AncestorEntries}
}

// Observe implements observe.Observer. A case whose process fails, times out or
// prints something that is not an observation gets an observe.Observation with
// Error set; the batch goes on.
func (e *Exec) Observe(ctx context.Context, cases []observe.Case) ([]observe.Observation, error) {
	if len(e.Command) == 0 {
		return nil, fmt.Errorf("exec driver: no command")
	}
	out := make([]observe.Observation, len(cases))
	n := e.Parallelism
	if n < 1 {
		n = 1
	}
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var cannot error
	for i := range cases {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			var err error
			out[i], err = e.observe(ctx, cases[i])
			if err != nil {
				mu.Lock()
				cannot = err
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	if cannot != nil {
		return nil, cannot
	}
	return out, ctx.Err()
}

// observe runs the command on one case. The error is a *CommandError, when
// the command cannot be started at all; every fault of the implementation
// is the observation's Error.
func (e *Exec) observe(ctx context.Context, c observe.Case) (observe.Observation, error) {
	fail := func(format string, a ...any) (observe.Observation, error) {
		return observe.Observation{Name: c.Name, Error: fmt.Sprintf(format, a...)}, nil
	}
	timeout := e.Timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	maxOut := e.MaxOutput
	if maxOut == 0 {
		maxOut = DefaultMaxOutput
	}
	dir, err := os.MkdirTemp("", "gepcheck-exec-")
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(dir)
	docs, err := load.Read([]string{"-"}, strings.NewReader(c.YAML))
	if err != nil {
		return fail("the case does not load: %v", err)
	}
	// The command gets the objects, not the answer: a scenario file's
	// Scenario (its expected outcome) and Finding documents stay here.
	raw := []any{}
	var stdin strings.Builder
	for _, d := range docs {
		if d.Group == "gepcheck.dev" && (d.Kind == "Scenario" || d.Kind == "Finding") {
			continue
		}
		raw = append(raw, d.Raw)
		y, err := yaml.Marshal(d.Raw)
		if err != nil {
			return fail("%v", err)
		}
		stdin.WriteString("---\n")
		stdin.Write(y)
	}
	js, _ := json.Marshal(raw)
	jsonFile := filepath.Join(dir, "case.json")
	if err := os.WriteFile(jsonFile, js, 0o600); err != nil {
		return fail("%v", err)
	}
	// The timeout is the command's: it starts here, not before the case's
	// files are written.
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := osexec.CommandContext(ctx, e.Command[0], e.Command[1:]...)
	proc.Contain(cmd, WaitDelay)
	cmd.Stdin = strings.NewReader(stdin.String())
	cmd.Env = append(os.Environ(), "GEPCHECK_CASE_JSON="+jsonFile, "GEPCHECK_CASE_NAME="+c.Name,
		"GEPCHECK_PROFILES="+strings.Join(c.Profiles, ","))
	cmd.Env = append(cmd.Env, e.Env...)
	stdout := &proc.Head{What: "stdout", Limit: maxOut, OnCut: cancel}
	stderr := &proc.Tail{Limit: StderrTail}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		return observe.Observation{}, &CommandError{Command: strings.Join(e.Command, " "), Err: err}
	}
	err = cmd.Wait()
	_ = proc.KillGroup(cmd) // what it started and left behind
	switch {
	case stdout.Cut():
		return fail("stdout is over the limit of %d bytes (--exec-max-output; docs/exec-protocol.md)", maxOut)
	case ctx.Err() == context.DeadlineExceeded:
		return fail("timed out after %s", timeout)
	case errors.Is(err, osexec.ErrWaitDelay):
		return fail("a process the command started held its stdout or stderr open %s after it exited (docs/exec-protocol.md)", WaitDelay)
	case err != nil:
		return fail("%v: %s", err, lastLine(stderr.String()))
	}
	o, err := decode(stdout.Bytes())
	if err != nil {
		return fail("stdout is not an observation (docs/exec-protocol.md): %v", err)
	}
	o.Name = c.Name
	o.Normalize()
	return o, nil
}

// decode reads stdout strictly (docs/exec-protocol.md): one JSON object,
// no unknown field, nothing but white space after it.
func decode(out []byte) (observe.Observation, error) {
	var o observe.Observation
	if t := bytes.TrimLeft(out, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return o, errors.New("want one JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return o, err
	}
	if rest := bytes.TrimLeft(out[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return o, fmt.Errorf("%d more bytes after the observation (one observation, nothing after it): %.40q", len(rest), rest)
	}
	return o, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
