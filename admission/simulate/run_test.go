package simulate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// The flags are checked before anything is read, in this order, each a
// mistake of the user's (InputError).
func TestRunChecks(t *testing.T) {
	lim := load.Limits{MaxDocuments: 1, MaxBytes: 1, MaxDepth: 1}
	for _, c := range []struct {
		name   string
		o      Options
		output string
		want   string
	}{
		{"no files", Options{Request: "CREATE v1 configmaps"}, "table", "no webhook configurations: pass -f"},
		{"no request", Options{Files: []string{"x"}}, "html", "pass exactly one of --request and --request-file"},
		{"two requests", Options{Files: []string{"x"}, Request: "r", RequestFile: "f"}, "table", "pass exactly one"},
		{"output", Options{Files: []string{"x"}, Request: "r"}, "html", `--output "html": one of table, json, yaml`},
		{"limits", Options{Files: []string{"x"}, Request: "r", Limits: lim}, "table", "must be positive"},
	} {
		_, err := Run(c.o, c.output, nil, nil)
		if !errors.As(err, new(exitcode.Input)) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Run = %v, want an InputError saying %q", c.name, err, c.want)
		}
	}
}

// An input error's text is escaped line by line: it is printed to a
// terminal (here the request, which its error names as it is).
func TestRunEscapes(t *testing.T) {
	f := filepath.Join(t.TempDir(), "hooks.yaml")
	if err := os.WriteFile(f, []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: v}
webhooks:
- name: check.example.com
  clientConfig: {url: "https://hook.example.com/"}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
  sideEffects: None
  admissionReviewVersions: [v1]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	o := Options{Files: []string{f}, Request: "CREATE v1 config\x1b[2Jmaps ns=a", MaxCELCost: 1,
		Limits: load.Limits{MaxDocuments: 10, MaxBytes: 1 << 20, MaxDepth: 10}}
	_, err := Run(o, "", nil, nil)
	if !errors.As(err, new(exitcode.Input)) || strings.Contains(err.Error(), "\x1b") || !strings.Contains(err.Error(), `config\x1b[2Jmaps`) {
		t.Errorf("Run = %q, want an InputError with the escape written \\x1b", err)
	}
}
