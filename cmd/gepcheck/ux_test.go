package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/scenarios"
)

// The tests of issue 31's rough edges a kubectl user hits at once (Deliver
// item 6), one each.

const ex2 = "../../scenarios/gep-713/example-2-defaults-and-overrides.yaml"

// A scenario whose policies have long specs (Envoy Gateway's
// BackendTrafficPolicy on rules of two listeners).
const longSpecs = "../../scenarios/envoy-gateway/backendtrafficpolicy-more-specific-wins.yaml"

func mustRun(t *testing.T, args ...string) (string, string) {
	t.Helper()
	code, stdout, stderr := gepcheck(args, "")
	if code != exitcode.OK {
		t.Fatalf("gepcheck %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout, stderr
}

func widest(s string) int {
	n := 0
	for l := range strings.Lines(s) {
		n = max(n, utf8.RuneCountInString(strings.TrimSuffix(l, "\n")))
	}
	return n
}

// gepcheck version -o json|yaml|table (and --version) say the same.
func TestVersionOutputs(t *testing.T) {
	text, _ := mustRun(t, "version")
	table, _ := mustRun(t, "version", "-o", "table")
	if table != text {
		t.Errorf("-o table %q, default %q", table, text)
	}
	js, _ := mustRun(t, "version", "-o", "json")
	ym, _ := mustRun(t, "version", "-o", "yaml")
	var a, b map[string]any
	if err := json.Unmarshal([]byte(js), &a); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(ym), &b); err != nil {
		t.Fatal(err)
	}
	if !jsonEq(a, b) || a["go"] == nil || a["version"] == nil {
		t.Errorf("-o json %v, -o yaml %v: want the same version, commit and go", a, b)
	}
	if code, _, stderr := gepcheck([]string{"version", "-o", "xml"}, ""); code != exitcode.BadInput || !strings.Contains(stderr, "one of table, json, yaml") {
		t.Errorf("-o xml: exit %d %s", code, stderr)
	}
}

// Tables fit 120 columns; -o wide prints each row on one line, in full.
func TestTablesFit120(t *testing.T) {
	for _, args := range [][]string{
		{"simulate", "-f", longSpecs},
		{"explain", "-f", longSpecs, "--policy", "BackendTrafficPolicy/default/p-gw"},
		{"explain", "-f", longSpecs, "--target", "HTTPRoute/default/route-1"},
		{"findings", "../../scenarios/findings"},
		{"requirements"},
	} {
		out, _ := mustRun(t, args...)
		if n := widest(out); n > 120 {
			t.Errorf("%s: a line of %d columns:\n%s", strings.Join(args, " "), n, out)
		}
		wide, _ := mustRun(t, append(args, "-o", "wide")...)
		if n := widest(wide); n <= 120 {
			t.Errorf("%s -o wide: at most %d columns, want the long cells in full", strings.Join(args, " "), n)
		}
	}
	wide, _ := mustRun(t, "simulate", "-f", longSpecs, "-o", "wide")
	row := regexp.MustCompile(`(?m)^BackendTrafficPolicy +Gateway/default/gw > Gateway/default/gw#http > HTTPRoute/default/route-1 > HTTPRoute/default/route-1#rule-1 +\{"timeout":\{"http":\{"requestTimeout":"15s"\}\}\} +timeout.http.requestTimeout←BackendTrafficPolicy/default/p-gw$`)
	if !row.MatchString(wide) {
		t.Errorf("-o wide lacks the row in full:\n%s", wide)
	}
}

// --no-headers: no section titles, no column headers.
func TestNoHeaders(t *testing.T) {
	out, _ := mustRun(t, "simulate", "-f", ex2, "--no-headers")
	for _, h := range []string{"EFFECTIVE POLICIES", "KIND", "POLICIES", "POLICY ", "AFFECTED OBJECTS", "OBJECT "} {
		for l := range strings.Lines(out) {
			if strings.HasPrefix(l, h) {
				t.Errorf("--no-headers printed %q", l)
			}
		}
	}
	if !strings.HasPrefix(out, "ColorPolicy  Gateway/default/g1 > HTTPRoute/default/r1") {
		t.Errorf("--no-headers does not start with the first row:\n%s", out)
	}
	out, _ = mustRun(t, "requirements", "--no-headers", "GEP-713-019")
	if !strings.HasPrefix(out, "GEP-713-019  MUST") || strings.Count(out, "\n") != 1 {
		t.Errorf("requirements --no-headers GEP-713-019:\n%s", out)
	}
}

// -o name is kubectl's kind/name: simulate's policies, explain --target's
// policies, explain --policy's targets.
func TestOutputName(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "-f", ex2, "-o", "name"}, "colorpolicy/p1\ncolorpolicy/p2\ncolorpolicy/p3\ncolorpolicy/p4\n"},
		// GEP-713 Example 2: b1 is affected by p1, p2 and p3.
		{[]string{"explain", "-f", ex2, "--target", "Service/default/b1", "-o", "name"}, "colorpolicy/p1\ncolorpolicy/p2\ncolorpolicy/p3\n"},
		{[]string{"explain", "-f", ex2, "--policy", "ColorPolicy/default/p3", "-o", "name"}, "gateway/g2\n"},
		{[]string{"requirements", "-o", "name", "GEP-713-019", "gep-2649-023"}, "GEP-713-019\nGEP-2649-023\n"},
	} {
		if out, _ := mustRun(t, tc.args...); out != tc.want {
			t.Errorf("%s: %q, want %q", strings.Join(tc.args, " "), out, tc.want)
		}
	}
}

// References as kubectl takes them: kind/name -n ns, the kind in any
// case, plural or short; the answer is that of KIND/NS/NAME.
func TestReferencesKubectlStyle(t *testing.T) {
	want, _ := mustRun(t, "explain", "-f", ex2, "--target", "Service/default/b1")
	for _, args := range [][]string{
		{"--target", "service/b1", "-n", "default"},
		{"--target", "SERVICE/b1", "--namespace", "default"},
		{"--target", "services/b1"}, // without -n: namespace default, as kubectl
		{"--target", "svc/default/b1"},
	} {
		if got, _ := mustRun(t, append([]string{"explain", "-f", ex2}, args...)...); got != want {
			t.Errorf("%v: another answer than Service/default/b1:\n%s", args, got)
		}
	}
	want, _ = mustRun(t, "explain", "-f", ex2, "--policy", "ColorPolicy/default/p3")
	for _, args := range [][]string{{"--policy", "colorpolicy/p3", "-n", "default"}, {"--policy", "colorpolicies/p3"}} {
		if got, _ := mustRun(t, append([]string{"explain", "-f", ex2}, args...)...); got != want {
			t.Errorf("%v: another answer than ColorPolicy/default/p3:\n%s", args, got)
		}
	}
	for _, args := range [][]string{
		{"--target", "Service/default/b1", "-n", "other"}, // two namespaces
		{"--policy", "colorpolicy/p3", "-n", "other"},     // not there
		{"--policy", "ColorPolicy/default/p3#x"},          // a policy has no section
	} {
		if code, _, stderr := gepcheck(append([]string{"explain", "-f", ex2}, args...), ""); code != exitcode.BadInput {
			t.Errorf("%v: exit %d, want %d: %s", args, code, exitcode.BadInput, stderr)
		}
	}
}

// Completion (cobra's __complete, what the shell scripts of gepcheck
// completion call): profiles, -o values, implementations, references
// from the -f files, requirement IDs.
func TestCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"simulate", "--profile", "color-"}, []string{"color-direct", "color-inherited"}, nil},
		{[]string{"simulate", "-o", ""}, []string{"table", "wide", "name", "json", "yaml"}, nil},
		{[]string{"check", "-o", ""}, []string{"table", "json", "yaml", "junit"}, []string{"wide"}},
		{[]string{"diff", "-o", ""}, []string{"table", "wide", "name", "json", "yaml", "markdown"}, []string{"html", "dot"}},
		{[]string{"run", "--impl", ""}, []string{"envoy-gateway", "contour", "traefik", "reference", "exec"}, nil},
		{[]string{"simulate", "--semantics", ""}, []string{"sticky-overrides"}, nil},
		{[]string{"explain", "-f", ex2, "--target", "Serv"}, []string{"Service/default/b1", "Service/default/b2"}, []string{"ColorPolicy/default/p1"}},
		{[]string{"explain", "-f", ex2, "--policy", ""}, []string{"ColorPolicy/default/p1", "ColorPolicy/default/p4"}, []string{"Service/default/b1"}},
		{[]string{"requirements", "GEP-713-01"}, []string{"GEP-713-019"}, []string{"GEP-2649-023"}},
	} {
		out, _ := mustRun(t, append([]string{"__complete"}, tc.args...)...)
		lines := strings.Split(out, "\n")
		has := func(s string) bool {
			for _, l := range lines {
				if l == s {
					return true
				}
			}
			return false
		}
		for _, w := range tc.want {
			if !has(w) {
				t.Errorf("%v: no completion %q:\n%s", tc.args, w, out)
			}
		}
		for _, w := range tc.not {
			if has(w) {
				t.Errorf("%v: completes %q:\n%s", tc.args, w, out)
			}
		}
	}
}

// check -o json|yaml|junit: the same verdicts as the table, and exit 1
// on a failing scenario.
func TestCheckOutputs(t *testing.T) {
	good := "../../scenarios/gep-713/example-1-direct.yaml"
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// A planted fault: an expectation the engine does not meet.
	broken := strings.Replace(string(data), "color: red", "color: purple", 1)
	if broken == string(data) {
		t.Fatal("the broken scenario is not broken")
	}
	bad := filepath.Join(t.TempDir(), "broken.yaml")
	if err := os.WriteFile(bad, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	code, js, stderr := gepcheck([]string{"check", good, bad, "-o", "json"}, "")
	if code != exitcode.Failed {
		t.Fatalf("exit %d, want %d: %s", code, exitcode.Failed, stderr)
	}
	var res scenarios.CheckResults
	dec := json.NewDecoder(strings.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		t.Fatal(err)
	}
	if res.Passed != 1 || res.Failed != 1 || len(res.Files) != 2 || !res.Files[0].Passed || res.Files[1].Passed || len(res.Files[1].Differences) == 0 {
		t.Errorf("-o json: %+v", res)
	}
	_, ym, _ := gepcheck([]string{"check", good, bad, "-o", "yaml"}, "")
	var fromYAML scenarios.CheckResults
	if err := yaml.UnmarshalStrict([]byte(ym), &fromYAML); err != nil || !jsonEq(fromYAML, res) {
		t.Errorf("-o yaml %+v (%v), want %+v", fromYAML, err, res)
	}
	code, ju, _ := gepcheck([]string{"check", good, bad, "-o", "junit"}, "")
	var suite struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Text string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal([]byte(ju), &suite); err != nil || code != exitcode.Failed {
		t.Fatalf("-o junit: exit %d, %v\n%s", code, err, ju)
	}
	if suite.Tests != 2 || suite.Failures != 1 || suite.Cases[0].Failure != nil || suite.Cases[1].Failure == nil || !strings.Contains(suite.Cases[1].Failure.Text, "purple") {
		t.Errorf("-o junit:\n%s", ju)
	}
}

// Warnings go to standard error as well as into the output.
func TestWarningsOnStderr(t *testing.T) {
	in := mustRead(t, ex2) + `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: orphan, namespace: default}
spec:
  parentRefs: [{name: no-such-gateway}]
  rules: [{backendRefs: [{name: b1, port: 80}]}]
`
	for _, o := range []string{"table", "json"} {
		code, stdout, stderr := gepcheck([]string{"simulate", "-f", "-", "-o", o}, in)
		if code != exitcode.OK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stderr, "gepcheck: warning: ") || !strings.Contains(stderr, "no-such-gateway") {
			t.Errorf("-o %s: stderr has no warning:\n%s", o, stderr)
		}
		if !strings.Contains(stdout, "no-such-gateway") {
			t.Errorf("-o %s: the output lost its warning:\n%s", o, stdout)
		}
	}
	if _, stderr := mustRun(t, "simulate", "-f", ex2); stderr != "" {
		t.Errorf("a warning without cause: %q", stderr)
	}
	// The warnings of the run (what storing the policies changes), once
	// each, as well as the input's.
	for _, args := range [][]string{
		{"simulate", "-f", "../../scenarios/gep-713/stored-values-merge-patch.yaml"},
		{"explain", "-f", "../../scenarios/gep-713/stored-values-merge-patch.yaml", "--target", "HTTPRoute/default/route-1"},
	} {
		code, _, stderr := gepcheck(args, "")
		if code != exitcode.OK || strings.Count(stderr, "is pruned by the API server") != 1 || strings.Count(stderr, "from the RetryPolicy CRD default") != 1 {
			t.Errorf("%v: exit %d, want each warning of the run once on stderr:\n%s", args, code, stderr)
		}
	}
	code, _, stderr := gepcheck([]string{"simulate", "-f", "-"}, in)
	if code != exitcode.OK || strings.Count(stderr, "no-such-gateway") != 1 {
		t.Errorf("the input's warning not once on stderr:\n%s", stderr)
	}
}

// The right hint for an input of another command: a folder of scenario
// files (gepcheck check), an admission file (gepcheck admission
// simulate), a Helm chart (helm template); short, exit 2.
func TestHints(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "-f", "../../scenarios/"}, "run them with `gepcheck check ../../scenarios/`"},
		{[]string{"explain", "-f", "../../scenarios/gep-713", "--target", "Service/default/b1"}, "`gepcheck check ../../scenarios/gep-713`"},
		{[]string{"simulate", "-f", "../../scenarios/admission/failure-policy.yaml"}, "use `gepcheck admission simulate -f ../../scenarios/admission/failure-policy.yaml --request"},
		{[]string{"simulate", "-f", "../../scenarios/admission/"}, "`gepcheck check ../../scenarios/admission/`"},
		// A Helm chart (a folder with a Chart.yaml, its templates with
		// {{ }}), or a file or folder in one: helm template first
		// (docs/input.md, Helm), not an error per template.
		{[]string{"simulate", "-f", exampleChart + "/"}, exampleChart + "/ is a Helm chart (it has a Chart.yaml): its templates are no Kubernetes objects until Helm renders them; run `helm template NAME " + exampleChart + " | gepcheck simulate -f -`"},
		{[]string{"simulate", "-f", exampleChart + "/templates/policies.yaml", "--profile", "color-inherited"}, "templates/policies.yaml is in the Helm chart " + exampleChart + " (it has a Chart.yaml)"},
		{[]string{"explain", "-f", exampleChart + "/templates", "--target", "Service/default/b1"}, "run `helm template NAME " + exampleChart + " | gepcheck explain -f -`"},
		{[]string{"diff", "../../docs/examples/diff/before.yaml", exampleChart}, "run `helm template NAME " + exampleChart + " | gepcheck diff ../../docs/examples/diff/before.yaml -`"},
		{[]string{"diff", exampleChart, "../../docs/examples/diff/before.yaml"}, "| gepcheck diff - ../../docs/examples/diff/before.yaml`"},
		// simulate --impl reads its input as simulate does: the same hints.
		{[]string{"simulate", "--impl", "reference", "-f", exampleChart}, "run `helm template NAME " + exampleChart + " | gepcheck simulate -f -`"},
		{[]string{"simulate", "--impl", "reference", "-f", "../../scenarios/gep-713"}, "`gepcheck check ../../scenarios/gep-713`"},
	} {
		code, _, stderr := gepcheck(tc.args, "")
		if code != exitcode.BadInput || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") > 2 {
			t.Errorf("%v: exit %d, want %d and a short error saying %q:\n%.2000s", tc.args, code, exitcode.BadInput, tc.want, stderr)
		}
	}
	// Rendered objects in a chart's folder (no template action in them)
	// are not the chart's templates: their own error, not the hint.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Chart.yaml"), []byte("apiVersion: v2\nname: x\nversion: 0.1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../docs/examples/diff/before.yaml")
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "rendered"), 0o755)
	rendered := filepath.Join(dir, "rendered", "out.yaml")
	if err := os.WriteFile(rendered, bytes.Replace(b, []byte("controllerName:"), []byte("controllerNam:"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := gepcheck([]string{"simulate", "-f", rendered, "--profile", "color-inherited"}, ""); code != exitcode.BadInput || strings.Contains(stderr, "Helm") || !strings.Contains(stderr, "controllerNam") {
		t.Errorf("rendered objects in a chart's folder: exit %d, want 2 and their own error:\n%s", code, stderr)
	}
	// Policies without a profile still say --profile.
	if code, _, stderr := gepcheck([]string{"simulate", "-f", "testdata/corpus/no-policy-kind.yaml"}, ""); code != exitcode.BadInput || !strings.Contains(stderr, "pass --profile") {
		t.Errorf("no policy kind: exit %d: %s", code, stderr)
	}
}

// requirements ID...: those requirements, in the order given; an
// unknown ID is exit 2, named.
func TestRequirementsIDs(t *testing.T) {
	out, _ := mustRun(t, "requirements", "-o", "json", "GEP-2649-023", "GEP-713-019")
	got := decodeRequirements(t, out)
	if len(got) != 2 || got[0].ID != "GEP-2649-023" || got[1].ID != "GEP-713-019" {
		t.Errorf("got %+v", got)
	}
	ym, _ := mustRun(t, "requirements", "-o", "yaml", "GEP-713-019")
	if !strings.HasPrefix(ym, "- ") || !strings.Contains(ym, "id: GEP-713-019") {
		t.Errorf("-o yaml:\n%s", ym)
	}
	code, _, stderr := gepcheck([]string{"requirements", "GEP-713-019", "GEP-713-999"}, "")
	if code != exitcode.BadInput || !strings.Contains(stderr, "GEP-713-999") || strings.Contains(stderr, "GEP-713-019") {
		t.Errorf("an unknown ID: exit %d: %s", code, stderr)
	}
}

// One spelling of spec names, the GEP's: --semantics gep-713 as
// requirements --spec gep-713; gep713, the older spelling, is read as an
// alias and gives the same output, which says gep-713.
func TestSemanticsSpelling(t *testing.T) {
	for _, o := range []string{"table", "json"} {
		want, _ := mustRun(t, "simulate", "-f", ex2, "--semantics", "gep-713", "-o", o)
		old, _ := mustRun(t, "simulate", "-f", ex2, "--semantics", "gep713", "-o", o)
		if old != want {
			t.Errorf("-o %s: --semantics gep713 and gep-713 differ", o)
		}
		if strings.Contains(want, "gep713") || !strings.Contains(want, "gep-713") {
			t.Errorf("-o %s: the output does not spell the semantics gep-713:\n%s", o, want)
		}
	}
	if out, _ := mustRun(t, "requirements", "--spec", "gep-713", "-o", "name"); !strings.HasPrefix(out, "GEP-713-") {
		t.Errorf("--spec gep-713: %q", out)
	}
	if code, _, stderr := gepcheck([]string{"simulate", "-f", ex2, "--semantics", "gep-0713"}, ""); code != exitcode.BadInput || !strings.Contains(stderr, "gep-713") {
		t.Errorf("--semantics gep-0713: exit %d %s", code, stderr)
	}
}

// admission simulate -o yaml is -o json's content.
func TestAdmissionYAML(t *testing.T) {
	args := []string{"admission", "simulate", "-f", "../../scenarios/admission/failure-policy.yaml", "--request", "CREATE v1 configmaps ns=team-b user=alice"}
	js, _ := mustRun(t, append(args, "-o", "json")...)
	ym, _ := mustRun(t, append(args, "-o", "yaml")...)
	var a, b any
	if err := json.Unmarshal([]byte(js), &a); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(ym), &b); err != nil {
		t.Fatal(err)
	}
	if !jsonEq(a, b) {
		t.Errorf("-o yaml is not -o json:\n%s\n%s", ym, js)
	}
}

// gepcheck diff prints its tables as simulate does (render.Table; docs/
// diff.md, Output): they fit 120 columns, -o wide prints each row on one
// line in full, --no-headers leaves out the titles and column headers,
// -o name lists the objects the change touches; -o html is refused,
// naming the values diff takes.
func TestDiffTables(t *testing.T) {
	spec, err := os.ReadFile(longSpecs)
	if err != nil {
		t.Fatal(err)
	}
	// The state before: p-gw's timeout 5s, not 15s (the one field that
	// changes, on route-1's two paths).
	old := strings.Replace(string(spec), "timeout: {http: {requestTimeout: 15s}}\n---", "timeout: {http: {requestTimeout: 5s}}\n---", 1)
	if old == string(spec) {
		t.Fatal("p-gw's timeout not found in " + longSpecs)
	}
	before := filepath.Join(t.TempDir(), "before.yaml")
	if err := os.WriteFile(before, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	diff := []string{"diff", before, longSpecs}
	table, _ := mustRun(t, diff...)
	if n := widest(table); n > 120 {
		t.Errorf("diff: a line of %d columns:\n%s", n, table)
	}
	if !strings.HasPrefix(table, "CHANGED EFFECTIVE FIELDS (profiles: envoy-gateway-backendtrafficpolicy; ") || !strings.Contains(table, "\nFLIPPED CONDITIONS\n") {
		t.Errorf("diff: the titles are missing:\n%s", table)
	}
	// Both paths of route-1 change; the rows in full, one line each.
	rows := regexp.MustCompile(`(?m)^BackendTrafficPolicy +Gateway/default/gw > Gateway/default/gw#http(-2)? > HTTPRoute/default/route-1 > HTTPRoute/default/route-1#rule-1 +timeout\.http\.requestTimeout +"5s" ←BackendTrafficPolicy/default/p-gw +"15s" ←BackendTrafficPolicy/default/p-gw$`)
	if n := len(rows.FindAllString(table, -1)); n != 0 {
		t.Errorf("diff: %d rows on one line of more than 120 columns", n)
	}
	wide, _ := mustRun(t, append(diff, "-o", "wide")...)
	if n := len(rows.FindAllString(wide, -1)); n != 2 || widest(wide) <= 120 {
		t.Errorf("diff -o wide: %d of the 2 rows in full, on one line:\n%s", n, wide)
	}
	// The same cells, wrapped or not: the words of the table are those
	// of -o wide.
	if a, b := strings.Fields(table), strings.Fields(wide); len(a) <= len(b) {
		t.Errorf("diff: %d words, -o wide %d: nothing wrapped?", len(a), len(b))
	}
	for _, o := range [][]string{nil, {"-o", "wide"}} {
		out, _ := mustRun(t, append(append(diff, "--no-headers"), o...)...)
		for l := range strings.Lines(out) {
			for _, h := range []string{"CHANGED EFFECTIVE FIELDS", "KIND ", "FLIPPED CONDITIONS", "OBJECT "} {
				if strings.HasPrefix(l, h) {
					t.Errorf("diff --no-headers %v printed %q", o, l)
				}
			}
		}
		if !regexp.MustCompile(`^BackendTrafficPolicy +Gateway/default/gw `).MatchString(out) {
			t.Errorf("diff --no-headers %v does not start with the first row:\n%s", o, out)
		}
	}
	// -o name: p-gw set the changed field before and after; no
	// condition flips (a message alone is no flip).
	if out, _ := mustRun(t, append(diff, "-o", "name")...); out != "backendtrafficpolicy/p-gw\n" {
		t.Errorf("diff -o name: %q", out)
	}
	if out, _ := mustRun(t, "diff", "../../docs/examples/diff/before.yaml", "../../docs/examples/diff/after/", "--profile", "color-inherited", "-o", "name"); out != "colorpolicy/gp\ncolorpolicy/rp\ngateway/g1\nhttproute/r1\n" {
		t.Errorf("diff docs/examples/diff -o name: %q", out)
	}
	code, _, stderr := gepcheck(append(diff, "-o", "html"), "")
	if code != exitcode.BadInput || !strings.Contains(stderr, `--output "html": one of table, wide, name, json, yaml, markdown`) {
		t.Errorf("diff -o html: exit %d: %s", code, stderr)
	}
}
