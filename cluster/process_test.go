package cluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/internal/proc"
)

// No process a Process started outlives it: not when it is stopped, not
// when it exits leaving a child behind (issue 28: every process gepcheck
// starts contained).
func TestProcessLeavesNothing(t *testing.T) {
	for name, script := range map[string]string{
		"stopped":        "sleep 30 & wait",
		"leaves a child": "sleep 30 & exit 0",
	} {
		t.Run(name, func(t *testing.T) {
			p, err := Start(name, exec.Command("sh", "-c", script), filepath.Join(t.TempDir(), "log"))
			if err != nil {
				t.Fatal(err)
			}
			if name == "stopped" {
				p.Stop(time.Second)
			}
			for p.Exited() == nil {
				time.Sleep(20 * time.Millisecond)
			}
			for i := 0; !proc.GroupGone(p.Pid()); i++ {
				if i == 100 {
					t.Fatalf("a process of the group %d is still there", p.Pid())
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// Kill kills what logs in its directory, a process that ignores SIGTERM
// too, and nothing else (docs/faults.md, restart).
func TestKill(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	var mine []*Process
	for i, script := range []string{"trap '' TERM; sleep 30 & wait", "sleep 30"} {
		p, err := Start("mine", exec.Command("sh", "-c", script), filepath.Join(dir, "sub", fmt.Sprint(i)+".log"))
		if err != nil {
			t.Fatal(err)
		}
		mine = append(mine, p)
	}
	theirs, err := Start("theirs", exec.Command("sleep", "30"), filepath.Join(other, "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer theirs.Stop(time.Second)
	if n := Kill(dir); n != 2 {
		t.Fatalf("Kill killed %d, want 2", n)
	}
	for _, p := range mine {
		if p.Exited() == nil {
			t.Fatalf("%s still runs after Kill", p.Log)
		}
	}
	if theirs.Exited() != nil {
		t.Fatal("Kill killed a process outside its directory")
	}
	if n := Kill(dir); n != 0 {
		t.Fatalf("a second Kill killed %d", n)
	}
}
