package exec

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/google/shlex"
	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/internal/shell"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/suite/features"
	"github.com/gepcheck/gepcheck/suite/incluster"
	"github.com/gepcheck/gepcheck/suite/observe"
)

func init() { impl.Register(plugin{}) }

type plugin struct{}

func (plugin) Name() string { return "exec" }

func (plugin) Doc() string { return "any command speaking docs/exec-protocol.md, with --exec-command" }

func (plugin) Configure(fs *pflag.FlagSet) impl.Config {
	c := &config{fs: fs}
	fs.StringVar(&c.command, "exec-command", "", "command speaking docs/exec-protocol.md, for --impl exec")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Second, "time limit per case")
	fs.Int64Var(&c.maxOutput, "exec-max-output", DefaultMaxOutput, fmt.Sprintf("most bytes of stdout read from the command per case, for --impl exec (at most %d); more fails the case", MaxMaxOutput))
	fs.StringSliceVar(&c.features, "exec-features", nil, "features the command supports, for --impl exec: policy kinds (ColorPolicy, …) and ObjectFields; cases needing another are skipped (default: all)")
	fs.StringArrayVar(&c.profiles, "exec-profile", nil, "KIND=PROFILE: the profile the command claims for a policy kind, for --impl exec (e.g. ColorPolicy=color-direct); cases read with another profile of the kind are skipped; repeatable (default: any)")
	fs.StringSliceVar(&c.conditions, "exec-conditions", nil, "policy condition types the command writes and gepcheck compares, for --impl exec (e.g. Accepted); the others are not judged (default: all)")
	fs.BoolVar(&c.noTimestamps, "exec-ignores-creation-timestamps", false, "for --impl exec: the command reads no metadata.creationTimestamp, so the reference reads none either (GEP-713 Conflict resolution rule 3 decides where rule 2 would)")
	fs.StringVar(&c.ancestors, "exec-ancestor-entries", "gateway", "for --impl exec: the status per ancestor the command writes (Gateway API PolicyAncestorStatus): gateway (one entry per Gateway) or listener (one per Gateway listener); docs/semantics.md")
	return c
}

type config struct {
	command      string
	timeout      time.Duration
	maxOutput    int64
	features     []string
	profiles     []string
	conditions   []string
	noTimestamps bool
	ancestors    string
	fs           *pflag.FlagSet
}

// claimedProfiles reads --exec-profile KIND=PROFILE values: each a policy
// kind and a profile name, a built-in one of that kind or one the cases
// bring; a kind claimed once.
func claimedProfiles(values []string) (map[string]string, error) {
	if len(values) == 0 {
		return nil, nil
	}
	builtins, err := profile.Builtins()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, v := range values {
		kind, name, ok := strings.Cut(v, "=")
		if !ok || kind == "" || name == "" {
			return nil, exitcode.Input{Err: fmt.Errorf("--exec-profile %q: want KIND=PROFILE (e.g. ColorPolicy=color-direct)", ref.Printable(v))}
		}
		if p := builtins[name]; p != nil && p.Spec.Policy.Kind != kind {
			return nil, exitcode.Input{Err: fmt.Errorf("--exec-profile %s: the built-in profile %s is for %s, not %s", ref.Printable(v), name, p.Spec.Policy.Kind, ref.Printable(kind))}
		}
		if prev, dup := out[kind]; dup && prev != name {
			return nil, exitcode.Input{Err: fmt.Errorf("--exec-profile %s: %s is already claimed as %s", ref.Printable(v), ref.Printable(kind), prev)}
		}
		out[kind] = name
	}
	return out, nil
}

func (c *config) Offline(context.Context) (observe.Observer, error) {
	args, err := shlex.Split(c.command)
	if err != nil || len(args) == 0 {
		return nil, exitcode.Input{Err: fmt.Errorf("--impl exec needs --exec-command: %v", err)}
	}
	path, err := osexec.LookPath(args[0])
	if err != nil {
		return nil, exitcode.Input{Err: fmt.Errorf("--exec-command: %w", err)}
	}
	if err := runnable(path); err != nil {
		return nil, &CommandError{Command: c.command, Err: err}
	}
	if c.timeout <= 0 {
		return nil, exitcode.Input{Err: fmt.Errorf("--timeout %s: must be more than 0", c.timeout)}
	}
	if c.maxOutput < 1 || c.maxOutput > MaxMaxOutput {
		return nil, exitcode.Input{Err: fmt.Errorf("--exec-max-output %d: between 1 and %d bytes", c.maxOutput, MaxMaxOutput)}
	}
	var fs features.Set
	for _, f := range c.features {
		fs = append(fs, features.Name(f))
	}
	profiles, err := claimedProfiles(c.profiles)
	if err != nil {
		return nil, err
	}
	anc, err := simulator.ParseAncestorEntries(c.ancestors)
	if err != nil {
		return nil, exitcode.Input{Err: fmt.Errorf("--exec-ancestor-entries: %w", err)}
	}
	return &Exec{AncestorEntries: anc, Command: args, Timeout: c.timeout, MaxOutput: c.maxOutput, Parallelism: 2, Features: fs, Profiles: profiles,
		CompareConditions: c.conditions, IgnoresCreationTimestamps: c.noTimestamps}, nil
}

func (c *config) InCluster(context.Context) (incluster.Implementation, error) {
	return nil, impl.ErrUnsupported
}

// ReplayFlags are the flags of the implementation that a replay command
// repeats: the command and the limits it was given.
func (c *config) ReplayFlags() []string {
	out := []string{"--exec-command", shell.Quote(c.command)}
	for _, name := range []string{"timeout", "exec-max-output", "exec-features", "exec-profile", "exec-conditions", "exec-ignores-creation-timestamps", "exec-ancestor-entries"} {
		f := c.fs.Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		// A list flag is given once per value: its String() ("[a,b]")
		// would read back as other values.
		values := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			values = sv.GetSlice()
		}
		for _, v := range values {
			out = append(out, "--"+name+"="+shell.Quote(v))
		}
	}
	return out
}

// runnable refuses a file the system cannot execute, before any case:
// neither an ELF binary nor a script starting with #! and an interpreter
// that exists (execve(2) fails with ENOEXEC or ENOENT).
func runnable(path string) error {
	// Only a regular file is opened (a named pipe would wait).
	if info, err := os.Stat(path); err != nil {
		return err
	} else if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte("\x7fELF")):
		return nil
	case bytes.HasPrefix(head, []byte("#!")):
		line, _, _ := bytes.Cut(head[2:], []byte("\n"))
		fields := strings.Fields(string(line))
		if len(fields) == 0 {
			return fmt.Errorf("%s: the #! line names no interpreter", path)
		}
		if fi, err := os.Stat(fields[0]); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return fmt.Errorf("%s: the interpreter of its #! line, %s, is not an executable file", path, ref.Printable(fields[0]))
		}
		return nil
	}
	return fmt.Errorf("%s: %w (neither an ELF executable nor a script starting with #!)", path, syscall.ENOEXEC)
}
