package load

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A folder as users keep one: objects, the kustomization that renders
// them, a Helm values file and a CI workflow beside them.
func writeRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "app", "route.yaml"), "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r1}\n")
	// kustomize's usual kustomization: neither metadata nor, often,
	// apiVersion and kind.
	writeFile(t, filepath.Join(dir, "app", "kustomization.yaml"), "resources:\n- route.yaml\n")
	writeFile(t, filepath.Join(dir, "app", "kustomization.yml"), "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [route.yaml]\n")
	// A kustomize Component under another name.
	writeFile(t, filepath.Join(dir, "app", "extra.yaml"), "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches: []\n")
	writeFile(t, filepath.Join(dir, "chart", "values.yaml"), "replicas: 2\ncolor: blue\n---\n# a second document\nimage: {tag: v1}\n")
	// YAML 1.1 reads the key "on" as true.
	writeFile(t, filepath.Join(dir, ".github", "workflows", "ci.yml"), "name: ci\non: [push]\njobs:\n  test: {runs-on: ubuntu-latest}\n")
	return dir
}

// TestReadInputSkipsInFolders: in a folder, kustomizations and YAML
// without apiVersion and kind are skipped, each with a warning naming the
// file, and the objects are read (docs/input.md, Folders).
func TestReadInputSkipsInFolders(t *testing.T) {
	dir := writeRepo(t)
	docs, warns, err := ReadInput(Input{Paths: []string{dir}}, DefaultLimits)
	if err != nil {
		t.Fatalf("ReadInput: %v", err)
	}
	if len(docs) != 1 || docs[0].Kind != "HTTPRoute" || docs[0].Name != "r1" {
		t.Fatalf("docs = %v, want HTTPRoute r1 only", docs)
	}
	p := func(s string) string { return filepath.Join(dir, s) }
	want := []string{
		p(".github/workflows/ci.yml") + ": skipped: YAML without apiVersion and kind, no Kubernetes objects",
		p("app/extra.yaml") + ": skipped: a kustomization, kustomize's input (render it with -k " + p("app") + ")",
		p("app/kustomization.yaml") + ": skipped: a kustomization, kustomize's input (render it with -k " + p("app") + ")",
		p("app/kustomization.yml") + ": skipped: a kustomization, kustomize's input (render it with -k " + p("app") + ")",
		p("chart/values.yaml") + ": skipped: YAML without apiVersion and kind, no Kubernetes objects",
	}
	if got := Strings(warns); !reflect.DeepEqual(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// ReadLimited, which reads scenario and profile folders, reads every
	// file as objects: the same folder is an error there.
	if _, err := ReadLimited([]string{dir}, nil, DefaultLimits); err == nil || !strings.Contains(err.Error(), "values.yaml") {
		t.Errorf("ReadLimited on the folder: %v, want the values file refused", err)
	}
}

// TestReadInputReadsNamedFiles: a file named on the command line is read
// as objects whatever it holds: its problems are errors, as before.
func TestReadInputReadsNamedFiles(t *testing.T) {
	dir := writeRepo(t)
	for _, f := range []string{"chart/values.yaml", "app/kustomization.yaml"} {
		docs, warns, err := ReadInput(Input{Paths: []string{filepath.Join(dir, f)}}, DefaultLimits)
		if err == nil || len(docs) != 0 || len(warns) != 0 {
			t.Errorf("%s: docs %d, warnings %v, error %v; want an error and nothing else", f, len(docs), warns, err)
			continue
		}
		if !strings.Contains(err.Error(), filepath.Join(dir, f)+": document 1 (line 1): object: field apiVersion: is required") {
			t.Errorf("%s: error %q does not name file, document, line and field", f, err)
		}
	}
}

// TestReadInputMixedFileIsObjects: a file in a folder with one object
// and a document without apiVersion and kind is a file of objects with a
// mistake: an error naming the document, not a skip.
func TestReadInputMixedFileIsObjects(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "x.yaml"), "apiVersion: v1\nkind: Service\nmetadata: {name: b1}\n---\nmetadata: {name: b2}\nspec: {}\n")
	_, warns, err := ReadInput(Input{Paths: []string{dir}}, DefaultLimits)
	if len(warns) != 0 {
		t.Errorf("warnings %v, want none", warns)
	}
	if err == nil || !strings.Contains(err.Error(), "x.yaml: document 2 (line 5): object b2: field apiVersion: is required") {
		t.Errorf("error %v, want document 2's missing apiVersion", err)
	}
	// A file that does not parse is never skipped either.
	writeFile(t, filepath.Join(dir, "x.yaml"), "a: [b\n")
	if _, _, err := ReadInput(Input{Paths: []string{dir}}, DefaultLimits); err == nil || !strings.Contains(err.Error(), "invalid YAML") {
		t.Errorf("error %v, want the YAML error", err)
	}
}

// TestReadInputRendered: a tool's output is read as a file of its name,
// within the same limits.
func TestReadInputRendered(t *testing.T) {
	out := []byte("apiVersion: v1\nkind: Service\nmetadata: {name: b1, namespace: prod}\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: b2\n  namespace: 7\n")
	docs, _, err := ReadInput(Input{Rendered: []Rendered{{Name: "kubectl kustomize overlays/prod", Data: out}}}, DefaultLimits)
	if len(docs) != 1 || docs[0].Source.File != "kubectl kustomize overlays/prod" {
		t.Errorf("docs %v", docs)
	}
	if err == nil || !strings.Contains(err.Error(), "kubectl kustomize overlays/prod: document 2 (line 9): Service b2: field metadata.namespace: must be a string") {
		t.Errorf("error %v, want the rendered output's document 2, line 9", err)
	}
	lim := DefaultLimits
	lim.MaxBytes = 10
	if _, _, err := ReadInput(Input{Rendered: []Rendered{{Name: "r", Data: out}}}, lim); err == nil || !strings.Contains(err.Error(), "r: is 136 bytes, more than the limit of 10 (--max-bytes raises it)") {
		t.Errorf("over --max-bytes: %v", err)
	}
	lim = DefaultLimits
	lim.MaxDocuments = 1
	one := []byte("apiVersion: v1\nkind: Service\nmetadata: {name: b1}\n")
	if _, _, err := ReadInput(Input{Rendered: []Rendered{{Name: "r", Data: one}, {Name: "s", Data: one}}}, lim); err == nil || !strings.Contains(err.Error(), "s: document 1 (line 1): more than 1 documents in all") {
		t.Errorf("over --max-documents: %v", err)
	}
}
