package load

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readString(t *testing.T, data string) ([]*Doc, Errors) {
	t.Helper()
	docs, err := Read([]string{"-"}, strings.NewReader(data))
	return docs, asErrors(t, err)
}

func asErrors(t *testing.T, err error) Errors {
	t.Helper()
	if err == nil {
		return nil
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error %T is not Errors: %v", err, err)
	}
	return es
}

const multi = `# leading comment
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
  namespace: infra
spec:
  gatewayClassName: gc
--- # only a comment follows
# nothing here
---
---   
apiVersion: v1
kind: Service
metadata: {name: svc}
---
{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass", "metadata": {"name": "gc"}}
`

func TestReadDocuments(t *testing.T) {
	docs, errs := readString(t, multi)
	if errs != nil {
		t.Fatalf("unexpected errors:\n%v", errs)
	}
	type summary struct {
		Source                                            Source
		APIVersion, Group, Version, Kind, Namespace, Name string
	}
	var got []summary
	for _, d := range docs {
		got = append(got, summary{d.Source, d.APIVersion, d.Group, d.Version, d.Kind, d.Namespace, d.Name})
	}
	want := []summary{
		{Source{StdinName, 1, 2, 0}, "gateway.networking.k8s.io/v1", "gateway.networking.k8s.io", "v1", "Gateway", "infra", "gw"},
		{Source{StdinName, 2, 13, 0}, "v1", "", "v1", "Service", "", "svc"},
		{Source{StdinName, 3, 17, 0}, "gateway.networking.k8s.io/v1", "gateway.networking.k8s.io", "v1", "GatewayClass", "", "gc"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
	spec, _ := docs[0].Raw["spec"].(map[string]any)
	if spec["gatewayClassName"] != "gc" {
		t.Errorf("Raw spec = %#v", docs[0].Raw["spec"])
	}
}

func TestReadCRLF(t *testing.T) {
	in := "apiVersion: v1\r\nkind: Service\r\nmetadata:\r\n  name: a\r\n---\r\napiVersion: v1\r\nkind: Service\r\nmetadata:\r\n  name: b\r\n"
	docs, errs := readString(t, in)
	if errs != nil || len(docs) != 2 || docs[1].Name != "b" || docs[1].Source.Line != 6 {
		t.Fatalf("docs=%v errs=%v", docs, errs)
	}
}

func TestReadLists(t *testing.T) {
	in := `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Service
  metadata: {name: a, namespace: ns}
- apiVersion: v1
  kind: Service
  metadata: {name: b}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRouteList
items:
- apiVersion: gateway.networking.k8s.io/v1
  kind: HTTPRoute
  metadata: {name: r}
---
apiVersion: v1
kind: List
`
	docs, errs := readString(t, in)
	if errs != nil {
		t.Fatalf("unexpected errors:\n%v", errs)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.Source.String()+" "+d.Object())
	}
	want := []string{
		"<stdin>: document 1 (line 1) item 1 Service ns/a",
		"<stdin>: document 1 (line 1) item 2 Service b",
		"<stdin>: document 2 (line 11) item 1 HTTPRoute r",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestReadErrors(t *testing.T) {
	in := `apiVersion: v1
metadata: {name: a}
---
kind: Service
metadata: {name: b}
---
apiVersion: v1
kind: Service
metadata: {}
---
just a string
---
- a
- list
---
apiVersion: v1
kind: Service
metadata:
  name: c
 bad: indent
---
apiVersion: v1
kind: Service
kind: Service
metadata: {name: d}
---
apiVersion: a/b/c
kind: 7
metadata: {name: e, namespace: [x]}
---
apiVersion: v1
kind: List
items:
- 3
- apiVersion: v1
  kind: Service
  metadata: {namespace: ns}
---
apiVersion: v1
kind: Service
metadata: {name: ok}
`
	docs, errs := readString(t, in)
	if len(docs) != 1 || docs[0].Name != "ok" {
		t.Errorf("docs = %v, want only ok", docs)
	}
	type e struct {
		doc, line, item    int
		object, field, msg string
	}
	want := []e{
		{1, 1, 0, "object a", "kind", "is required"},
		{2, 4, 0, "Service b", "apiVersion", "is required"},
		// A field's error names the field's line (metadata: {} is line 9;
		// a missing field, the line of the mapping that lacks it).
		{3, 9, 0, "Service", "metadata.name", "is required"},
		{4, 11, 0, "", "", `document must be a mapping, got the string "just a string"`},
		{5, 13, 0, "", "", "document must be a mapping, got a list"},
		{6, 16, 0, "", "", "invalid YAML: line 19: did not find expected key"},
		{7, 22, 0, "", "", "invalid YAML: line 24: key \"kind\" already set in map"},
		{8, 27, 0, "object e", "apiVersion", `"a/b/c" is not group/version or version`},
		{8, 28, 0, "object e", "kind", "must be a string, got the number 7"},
		{8, 29, 0, "object e", "metadata.namespace", "must be a string, got a list"},
		{9, 31, 1, "", "", "list item must be a mapping, got the number 3"},
		{9, 37, 2, "Service", "metadata.name", "is required"},
	}
	if len(errs) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%v", len(errs), len(want), errs)
	}
	for i, w := range want {
		g := errs[i]
		if g.Source.File != StdinName || g.Source.Doc != w.doc || g.Source.Line != w.line || g.Source.Item != w.item ||
			g.Object != w.object || g.Field != w.field || !strings.HasPrefix(g.Msg, w.msg) {
			t.Errorf("error %d = %+v (%v), want %+v", i, *g, g, w)
		}
	}
}

func TestErrorString(t *testing.T) {
	e := &Error{Source: Source{File: "a.yaml", Doc: 3, Line: 14}, Object: "HTTPRoute default/r1", Field: "spec.x", Msg: "unknown field"}
	if got, want := e.Error(), "a.yaml: document 3 (line 14): HTTPRoute default/r1: field spec.x: unknown field"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	e = &Error{Source: Source{File: "missing"}, Msg: "no such file or directory"}
	if got, want := e.Error(), "missing: no such file or directory"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var es Errors
	if es.Err() != nil {
		t.Error("empty Errors.Err() is not nil")
	}
	var nilp *Errors
	nilp.Add(e) // must not panic
	es.Add(nil)
	es.Add(e)
	es.Add(e)
	if got := es.Error(); got != e.Error()+"\n"+e.Error() {
		t.Errorf("Errors.Error() = %q", got)
	}
	var target *Error
	if !errors.As(es.Err(), &target) || target != e {
		t.Error("errors.As does not find *Error in Errors")
	}
}

func TestReadPaths(t *testing.T) {
	dir := t.TempDir()
	svc := func(name string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata: {name: %s}\n", name)
	}
	writeFile(t, filepath.Join(dir, "b.yaml"), svc("b"))
	writeFile(t, filepath.Join(dir, "a", "z.yml"), svc("az"))
	writeFile(t, filepath.Join(dir, "a-c", "x.json"), `{"apiVersion":"v1","kind":"Service","metadata":{"name":"acx"}}`)
	writeFile(t, filepath.Join(dir, "notes.txt"), "not yaml: [")
	writeFile(t, filepath.Join(dir, "bad.yaml"), "apiVersion: v1\n")
	single := filepath.Join(dir, "b.yaml")
	missing := filepath.Join(dir, "nope.yaml")

	docs, err := Read([]string{dir, single, missing, "-"}, strings.NewReader(svc("stdin")))
	var names []string
	for _, d := range docs {
		names = append(names, d.Name)
	}
	if want := []string{"acx", "az", "b", "b", "stdin"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names = %v, want %v", names, want)
	}
	errs := asErrors(t, err)
	if len(errs) != 3 {
		t.Fatalf("got %d errors, want 3:\n%v", len(errs), errs)
	}
	if errs[0].Source.File != filepath.Join(dir, "bad.yaml") || errs[0].Field != "kind" {
		t.Errorf("errs[0] = %v", errs[0])
	}
	if errs[2].Source.File != missing || !strings.Contains(errs[2].Error(), "no such file") {
		t.Errorf("errs[2] = %v", errs[2])
	}
	if _, err := Read([]string{"-"}, nil); err == nil {
		t.Error("reading stdin without a reader: no error")
	}
}

// TestReadGarbage feeds inputs that must fail without panicking or hanging.
func TestReadGarbage(t *testing.T) {
	bomb := `apiVersion: v1
kind: ConfigMap
metadata: {name: lol}
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
`
	cases := map[string]string{
		"binary":        "\x00\x01\x02\xff\xfe\x7f---\x00",
		"invalid utf8":  "apiVersion: \xc3\x28\nkind: x\n",
		"deep flow":     strings.Repeat("[", 100000) + strings.Repeat("]", 100000),
		"deep block":    strings.Repeat("- ", 20000) + "x\n",
		"alias bomb":    bomb,
		"tabs":          "apiVersion: v1\nkind: Service\nmetadata:\n\tname: x\n",
		"scalar":        "42\n",
		"null":          "null\n",
		"list":          "- apiVersion: v1\n  kind: Service\n",
		"separator":     "--- apiVersion: v1\nkind: Service\nmetadata: {name: x}\n",
		"unclosed":      `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "x"}`,
		"nan":           "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nv: .nan\n",
		"anchor ref":    "apiVersion: v1\nkind: Service\nmetadata: *nope\n",
		"list of lists": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items: []\n",
		"bad items":     "apiVersion: v1\nkind: List\nitems: 3\n",
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			docs, err := Read([]string{"-"}, strings.NewReader(in))
			if err == nil {
				t.Errorf("no error; docs = %v", docs)
			} else {
				t.Log(err)
			}
			if len(docs) != 0 {
				t.Errorf("docs = %v, want none", docs)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

const gatewayYAML = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: gc
  listeners:
  - {name: http, port: 80, protocol: HTTP}
  - {name: https, port: 443, protocol: HTTPS%s}
`

func TestDecodeStrict(t *testing.T) {
	cases := []struct {
		name, extra, field, msg string
	}{
		{"ok", "", "", ""},
		{"unknown nested", ", prot: x", "spec.listeners[1].prot", "unknown field"},
		{"wrong type indexed", ", allowedRoutes: {kinds: {kind: HTTPRoute}}", "spec.listeners[1].allowedRoutes.kinds", "expected a list, got an object"},
		{"not an integer", "}\n  - {name: x, port: 1.5, protocol: HTTP", "spec.listeners[2].port", "expected an integer (32-bit), got number 1.5"},
		{"string for int", "}\n  - {name: x, port: \"80\", protocol: HTTP", "spec.listeners[2].port", "expected an integer (32-bit), got a string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			docs, errs := readString(t, fmt.Sprintf(gatewayYAML, c.extra))
			if errs != nil {
				t.Fatal(errs)
			}
			var gw gwv1.Gateway
			err := DecodeStrict(docs[0], &gw)
			if c.field == "" && c.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(gw.Spec.Listeners) != 2 || gw.Spec.Listeners[1].Port != 443 || gw.Namespace != "infra" {
					t.Errorf("decoded %+v", gw.Spec)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not *Error", err, err)
			}
			if e.Field != c.field || e.Msg != c.msg || e.Object != "Gateway infra/gw" || e.Source.Doc != 1 {
				t.Errorf("got %+v, want field %q msg %q", *e, c.field, c.msg)
			}
		})
	}
}

type inner struct {
	Count int `json:"count"`
}

type embedded struct {
	Shared string `json:"shared"`
}

type outer struct {
	embedded
	Items  []inner           `json:"items"`
	ByName map[string]*inner `json:"byName"`
	Skip   string            `json:"-"`
	Any    any               `json:"any"`
}

func TestDecodeStrictPaths(t *testing.T) {
	cases := []struct {
		raw   map[string]any
		field string
		msg   string
	}{
		{map[string]any{"shared": "x", "any": map[string]any{"free": 1.0}}, "", ""},
		{map[string]any{"Items": []any{map[string]any{"COUNT": 1.0}}}, "", ""},
		{map[string]any{"byName": map[string]any{"a": map[string]any{"count": 1.0, "extra": true}}}, "byName.a.extra", "unknown field"},
		{map[string]any{"items": []any{map[string]any{"count": 1.0}, map[string]any{"count": -1e30}}}, "items[1].count", "expected an integer (64-bit), got number -1e+30"},
		{map[string]any{"Skip": "x"}, "Skip", "unknown field"},
		{map[string]any{"items": []any{"x"}}, "items[0]", "expected an object, got a string"},
	}
	for i, c := range cases {
		var o outer
		err := DecodeStrict(&Doc{Kind: "Outer", Name: "o", Raw: c.raw}, &o)
		if c.field == "" {
			if err != nil {
				t.Errorf("%d: %v", i, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Field != c.field || e.Msg != c.msg || e.Object != "Outer o" {
			t.Errorf("%d: got %#v, want field %q msg %q", i, err, c.field, c.msg)
		}
	}
	if err := DecodeStrict(nil, &outer{}); err == nil {
		t.Error("nil doc: no error")
	}
	if err := DecodeStrict(&Doc{Raw: map[string]any{}}, nil); err == nil {
		t.Error("nil target: no error")
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(multi))
	f.Add([]byte(fmt.Sprintf(gatewayYAML, ", prot: x")))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: a}}\n- 3\n"))
	f.Add([]byte("a: &a [1,2]\nb: [*a, *a]\n---\n- x\n---\n\t:\n"))
	f.Add([]byte("--- # c\n{\"apiVersion\": \"v1\"}\n---\n42\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := Read([]string{"-"}, bytes.NewReader(data))
		if err := checkCount(data, docs, err); err != nil {
			t.Fatal(err)
		}
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error %T %v is not a non-empty Errors", err, err)
			}
		}
		for _, d := range docs {
			if d.Kind == "" || d.Name == "" || d.Version == "" || d.Raw == nil {
				t.Fatalf("incomplete doc %+v", d)
			}
			_ = DecodeStrict(d, &gwv1.HTTPRoute{})
		}
	})
}
