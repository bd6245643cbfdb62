package scenarios

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestScenarioFieldValidation: a scenario's spec.fieldValidation is the
// field validation its policies are stored with (docs/profiles.md, What
// is stored; Kubernetes API concepts, Field validation). The strict
// scenario, given a misspelt field, is bad input naming file, line and
// field; the same file with warn stores it pruned and passes; a value
// that is none of strict, warn, ignore is bad input naming the field.
func TestScenarioFieldValidation(t *testing.T) {
	const file = "stored/gateway-api/xbackendtrafficpolicy-crd-strict.yaml"
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if diffs, err := Check(file); err != nil || len(diffs) > 0 {
		t.Fatalf("%s: %v %v", file, diffs, err)
	}
	typo := strings.Replace(string(data), "    budget: {percent: 25}\n", "    budget: {percent: 25, intervall: 5s}\n", 1)
	if typo == string(data) {
		t.Fatal("the policy's budget line moved: update the test")
	}
	// The misspelt field's line in the file.
	line := strings.Count(typo[:strings.Index(typo, "intervall")], "\n") + 1
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	strict := write("strict.yaml", typo)
	_, err = Check(strict)
	if err == nil {
		t.Fatal("strict: a misspelt field is not refused")
	}
	for _, want := range []string{strict, "(line " + strconv.Itoa(line) + ")", "XBackendTrafficPolicy default/p", "field spec.retryConstraint.budget.intervall", "unknown field", "built in: Gateway API v1.6.3 (experimental channel)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("strict: error %q lacks %q", err, want)
		}
	}
	warn := write("warn.yaml", strings.Replace(typo, "  fieldValidation: strict\n", "  fieldValidation: warn\n", 1))
	if diffs, err := Check(warn); err != nil || len(diffs) > 0 {
		t.Errorf("warn: the misspelt field is not pruned as the API server's default does: %v %v", diffs, err)
	}
	bad := write("bad.yaml", strings.Replace(string(data), "  fieldValidation: strict\n", "  fieldValidation: loose\n", 1))
	if _, err := Check(bad); err == nil || !strings.Contains(err.Error(), "field spec.fieldValidation") || !strings.Contains(err.Error(), "one of strict, warn, ignore") {
		t.Errorf("fieldValidation loose: %v", err)
	}
}
