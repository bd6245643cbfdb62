package simulator

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
	"sigs.k8s.io/yaml"
)

// TestFromObjectsAsLoadFiles: the objects of every policy scenario of
// GEP-713 and GEP-2649, held as a cluster client holds them, give through
// FromObjects the model LoadFiles gives from the same objects written as
// YAML: the same run under both semantics, the same warnings.
func TestFromObjectsAsLoadFiles(t *testing.T) {
	files, _ := filepath.Glob("../scenarios/gep-*/*.yaml")
	if len(files) < 20 {
		t.Fatalf("%d scenario files", len(files))
	}
	for _, f := range files {
		docs, err := load.Read([]string{f}, nil)
		if err != nil {
			t.Fatal(err)
		}
		objs := make([]map[string]any, len(docs))
		for i, d := range docs {
			objs[i] = load.ToAPI(d.Raw).(map[string]any)
		}
		data, err := load.Marshal(docs)
		if err != nil {
			t.Fatal(err)
		}
		want, err := LoadFiles([]string{"-"}, strings.NewReader(data), Options{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		got, err := FromObjects(objs, Options{})
		if err != nil {
			t.Fatalf("%s: FromObjects: %v", f, err)
		}
		for _, sem := range []engine.Semantics{engine.StickyOverrides, engine.GEP713} {
			w, _ := json.Marshal(want.Run(sem, nil))
			g, _ := json.Marshal(got.Run(sem, nil))
			if string(w) != string(g) {
				t.Errorf("%s under %s: FromObjects gives\n%s\nLoadFiles\n%s", f, sem, g, w)
			}
		}
		if strings.Join(want.Warnings, "\n") != strings.Join(got.Warnings, "\n") {
			t.Errorf("%s: warnings %q, LoadFiles %q", f, got.Warnings, want.Warnings)
		}
	}
}

// TestFromObjectsErrors: an object the loader refuses is refused with the
// loader's error, naming its document (the object's index + 1), without a
// line (FromObjects' limit); past --max-documents, the same limit error.
func TestFromObjectsErrors(t *testing.T) {
	var objs []map[string]any
	for _, y := range []string{
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: a}",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: 7, namespace: a}\nspec: {gatewayClassName: c, listeners: []}",
	} {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(y), &m); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, load.ToAPI(m).(map[string]any))
	}
	_, err := FromObjects(objs, Options{})
	data, merr := load.Marshal([]*load.Doc{{Raw: objs[0]}, {Raw: objs[1]}})
	if merr != nil {
		t.Fatal(merr)
	}
	_, want := LoadFiles([]string{"-"}, strings.NewReader(data), Options{})
	if err == nil || want == nil || err.Error() != regexp.MustCompile(` \(line \d+\)`).ReplaceAllString(want.Error(), "") ||
		!strings.Contains(err.Error(), "document 2: Gateway: field metadata.name") {
		t.Fatalf("FromObjects: %v\nwant LoadFiles' error about document 2's metadata.name without its line: %v", err, want)
	}
	_, err = FromObjects([]map[string]any{objs[0], objs[0]}, Options{Limits: load.Limits{MaxDocuments: 1}})
	if err == nil || !strings.Contains(err.Error(), "document 2: more than 1 documents in all") {
		t.Fatalf("FromObjects over --max-documents: %v", err)
	}
}
