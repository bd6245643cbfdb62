package campaign

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/reports/report"
	"github.com/gepcheck/gepcheck/suite/compare"
)

// fuzz --fail-on-new (make ci's Envoy Gateway campaigns) passes only when
// it compared cases and every kind found is kept; planted faults: a kind
// no kept finding has, no case compared, a case the implementation failed
// on, kept findings that cannot be read.
func TestFailOnNew(t *testing.T) {
	const dir, prof = "../../scenarios/findings", "envoy-gateway-clienttrafficpolicy"
	files := map[string]string{"conflicted": "out/a.yaml", "no-such-kind": "out/new.yaml"}
	for _, tc := range []struct {
		name                 string
		compared, implFailed int
		kinds                []compare.Found
		fails                string // "": passes
	}{
		{"known kinds", 100, 0, []compare.Found{{Kind: "conflicted"}, {Kind: "conflicted", AfterStep: true}}, ""},
		{"no difference", 100, 0, nil, ""},
		{"a new kind", 100, 0, []compare.Found{{Kind: "conflicted"}, {Kind: "no-such-kind"}}, "1 new kind(s) of difference, not kept in ../../scenarios/findings/envoy-gateway: no-such-kind (written to out/new.yaml)"},
		{"nothing compared", 0, 0, []compare.Found{{Kind: "conflicted"}}, "no case was compared"},
		{"the implementation failed", 99, 1, nil, "the implementation failed on 1 case(s)"},
	} {
		var b bytes.Buffer
		err := failOnNew(&b, &report.Kinds{Dir: dir, Impl: "envoy-gateway", Profile: prof, Found: tc.kinds}, tc.compared, tc.implFailed, files)
		if tc.fails == "" {
			if err != nil || !strings.Contains(b.String(), fmt.Sprintf("%d cases compared, 0 the implementation failed on; %d kinds of difference, 0 of them without", tc.compared, len(tc.kinds))) {
				t.Errorf("%s: %v\n%s", tc.name, err, b.String())
			}
			continue
		}
		if _, ok := err.(exitcode.Failure); !ok || !strings.Contains(err.Error(), tc.fails) {
			t.Errorf("%s: %v, want a failure (exit 1) saying %q\n%s", tc.name, err, tc.fails, b.String())
		}
	}
}

// --fail-on-new judges the kinds with the triage the run printed: the kept
// findings are read once. Planted: they are gone after the triage was
// printed, and a second reading would find the kind new.
func TestFailOnNewTriagesOnce(t *testing.T) {
	const prof = "envoy-gateway-clienttrafficpolicy"
	dir := filepath.Join(t.TempDir(), "findings")
	if err := os.CopyFS(dir, os.DirFS("../../scenarios/findings")); err != nil {
		t.Fatal(err)
	}
	kinds := &report.Kinds{Dir: dir, Impl: "envoy-gateway", Profile: prof, Found: []compare.Found{{Kind: "conflicted"}}}
	var b bytes.Buffer
	kinds.Print(&b)
	if !strings.Contains(b.String(), "triage of the kept finding of each kind") {
		t.Fatalf("no triage printed:\n%s", b.String())
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := failOnNew(&b, kinds, 100, 0, nil); err != nil {
		t.Errorf("--fail-on-new read the kept findings again: %v\n%s", err, b.String())
	}
	// The planted mistake shows: a fresh triage of the same kinds fails.
	fresh := &report.Kinds{Dir: dir, Impl: "envoy-gateway", Profile: prof, Found: kinds.Found}
	if err := failOnNew(&b, fresh, 100, 0, nil); exitcode.Of(err) != exitcode.Failed {
		t.Errorf("kept findings gone, read again: %v, want the kind new", err)
	}
}
