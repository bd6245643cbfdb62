package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"
)

// independentCount counts the objects in data with readers that share no
// code with the loader: go.yaml.in/yaml/v3's decoder for YAML, and
// encoding/json's for a stream of JSON values. Empty documents (only
// comments, or null) hold no object; a List holds its items. ok is false
// when neither reader reads the whole input, or it holds something the
// loader refuses anyway (a document that is not a mapping).
func independentCount(data []byte) (n int, ok bool) {
	if n, ok := countWith(data, true); ok {
		return n, true
	}
	return countWith(data, false)
}

func countWith(data []byte, isJSON bool) (int, bool) {
	type decoder interface{ Decode(any) error }
	var dec decoder
	if isJSON {
		if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); len(t) == 0 || t[0] != '{' {
			return 0, false
		}
		dec = json.NewDecoder(bytes.NewReader(data))
	} else {
		dec = yamlv3.NewDecoder(bytes.NewReader(data))
	}
	n := 0
	for i := 0; ; i++ {
		if i > 10_000 {
			return 0, false
		}
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return n, true
		}
		if err != nil {
			return 0, false
		}
		switch m := v.(type) {
		case nil:
		case map[string]any:
			// kubectl's reading: kind List, or a kind ending in List
			// with an items array, holds its items (none when a List
			// has no items).
			kind, _ := m["kind"].(string)
			items, isArray := m["items"].([]any)
			switch {
			case isArray && strings.HasSuffix(kind, "List"):
				n += len(items)
			case kind == "List":
				if m["items"] != nil {
					return 0, false // refused by the loader
				}
			default:
				n++
			}
		default:
			return 0, false
		}
	}
}

// checkCount fails when the loader read docs from data without an error,
// yet an independent reader finds another number of objects: documents
// dropped (or made up) silently.
func checkCount(data []byte, docs []*Doc, err error) error {
	if err != nil {
		return nil
	}
	want, ok := independentCount(data)
	if !ok || want == len(docs) {
		return nil
	}
	return fmt.Errorf("the loader read %d objects without an error; an independent reader finds %d", len(docs), want)
}

// checkCount catches a loader that drops documents: fed the loader's own
// result with one document missing (after "...", after a JSON value, after
// a lone CR, the three ways documents were lost before), it fails.
func TestCheckCountCatchesDroppedDocuments(t *testing.T) {
	svc := func(n string) string { return "apiVersion: v1\nkind: Service\nmetadata: {name: " + n + "}\n" }
	for _, in := range []string{
		svc("a") + "...\n---\n" + svc("b"),
		`{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a"}}{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "b"}}`,
		strings.ReplaceAll(svc("a")+"---\n"+svc("b"), "\n", "\r"),
		svc("a") + "---\n# only a comment\n---\n" + svc("b"),
		"apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSpace(svc("a")), "\n", "\n  ") + "\n- " + strings.ReplaceAll(strings.TrimSpace(svc("b")), "\n", "\n  ") + "\n",
	} {
		docs, err := Read([]string{"-"}, strings.NewReader(in))
		if err != nil || len(docs) != 2 {
			t.Fatalf("%q: %d documents, %v; want 2", in, len(docs), err)
		}
		if err := checkCount([]byte(in), docs, nil); err != nil {
			t.Errorf("%q: the loader's own result: %v", in, err)
		}
		if err := checkCount([]byte(in), docs[:1], nil); err == nil {
			t.Errorf("%q: a loader that drops the second document passes the check", in)
		}
	}
}
