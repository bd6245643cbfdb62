package cluster

import (
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
