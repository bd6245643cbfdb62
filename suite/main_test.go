package suite

import (
	"os"
	"runtime/debug"
	"testing"
)

func TestMain(m *testing.M) {
	debug.SetGCPercent(gcPercent) // as RunAll does; see runner.go
	os.Exit(m.Run())
}
