package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// corpusCase is one input of testdata/corpus and what gepcheck must do
// with it (testdata/corpus/README.md).
type corpusCase struct {
	file    string
	class   string
	code    int
	wants   []string
	nots    []string
	args    []string
	command string
	stdin   bool
}

var wantLine = regexp.MustCompile(`^# (class|want|not|args|command|stdin): ?(.*)$`)

// readCase reads a case's expectations from the comment lines at the top
// of the file, or of file.want when the file cannot carry comments (JSON,
// a byte order mark, odd line endings).
func readCase(t *testing.T, file string) corpusCase {
	t.Helper()
	c := corpusCase{file: file, command: "simulate", code: -1}
	src := file
	if _, err := os.Stat(file + ".want"); err == nil {
		src = file + ".want"
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		m := wantLine.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			if strings.HasPrefix(line, "#") {
				continue
			}
			break
		}
		switch v := m[2]; m[1] {
		case "class":
			c.class = v
		case "args":
			c.args = strings.Fields(v)
		case "command":
			c.command = v
		case "stdin":
			c.stdin = v == "true"
		case "not":
			var frag string
			if err := json.Unmarshal([]byte(v), &frag); err != nil {
				t.Fatalf("%s: not %s: %v", src, v, err)
			}
			c.nots = append(c.nots, frag)
		case "want":
			if code, ok := strings.CutPrefix(v, "exit "); ok {
				if c.code, err = strconv.Atoi(code); err != nil {
					t.Fatalf("%s: %q", src, line)
				}
				continue
			}
			var frag string
			if err := json.Unmarshal([]byte(v), &frag); err != nil {
				t.Fatalf("%s: want %s: %v", src, v, err)
			}
			c.wants = append(c.wants, frag)
		}
	}
	if c.code < 0 || c.class == "" {
		t.Fatalf("%s: no '# want: exit N' or '# class:' line", src)
	}
	return c
}

// TestCorpus runs every input of the bad-input corpus through the CLI:
// the exit code and every message fragment as its file says, never a panic
// or a goroutine dump, and never a hang (a case still running after a
// minute fails the test; no case is timed otherwise).
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*")
	if err != nil {
		t.Fatal(err)
	}
	classes := map[string]int{}
	n := 0
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.IsDir() || strings.HasSuffix(f, ".want") || strings.HasSuffix(f, ".md") {
			continue
		}
		c := readCase(t, f)
		n++
		classes[c.class]++
		t.Run(filepath.Base(f), func(t *testing.T) {
			args := strings.Fields(c.command)
			var stdin []byte
			// A case's {out} is a folder deep in a fresh one (base), so
			// that a path that climbs out of it still lands in base and
			// is seen there.
			base := t.TempDir()
			out := filepath.Join(base, "a", "b", "c", "out")
			for i, a := range c.args {
				c.args[i] = strings.ReplaceAll(a, "{out}", out)
			}
			// Nothing is written outside the folder named, whatever else
			// fails.
			defer func() {
				_ = filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
					if err == nil && !d.IsDir() && !strings.HasPrefix(p, out+string(filepath.Separator)) {
						t.Errorf("%s written, outside %s", p, out)
					}
					return nil
				})
			}()
			switch {
			case c.command == "check" || strings.HasPrefix(c.command, "report"):
				args = append(args, f)
			case c.stdin:
				stdin, _ = os.ReadFile(f)
				args = append(args, "-f", "-")
			default:
				args = append(args, "-f", f)
			}
			args = append(args, c.args...)
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run(args, bytes.NewReader(stdin), &stdout, &stderr) }()
			var code int
			select {
			case code = <-done:
			case <-time.After(time.Minute):
				t.Fatalf("gepcheck %s: still running after a minute", strings.Join(args, " "))
			}
			output := stdout.String() + stderr.String()
			if code != c.code {
				t.Fatalf("gepcheck %s: exit %d, want %d\n%.3000s", strings.Join(args, " "), code, c.code, output)
			}
			if strings.Contains(output, "panic") || regexp.MustCompile(`goroutine \d+`).MatchString(output) {
				t.Fatalf("a panic or goroutine dump:\n%.3000s", output)
			}
			for _, w := range c.wants {
				if !strings.Contains(output, w) {
					t.Errorf("output does not say %q:\n%.3000s", w, output)
				}
			}
			for _, w := range c.nots {
				if strings.Contains(output, w) {
					t.Errorf("output says %q:\n%.3000s", w, output)
				}
			}
		})
	}
	if n < 60 {
		t.Errorf("%d cases in testdata/corpus, want at least 60", n)
	}
	t.Logf("%d cases: %v", n, classes)
}
