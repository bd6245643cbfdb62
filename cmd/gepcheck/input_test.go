package main

import (
	"bytes"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/internal/gotool"
	"github.com/gepcheck/gepcheck/internal/realtest"
)

// effective runs gepcheck simulate -o json with args and stdin and returns
// each path's effective spec and provenance, by path, and stderr.
func effective(t *testing.T, stdin string, args ...string) (map[string]string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append([]string{"simulate", "-o", "json"}, args...), strings.NewReader(stdin), &out, &errb); code != 0 {
		t.Fatalf("simulate %v: exit %d: %s", args, code, errb.String())
	}
	var res struct {
		EffectivePolicies []struct {
			Path       []string          `json:"path"`
			Spec       map[string]any    `json:"spec"`
			Provenance map[string]string `json:"provenance"`
		} `json:"effectivePolicies"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range res.EffectivePolicies {
		spec, _ := json.Marshal(e.Spec)
		prov, _ := json.Marshal(e.Provenance)
		got[strings.Join(e.Path, " > ")] = string(spec) + " " + string(prov)
	}
	return got, errb.String()
}

const exampleChart = "../../docs/examples/helm/colors"

// TestRealHelmTemplate renders docs/examples/helm/colors with the pinned
// Helm (gepcheck tools builds it) and pipes it to simulate -f -, as
// docs/input.md shows: the value that switches p1 from defaults to
// overrides switches who wins on g1 > r1 > b1 (GEP-713, End-to-end
// examples, Example 2: a more specific policy beats a default, an
// override beats a more specific policy).
func TestRealHelmTemplate(t *testing.T) {
	helm, err := gotool.Helm.Path()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(helm); err != nil {
		realtest.Missing(t, "helm %s is not built (make tools builds it)", gotool.HelmVersion)
		return
	}
	const path = "Gateway/default/g1 > HTTPRoute/default/r1 > Service/default/b1"
	for _, tc := range []struct {
		set  []string
		want string
	}{
		{nil, `{"color":"blue"} {"color":"ColorPolicy/default/p2"}`},
		{[]string{"--set", "overrides=true"}, `{"color":"red"} {"color":"ColorPolicy/default/p1"}`},
		{[]string{"--set", "overrides=true", "--set", "color=green"}, `{"color":"green"} {"color":"ColorPolicy/default/p1"}`},
	} {
		cmd := osexec.Command(helm, append([]string{"template", "colors", exampleChart}, tc.set...)...)
		cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+t.TempDir(), "HELM_CONFIG_HOME="+t.TempDir(), "HELM_DATA_HOME="+t.TempDir())
		rendered, err := cmd.Output()
		if err != nil {
			t.Fatalf("helm template %v: %v", tc.set, err)
		}
		got, _ := effective(t, string(rendered), "-f", "-", "--profile", "color-inherited")
		if len(got) != 1 || got[path] != tc.want {
			t.Errorf("helm template %v | simulate: %v, want %s: %s", tc.set, got, path, tc.want)
		}
	}
}

// TestKustomize: -k renders the example overlay (namespace prod, p1's
// color patched to blue) and reads it; errors name the folder.
func TestKustomize(t *testing.T) {
	const dir = "../../docs/examples/kustomize/overlays/prod"
	got, _ := effective(t, "", "-k", dir, "--profile", "color-inherited")
	want := map[string]string{"Gateway/prod/g1 > HTTPRoute/prod/r1 > Service/prod/b1": `{"color":"blue"} {"color":"ColorPolicy/prod/p1"}`}
	if !jsonEq(got, want) {
		t.Errorf("simulate -k %s: %v, want %v", dir, got, want)
	}
	// -k and -f together: the base's p1 is also read from -f, in
	// namespace default: no duplicate.
	got, _ = effective(t, "", "-k", dir, "-f", "../../docs/examples/kustomize/base/", "--profile", "color-inherited")
	if len(got) != 2 {
		t.Errorf("-k with -f: %d paths, want 2 (prod and default): %v", len(got), got)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-k", "../../docs/examples/kustomize/"}, "-k ../../docs/examples/kustomize/: kustomize: unable to find one of 'kustomization.yaml'"},
		{[]string{"-k", "../../docs/examples/kustomize/nothing"}, "-k ../../docs/examples/kustomize/nothing: no such directory"},
		{[]string{"-k", "../../docs/examples/kustomize/base/policy.yaml"}, "not a directory"},
		// The rendered objects are checked as files are: the error names
		// kubectl kustomize's output, its document and line.
		{[]string{"-k", dir}, "gepcheck: kubectl kustomize " + dir + ": document 5 (line 44): ColorPolicy prod/p1: field kind: ColorPolicy matches the built-in profiles"},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"simulate"}, tc.args...), nil, &out, &errb)
		if code != exitcode.BadInput || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("simulate %v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
	// -f on the kustomize folder reads base and overlay as objects: the
	// overlay's patch is a duplicate, and the warnings printed with the
	// error say why (the kustomizations skipped, render with -k).
	var out, errb bytes.Buffer
	code := run([]string{"simulate", "-f", "../../docs/examples/kustomize/", "--profile", "color-inherited"}, nil, &out, &errb)
	for _, want := range []string{
		"gepcheck: warning: ../../docs/examples/kustomize/base/kustomization.yaml: skipped: a kustomization, kustomize's input (render it with -k ../../docs/examples/kustomize/base)\n",
		"gepcheck: warning: ../../docs/examples/kustomize/overlays/prod/kustomization.yaml: skipped: a kustomization, kustomize's input (render it with -k ../../docs/examples/kustomize/overlays/prod)\n",
		"gepcheck: ../../docs/examples/kustomize/overlays/prod/color.yaml: document 1 (line 4): ColorPolicy default/p1: field metadata.name: duplicate object: ColorPolicy default/p1 is also defined at ../../docs/examples/kustomize/base/policy.yaml: document 1 (line 3)\n",
	} {
		if code != exitcode.BadInput || !strings.Contains(errb.String(), want) {
			t.Errorf("simulate -f on the kustomize folder: exit %d, stderr lacks %q:\n%s", code, want, errb.String())
		}
	}
	// explain takes -k too.
	out.Reset()
	errb.Reset()
	if code := run([]string{"explain", "-k", dir, "--profile", "color-inherited", "--target", "Service/prod/b1"}, nil, &out, &errb); code != 0 || !strings.Contains(out.String(), "ColorPolicy/prod/p1") {
		t.Errorf("explain -k: exit %d: %s%s", code, out.String(), errb.String())
	}
}

// TestFolderSkipsAndDuplicates: simulate -f DIR on a folder as users keep
// one skips the kustomization and the values file with warnings, on
// stderr and in the output; a duplicate of a kind no profile uses is a
// warning, one of a kind it uses an error naming both places.
func TestFolderSkipsAndDuplicates(t *testing.T) {
	dir := t.TempDir()
	ex2, err := os.ReadFile("../../scenarios/gep-713/example-2-defaults-and-overrides.yaml")
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("objects.yaml", string(ex2))
	write("kustomization.yaml", "resources: [objects.yaml]\n")
	write("values.yaml", "color: red\n")
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n"
	write("cm1.yaml", cm)
	write("cm2.yaml", cm)
	var out, errb bytes.Buffer
	if code := run([]string{"simulate", "-f", dir, "-o", "json"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	wantWarnings := []string{
		filepath.Join(dir, "kustomization.yaml") + ": skipped: a kustomization, kustomize's input (render it with -k " + dir + ")",
		filepath.Join(dir, "values.yaml") + ": skipped: YAML without apiVersion and kind, no Kubernetes objects",
		filepath.Join(dir, "cm1.yaml") + ": document 1 (line 1): kind ConfigMap ignored: it is neither a Gateway API object nor a policy kind of a profile",
		filepath.Join(dir, "cm2.yaml") + ": document 1 (line 1): duplicate object ConfigMap default/settings (also defined at " + filepath.Join(dir, "cm1.yaml") + ": document 1 (line 1)) ignored: no profile uses kind ConfigMap",
	}
	var res struct {
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	// The scenario file's own expectations are no part of this test:
	// only the warnings of reading are compared.
	var got []string
	for _, w := range res.Warnings {
		if strings.HasPrefix(w, dir) {
			got = append(got, w)
		}
	}
	if !jsonEq(got, wantWarnings) {
		t.Errorf("output warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantWarnings, "\n"))
	}
	for _, w := range wantWarnings {
		if !strings.Contains(errb.String(), "gepcheck: warning: "+w+"\n") {
			t.Errorf("stderr lacks %q:\n%s", w, errb.String())
		}
	}
	// A duplicate of a kind a profile uses (the ConfigMap a
	// BackendTLSPolicy's caCertificateRefs names) stays an error.
	dir2 := t.TempDir()
	dir = dir2
	write("tls.yaml", `apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: tls}
spec:
  targetRefs: [{group: "", kind: Service, name: b1}]
  validation:
    hostname: b1.example.com
    caCertificateRefs: [{group: "", kind: ConfigMap, name: settings}]
---
apiVersion: v1
kind: Service
metadata: {name: b1}
spec: {ports: [{port: 443}]}
`)
	write("cm1.yaml", cm)
	write("cm2.yaml", cm)
	errb.Reset()
	code := run([]string{"simulate", "-f", dir}, nil, &out, &errb)
	want := filepath.Join(dir, "cm2.yaml") + ": document 1 (line 3): ConfigMap default/settings: field metadata.name: duplicate object: ConfigMap default/settings is also defined at " + filepath.Join(dir, "cm1.yaml") + ": document 1 (line 1)"
	if code != exitcode.BadInput || !strings.Contains(errb.String(), want) {
		t.Errorf("exit %d, stderr %s; want 2 and %s", code, errb.String(), want)
	}
}
