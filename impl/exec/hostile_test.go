package exec

import (
	"cmp"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/internal/proc"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/observe"
)

var hostileCase = observe.Case{Name: "c", YAML: "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"}

// The hostile implementations of testdata/ fail their case, within the
// time limit, with memory bounded by --exec-max-output, naming what they
// did, and leave no process behind (issue 28: implementations contained).
func TestHostileImplementations(t *testing.T) {
	for _, tc := range []struct {
		script  string
		want    string
		timeout time.Duration // 1s when zero
	}{
		{"forever.sh", "stdout is over the limit of 65536 bytes (--exec-max-output", 0},
		{"huge-string.sh", "stdout is over the limit of 65536 bytes", 0},
		{"grandchild.sh", "timed out after 1s", 0},
		{"leaves-grandchild.sh", "held its stdout or stderr open", 5 * time.Second},
		{"two-observations.sh", "more bytes after the observation", 0},
		{"trailing-garbage.sh", "more bytes after the observation", 0},
		{"null.sh", "want one JSON object", 0},
	} {
		t.Run(tc.script, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pid")
			timeout := cmp.Or(tc.timeout, time.Second)
			d := &Exec{Command: []string{"testdata/" + tc.script}, Timeout: timeout, MaxOutput: 64 << 10, Env: []string{"PIDFILE=" + pidFile}}
			start := time.Now()
			obs, err := d.Observe(context.Background(), []observe.Case{hostileCase})
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > timeout+10*time.Second {
				t.Errorf("took %s with a time limit of %s", took, timeout)
			}
			if !strings.Contains(obs[0].Error, tc.want) {
				t.Errorf("error %q does not say %q", obs[0].Error, tc.want)
			}
			if len(compare.Diff(observe.Observation{}, obs[0], observe.Capabilities{})) == 0 {
				t.Errorf("a failed case compares equal to an empty observation")
			}
			if data, err := os.ReadFile(pidFile); err == nil {
				pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
				for i := 0; !proc.GroupGone(pid); i++ {
					if i == 100 {
						t.Fatalf("a process of the command's group %d is still there", pid)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
}

// A process group that outlives its case would be found by
// TestHostileImplementations: the check itself finds a live group.
func TestGroupGoneSeesALiveGroup(t *testing.T) {
	p, err := os.StartProcess("/bin/sleep", []string{"sleep", "5"}, &os.ProcAttr{Sys: &syscall.SysProcAttr{Setpgid: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Kill(); _, _ = p.Wait() }()
	if proc.GroupGone(p.Pid) {
		t.Errorf("GroupGone(%d) with the group's leader alive", p.Pid)
	}
}

// Paths, refs and reasons an implementation returns are printed escaped:
// no escape sequence, carriage return or bidirectional override reaches the
// terminal.
func TestEscapesArePrintedEscaped(t *testing.T) {
	d := &Exec{Command: []string{"testdata/escapes.sh"}}
	obs, err := d.Observe(context.Background(), []observe.Case{hostileCase})
	if err != nil {
		t.Fatal(err)
	}
	if obs[0].Error != "" {
		t.Fatal(obs[0].Error)
	}
	diff := compare.Strings(compare.Diff(observe.Observation{}, obs[0], observe.Capabilities{}))
	if len(diff) == 0 {
		t.Fatal("no difference")
	}
	text := strings.Join(diff, "\n")
	for _, bad := range []string{"\x1b", "\r", "\u202e"} {
		if strings.Contains(text, bad) {
			t.Errorf("printed %q raw:\n%s", bad, text)
		}
	}
	if !strings.Contains(text, `\x1b[2J`) {
		t.Errorf("the escape is not shown escaped:\n%s", text)
	}
}

// A command that cannot be run at all is the user's to mend: --impl exec
// refuses it before any case, naming it, with a message that starts with
// the flag (bad input, exit code 2); Observe returns a *CommandError
// rather than blaming the implementation case by case.
func TestCommandsThatCannotRun(t *testing.T) {
	for script, want := range map[string]string{
		"no-shebang.sh":      "exec format error",
		"bad-interpreter.sh": "the interpreter of its #! line",
		"not-executable.sh":  "permission denied",
		"missing.sh":         "no such file",
	} {
		t.Run(script, func(t *testing.T) {
			cfg := plugin{}.Configure(pflag.NewFlagSet("", pflag.ContinueOnError)).(*config)
			cfg.command = "testdata/" + script
			_, err := cfg.Offline(context.Background())
			if err == nil || !strings.HasPrefix(err.Error(), "--exec-command") || !strings.Contains(err.Error(), want) || exitcode.Of(err) != exitcode.BadInput {
				t.Errorf("Offline: %v (exit %d), want bad input starting --exec-command and saying %q", err, exitcode.Of(err), want)
			}
		})
	}
	_, err := (&Exec{Command: []string{"testdata/no-shebang.sh"}}).Observe(context.Background(), []observe.Case{hostileCase})
	var ce *CommandError
	if !errors.As(err, &ce) || !errors.Is(err, syscall.ENOEXEC) {
		t.Errorf("Observe: %v, want a *CommandError of ENOEXEC", err)
	}
}

// Limits out of range are refused naming the flag and the limit.
func TestFlagLimits(t *testing.T) {
	for args, want := range map[string]string{
		"--timeout=0":                   "--timeout 0s: must be more than 0",
		"--timeout=-1s":                 "--timeout -1s: must be more than 0",
		"--exec-max-output=0":           "--exec-max-output 0: between 1 and 1073741824 bytes",
		"--exec-max-output=99999999999": "--exec-max-output 99999999999: between 1 and 1073741824 bytes",
	} {
		fs := pflag.NewFlagSet("", pflag.ContinueOnError)
		cfg := plugin{}.Configure(fs).(*config)
		if err := fs.Parse([]string{"--exec-command=testdata/two-observations.sh", args}); err != nil {
			t.Fatal(err)
		}
		if _, err := cfg.Offline(context.Background()); err == nil || err.Error() != want || exitcode.Of(err) != exitcode.BadInput {
			t.Errorf("%s: %v (exit %d), want bad input %q", args, err, exitcode.Of(err), want)
		}
	}
}

// The replay flags repeat the command, shell-quoted, and the limits given.
func TestReplayFlags(t *testing.T) {
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	cfg := plugin{}.Configure(fs).(*config)
	if err := fs.Parse([]string{"--exec-command=python3 'my impl.py'", "--timeout=3s", "--exec-features", "ColorPolicy,ObjectFields"}); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(cfg.ReplayFlags(), " ")
	// A list flag once per value: "--exec-features=[a,b]" would read
	// back as the features "[a" and "b]".
	want := `--exec-command 'python3 '\''my impl.py'\''' --timeout=3s --exec-features=ColorPolicy --exec-features=ObjectFields`
	if got != want {
		t.Errorf("ReplayFlags: %s, want %s", got, want)
	}
	// And they read back as given.
	again := pflag.NewFlagSet("", pflag.ContinueOnError)
	cfg2 := plugin{}.Configure(again).(*config)
	if err := again.Parse(cfg.ReplayFlags()[2:]); err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg2.features, ",") != "ColorPolicy,ObjectFields" {
		t.Errorf("replayed features: %q", cfg2.features)
	}
}
