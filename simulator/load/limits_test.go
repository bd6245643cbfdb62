package load

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs f, failing the test if it does not return in time: reading
// a device or a named pipe must be refused, not started.
func within(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("still reading after 10 s")
		return nil
	}
}

// Only regular files, directories and standard input are read, each within
// MaxBytes, and at most MaxDocuments documents in all; every refusal names
// the file and the limit.
func TestReadLimits(t *testing.T) {
	dir := t.TempDir()
	obj := "apiVersion: v1\nkind: Service\nmetadata: {name: s%d}\n---\n"
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := write("big.yaml", strings.Repeat("# padding\n", 200))
	var many strings.Builder
	for i := range 5 {
		fmt.Fprintf(&many, obj, i)
	}
	manyFile := write("many.yaml", many.String())
	devDir := filepath.Join(dir, "dev")
	if err := os.Mkdir(devDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(devDir, "zero.yaml")); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	for _, tc := range []struct {
		name  string
		paths []string
		stdin string
		lim   Limits
		want  []string
	}{
		{"file over MaxBytes", []string{big}, "", Limits{MaxBytes: 1000}, []string{"big.yaml", "2000 bytes", "limit of 1000", "--max-bytes"}},
		{"stdin over MaxBytes", []string{"-"}, strings.Repeat("#\n", 600), Limits{MaxBytes: 1000}, []string{StdinName, "limit of 1000 bytes"}},
		{"documents over MaxDocuments", []string{manyFile}, "", Limits{MaxDocuments: 3}, []string{"many.yaml", "document 4", "more than 3 documents", "--max-documents"}},
		{"a device in a directory", []string{devDir}, "", Limits{}, []string{"zero.yaml", "character device", "not a regular file"}},
		{"a named pipe", []string{fifo}, "", Limits{}, []string{"pipe.yaml", "named pipe"}},
		{"a named pipe in a directory", []string{dir}, "", Limits{MaxBytes: 1 << 20}, []string{"pipe.yaml", "named pipe"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := within(t, func() error {
				_, err := ReadLimited(tc.paths, strings.NewReader(tc.stdin), tc.lim)
				return err
			})
			if err == nil {
				t.Fatal("read without an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q: %v", w, err)
				}
			}
		})
	}
	// Within the limits the same files read.
	docs, err := ReadLimited([]string{manyFile}, nil, Limits{MaxDocuments: 5})
	if err != nil || len(docs) != 5 {
		t.Errorf("5 documents within a limit of 5: %d, %v", len(docs), err)
	}
}

// Every document is read, whatever the stream's shape: JSON values one
// after another (kubectl reads them), YAML's document end "...", CRLF and
// lone-CR line ends, a byte order mark. Each used to lose every document but
// the first.
func TestReadEveryDocument(t *testing.T) {
	svc := func(name, nl string) string {
		return "apiVersion: v1" + nl + "kind: Service" + nl + "metadata: {name: " + name + "}" + nl
	}
	for _, tc := range []struct {
		name, data string
		lines      []int
	}{
		{"JSON stream", `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a"}}` + "\n\n" +
			`{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "b"}}` + "\n", []int{1, 3}},
		{"document end", svc("a", "\n") + "...\n" + svc("b", "\n"), []int{1, 5}},
		{"CRLF", svc("a", "\r\n") + "---\r\n" + svc("b", "\r\n"), []int{1, 5}},
		{"lone CR", svc("a", "\r") + "---\r" + svc("b", "\r"), []int{1, 5}},
		{"byte order mark", "\xef\xbb\xbf" + svc("a", "\n") + "---\n" + svc("b", "\n"), []int{1, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := Read([]string{"-"}, strings.NewReader(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if len(docs) != 2 || docs[0].Name != "a" || docs[1].Name != "b" {
				t.Fatalf("read %d documents, want a and b", len(docs))
			}
			for i, d := range docs {
				if d.Source.Doc != i+1 || d.Source.Line != tc.lines[i] {
					t.Errorf("%s at %s, want document %d, line %d", d.Name, d.Source, i+1, tc.lines[i])
				}
			}
		})
	}
}

// A document nested deeper than MaxDepth is refused, naming the object and
// the first field too deep; one exactly at the limit is read.
func TestReadDepth(t *testing.T) {
	// The Service mapping is level 1, spec 2, a 3, b 4, c 5: five levels.
	doc := "apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: ns}\nspec:\n  z: {}\n  a:\n    b:\n      c: [x]\n"
	read := func(max int) ([]*Doc, error) {
		return ReadLimited([]string{"-"}, strings.NewReader(doc), Limits{MaxDepth: max})
	}
	if docs, err := read(5); err != nil || len(docs) != 1 {
		t.Fatalf("at the limit: %d documents, %v", len(docs), err)
	}
	_, err := read(4)
	want := "<stdin>: document 1 (line 1): Service ns/s: field spec.a.b.c: nested more than 4 levels deep (the limit; --max-depth raises it)"
	if err == nil || err.Error() != want {
		t.Fatalf("over the limit:\n got %v\nwant %s", err, want)
	}
	// Deeper than the goroutine's first stack, within the parser's own
	// limit of 10,000.
	deep := "a: " + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + "\n"
	_, err = ReadLimited([]string{"-"}, strings.NewReader(deep), Limits{})
	if err == nil || !strings.Contains(err.Error(), "nested more than 100 levels") {
		t.Fatalf("9,000 levels: %v", err)
	}
}
