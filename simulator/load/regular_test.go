package load

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadRegular: the one way in reads regular files only, within its
// limit, and a named pipe is refused at once rather than waited on
// (docs/limits.md).
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadRegular(small, 7); err != nil || string(data) != `{"a":1}` {
		t.Errorf("ReadRegular(7 bytes, max 7) = %q, %v", data, err)
	}
	var le *LimitError
	if _, err := ReadRegular(small, 6); !errors.As(err, &le) {
		t.Errorf("ReadRegular(7 bytes, max 6) = %v, want a *LimitError", err)
	}
	fifo := filepath.Join(dir, "results-x.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadRegular(fifo, 1<<20); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("ReadRegular(fifo) = %v, want a named pipe refused", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadRegular blocked on a named pipe")
	}
	if _, err := ReadRegular("/dev/zero", 1<<20); err == nil || !strings.Contains(err.Error(), "character device") {
		t.Errorf("ReadRegular(/dev/zero) = %v, want a device refused", err)
	}
	link := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRegular(link, 1<<20); err == nil || !strings.Contains(err.Error(), "character device") {
		t.Errorf("ReadRegular(symlink to /dev/zero) = %v, want a device refused", err)
	}
	if _, err := ReadRegular(dir, 1<<20); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("ReadRegular(dir) = %v, want a directory refused", err)
	}
}

// TestReadRegularNotExist: a missing file is fs.ErrNotExist, said without
// the path.
func TestReadRegularNotExist(t *testing.T) {
	_, err := ReadRegular(filepath.Join(t.TempDir(), "none.json"), 10)
	if !errors.Is(err, os.ErrNotExist) || err.Error() != "no such file or directory" {
		t.Errorf("ReadRegular(missing) = %v", err)
	}
}
