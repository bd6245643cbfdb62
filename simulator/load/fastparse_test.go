package load_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator/load"
)

// parser is load.ParsePlain's signature, so that the checks below can be shown
// to catch a broken one.
type parser func([]byte) (any, int, bool)

// disagreement compares p with the library's reading (load.DecodeYAML, which
// is go.yaml.in/yaml/v2 as sigs.k8s.io/yaml uses it) on one document: p
// may decline (ok false), but what it returns must be what the library
// returns, depth included.
func disagreement(p parser, text []byte) string {
	v, depth, ok := p(text)
	if !ok {
		return ""
	}
	want, wantDepth, wantOK := load.DecodeYAML(text)
	switch {
	case !wantOK:
		return fmt.Sprintf("the fast path read %#v; the library refuses the document or takes its slow path", v)
	case !reflect.DeepEqual(v, want):
		return fmt.Sprintf("the fast path read %#v; the library %#v", v, want)
	case depth != wantDepth:
		return fmt.Sprintf("depth %d, the library %d", depth, wantDepth)
	}
	return ""
}

// trickyDocuments are documents at the edges of parsePlain's subset: YAML
// 1.1's booleans and numbers, keys that are not strings, comments,
// indentation, quoting, flow collections. The expectation of each is the
// library's reading, never a value written here.
var trickyDocuments = []string{
	"a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: n\ng: true\nh: False\n",
	"a: ~\nb: null\nc:\nd: NULL\ne: Null\n",
	"a: 0755\nb: 0x1F\nc: 0o17\nd: 0b101\ne: 1_000\nf: -0\ng: +7\nh: 007\n",
	"a: 1e3\nb: 1.5\nc: .5\nd: -.inf\ne: .nan\nf: 1.\ng: 6.02e+23\n",
	"a: 2026-01-01\nb: 2026-01-01T00:00:05Z\nc: 2026-1-2 3:4:5\nd: 12:30\ne: 1:2:3\n",
	"a: 123456789012345\nb: 1234567890123456\nc: 9223372036854775807\nd: 9223372036854775808\ne: 18446744073709551616\n",
	"a: -\nb: -a\nc: +\nd: 1-2\ne: 1.2.3\nf: 0x\ng: 1_\nh: 0xG\n",
	"yes: 1\n",
	"1: a\n",
	"~: a\n",
	"<<: {a: 1}\n",
	"a: 1\na: 2\n",
	"a: {b: 1, b: 2}\n",
	"a: b: c\n",
	"a: b:\n",
	"a: http://x:80/p\nb: c:d\n",
	"a: b # c\nb: c#d\nc: 'e' # f\nd: \"g\"#h\n",
	"a: |\n  x\n  y\n",
	"a: >-\n  x\n",
	"a: &x 1\nb: *x\n",
	"a: !!str 1\nb: !!int \"2\"\n",
	"a: x\n  y\n",
	"a:\n  x\n  y\n",
	"- a\n  b\n",
	"a:\n- x\n- y\nb: 1\n",
	"a:\n  - x\n  - y\nb:\n  c: 1\n",
	"- - a\n  - b\n- - c\n",
	"- a: 1\n  b: 2\n- c: 3\n",
	"- a:\n  - x\n  b: 1\n",
	"- a:\n- x\n",
	"-\n  a: 1\n- \n- b\n",
	"- # comment\n  a: 1\n",
	"a:\n\n  # comment\n  b: 1\n\n",
	"  a: 1\n  b: 2\n",
	"a:\n    b: 1\n  c: 2\n",
	"a: 1\n b: 2\n",
	"a:   spaced   out   \nb: 'it''s'\nc: \"q\\\"t\\\\n\\n\\t\\/\"\nd: \"\\u00e9\"\ne: \"\\x41\"\n",
	"a: \"q\\\"t\\\\n\\n\\t\"\nb: \"a\\/b\"\nc: \"\\'\"\n",
	"a: 'x\n  y'\n",
	"a: \"x\n  y\"\n",
	"\"a b\": 1\n'c': 2\n\"d\" : 3\n\"e\":4\n",
	"a: {b: 1, c: [x, y, {z: w}], d: {}}\ne: []\nf: [ ]\ng: { }\n",
	"a: [a, b, ]\nb: {x: 1, }\nc: [,]\nd: {,}\n",
	"a: [a: b]\nb: {x}\nc: {x:1}\nd: {\"x\":1}\ne: {x: }\n",
	"a: [http://x, c:d, e:]\nb: {u: http://x:1/p, v: a b  c}\nc: [a?b]\nd: [a #b]\n",
	"a: {b: 1}\n  c: 2\n",
	"a: [1,\n  2]\n",
	"{\"apiVersion\": \"v1\", \"kind\": \"Service\"}\n",
	"[a, b]\n",
	"x\n",
	"'x'\n",
	"a:\tb\n",
	"a: b\r\nc: d\r\n",
	"a: caf\xc3\xa9\n",
	"? a\n: b\n",
	"a: ? b\n",
	"a: %x\nb: @x\nc: `x\n",
	"a: -1\nb: - 1\n",
	"a: [[[[[[1]]]]]]\n",
	"key with spaces: value with: colon\n",
	"a: 'b'c\n",
	"a: \"b\" c\n",
	"a:b\n",
	"a: .\nb: ..\nc: <x>\n",
	"a: =\nb: \\x\nc: {x: =}\n",
}

// trickyCases are the tricky documents and, one by one, the top-level
// lines of each, so that one line the fast path declines does not hide
// the others from it.
func trickyCases() [][]byte {
	var out [][]byte
	for _, d := range trickyDocuments {
		out = append(out, []byte(d))
		lines := strings.SplitAfter(d, "\n")
		if len(lines) < 3 {
			continue
		}
		for _, l := range lines {
			if l != "" && l[0] != ' ' && l[0] != '-' && strings.Contains(l, ": ") {
				out = append(out, []byte(l))
			}
		}
	}
	return out
}

// documentsOfTheRepository are every document of the scenario catalogue,
// the bad-input corpus, the docs' examples and a generated workload.
func documentsOfTheRepository(t *testing.T) [][]byte {
	t.Helper()
	var docs [][]byte
	add := func(data []byte) {
		texts, _ := load.SplitDocuments(data)
		docs = append(docs, texts...)
	}
	for _, root := range []string{"../../scenarios", "../../cmd/gepcheck/testdata", "../../docs", "testdata", "../testdata"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if ext := filepath.Ext(p); ext != ".yaml" && ext != ".yml" && ext != ".json" {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			add(data)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var w bytes.Buffer
	if err := generators.Workload(&w, 200, 1); err != nil {
		t.Fatal(err)
	}
	add(w.Bytes())
	return docs
}

// TestFastParseAgrees checks load.ParsePlain against the library on every
// document of the repository and on the tricky documents: where it reads
// a document, it reads what the library reads.
func TestFastParseAgrees(t *testing.T) {
	docs := documentsOfTheRepository(t)
	docs = append(docs, trickyCases()...)
	fast := 0
	for _, d := range docs {
		if msg := disagreement(load.ParsePlain, d); msg != "" {
			t.Errorf("%q: %s", d, msg)
		}
		if _, _, ok := load.ParsePlain(d); ok {
			fast++
		}
	}
	t.Logf("%d of %d documents read by the fast path", fast, len(docs))
}

// TestFastParseTakesManifests checks that the fast path is taken where it
// is meant to be: every document of the generated workload (the shape of
// docs/performance.md) and most of the scenario catalogue (85 %: the
// catalogue holds upstream's conformance manifests and kept findings, whose
// flow collections and block scalars the fast path leaves to the library).
func TestFastParseTakesManifests(t *testing.T) {
	var w bytes.Buffer
	if err := generators.Workload(&w, 200, 1); err != nil {
		t.Fatal(err)
	}
	texts, lines := load.SplitDocuments(w.Bytes())
	for i, text := range texts {
		if _, _, ok := load.ParsePlain(text); !ok {
			t.Errorf("workload document at line %d not read by the fast path:\n%s", lines[i], text)
		}
	}
	var all, fast int
	for _, root := range []string{"../../scenarios"} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || filepath.Ext(p) != ".yaml" {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			texts, _ := load.SplitDocuments(data)
			for _, text := range texts {
				all++
				if _, _, ok := load.ParsePlain(text); ok {
					fast++
				}
			}
			return nil
		})
	}
	if all == 0 || fast*100 < all*85 {
		t.Errorf("the fast path read %d of the catalogue's %d documents; want at least 85%%", fast, all)
	}
}

// TestFastParseAgreementCatches shows the check fails on fast paths that
// read a document otherwise than the library: YAML 1.1's "on" read as a
// string, a duplicate key kept, a depth off by one.
func TestFastParseAgreementCatches(t *testing.T) {
	mutants := map[string]parser{
		"on read as a string": func(b []byte) (any, int, bool) {
			v, d, ok := load.ParsePlain(b)
			if m, isMap := v.(map[string]any); isMap && m["c"] == true && bytes.Contains(b, []byte("c: on")) {
				m["c"] = "on"
			}
			return v, d, ok
		},
		"duplicate keys kept": func(b []byte) (any, int, bool) {
			if string(b) == "a: 1\na: 2\n" {
				return map[string]any{"a": float64(2)}, 1, true
			}
			return load.ParsePlain(b)
		},
		"depth off by one": func(b []byte) (any, int, bool) {
			v, d, ok := load.ParsePlain(b)
			return v, d + 1, ok
		},
	}
	for name, m := range mutants {
		caught := false
		for _, d := range trickyCases() {
			if disagreement(m, d) != "" {
				caught = true
				break
			}
		}
		if !caught {
			t.Errorf("mutant %q not caught", name)
		}
	}
}

func FuzzFastParse(f *testing.F) {
	for _, d := range trickyCases() {
		f.Add(d)
	}
	var w bytes.Buffer
	if err := generators.Workload(&w, 3, 1); err != nil {
		f.Fatal(err)
	}
	texts, _ := load.SplitDocuments(w.Bytes())
	for _, text := range texts {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if strings.Count(string(data), "\n") > 200 {
			return
		}
		if msg := disagreement(load.ParsePlain, data); msg != "" {
			t.Fatalf("%q: %s", data, msg)
		}
	})
}
