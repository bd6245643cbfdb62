// Package exec is the implementation that runs any command speaking the
// protocol of docs/exec-protocol.md: an implementation in any language,
// judged offline.
package exec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/simulator/load"
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
	// Env adds NAME=value variables to the command's environment.
	Env []string
	// CompareConditions lists the condition types compared (nil: all).
	CompareConditions []string
}

// Name implements observe.Observer.
func (e *Exec) Name() string { return "exec:" + filepath.Base(e.Command[0]) }

// Capabilities implements observe.Observer.
func (e *Exec) Capabilities() observe.Capabilities {
	return observe.Capabilities{Features: e.Features, Conditions: e.CompareConditions}
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
	for i := range cases {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			out[i] = e.observe(ctx, cases[i])
		}(i)
	}
	wg.Wait()
	return out, ctx.Err()
}

func (e *Exec) observe(ctx context.Context, c observe.Case) observe.Observation {
	timeout := e.Timeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "gepcheck-exec-")
	if err != nil {
		return observe.Observation{Name: c.Name, Error: err.Error()}
	}
	defer os.RemoveAll(dir)
	docs, err := load.Read([]string{"-"}, strings.NewReader(c.YAML))
	if err != nil {
		return observe.Observation{Name: c.Name, Error: "the case does not load: " + err.Error()}
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
			return observe.Observation{Name: c.Name, Error: err.Error()}
		}
		stdin.WriteString("---\n")
		stdin.Write(y)
	}
	js, _ := json.Marshal(raw)
	jsonFile := filepath.Join(dir, "case.json")
	if err := os.WriteFile(jsonFile, js, 0o600); err != nil {
		return observe.Observation{Name: c.Name, Error: err.Error()}
	}
	cmd := osexec.CommandContext(ctx, e.Command[0], e.Command[1:]...)
	cmd.Stdin = strings.NewReader(stdin.String())
	cmd.Env = append(os.Environ(), "GEPCHECK_CASE_JSON="+jsonFile, "GEPCHECK_CASE_NAME="+c.Name,
		"GEPCHECK_PROFILES="+strings.Join(c.Profiles, ","))
	cmd.Env = append(cmd.Env, e.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return observe.Observation{Name: c.Name, Error: fmt.Sprintf("timed out after %s", timeout)}
	case err != nil:
		return observe.Observation{Name: c.Name, Error: fmt.Sprintf("%v: %s", err, lastLine(stderr.String()))}
	}
	var o observe.Observation
	dec := json.NewDecoder(&stdout)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return observe.Observation{Name: c.Name, Error: "stdout is not an observation (docs/exec-protocol.md): " + err.Error()}
	}
	o.Name = c.Name
	o.Normalize()
	return o
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
