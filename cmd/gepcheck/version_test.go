package main

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/internal/exitcode"
)

// TestVersion: gepcheck version and gepcheck --version print the same
// line, which names the Go version that built the binary, and -o json
// gives the same values as fields. (hack/cli-test.sh checks that the
// built binary names the commit of HEAD.)
func TestVersion(t *testing.T) {
	code, text, stderr := gepcheck([]string{"version"}, "")
	if code != 0 {
		t.Fatalf("version: exit %d: %s", code, stderr)
	}
	code, flag, stderr := gepcheck([]string{"--version"}, "")
	if code != 0 {
		t.Fatalf("--version: exit %d: %s", code, stderr)
	}
	if text != flag {
		t.Errorf("version printed %q, --version %q", text, flag)
	}
	if !strings.HasPrefix(text, "gepcheck ") || !strings.Contains(text, ", commit ") || !strings.HasSuffix(text, ", "+runtime.Version()+"\n") {
		t.Errorf("version printed %q: want gepcheck VERSION, commit COMMIT, %s", text, runtime.Version())
	}
	code, js, stderr := gepcheck([]string{"version", "-o", "json"}, "")
	if code != 0 {
		t.Fatalf("version -o json: exit %d: %s", code, stderr)
	}
	var got struct{ Version, Commit, Go string }
	if err := json.Unmarshal([]byte(js), &got); err != nil {
		t.Fatalf("version -o json: %v\n%s", err, js)
	}
	bi, _ := debug.ReadBuildInfo()
	want := bi.Main.Version
	if want == "" || want == "(devel)" {
		want = "devel"
	}
	if got.Version != want || got.Go != runtime.Version() {
		t.Errorf("version -o json = %+v, want version %s, go %s", got, want, runtime.Version())
	}
	if !strings.HasPrefix(text, "gepcheck "+want+", ") {
		t.Errorf("version printed %q, want the module version %s", text, want)
	}
	if code, _, _ := gepcheck([]string{"version", "extra"}, ""); code != exitcode.BadInput {
		t.Errorf("version extra: exit %d, want %d", code, exitcode.BadInput)
	}
}
