// Package load reads Kubernetes objects from multi-document YAML or JSON
// files the way kubectl does: files, directories (recursively) and stdin,
// documents separated by "---" lines, and List kinds expanded into their
// items.
//
// Every problem found is reported with the file, document number and line
// where the document starts, so that users can find it; Read collects all
// of them instead of stopping at the first.
package load

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/simulator/ref"
)

// StdinName is the File of documents read from stdin.
const StdinName = "<stdin>"

// Source locates a document.
type Source struct {
	File string // path as given, or StdinName
	Doc  int    // 1-based number of the document in File, counting non-empty documents
	Line int    // 1-based line of the first non-blank, non-comment line of the document
	Item int    // 1-based index in the items of a List document; 0 if not from a List
}

// String renders s as "FILE: document N (line L) item I", leaving out the
// parts that are unknown.
func (s Source) String() string {
	var b strings.Builder
	b.WriteString(s.File)
	if s.Doc > 0 {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		fmt.Fprintf(&b, "document %d", s.Doc)
	}
	if s.Line > 0 {
		fmt.Fprintf(&b, " (line %d)", s.Line)
	}
	if s.Item > 0 {
		fmt.Fprintf(&b, " item %d", s.Item)
	}
	return strings.TrimSpace(b.String())
}

// Doc is one Kubernetes object read from a file.
type Doc struct {
	Source     Source
	APIVersion string
	Group      string // group part of APIVersion; "" for the core group ("v1")
	Version    string
	Kind       string
	Namespace  string // metadata.namespace as written; may be empty
	Name       string
	// Raw is the whole object as decoded by sigs.k8s.io/yaml: map[string]any,
	// []any, float64, string, bool and nil values.
	Raw map[string]any

	// text is the document as read (the whole List for a List item), and
	// firstLine the line of its first byte in the file: At finds a field's
	// line in it.
	text      []byte
	firstLine int
	// within is the field of the document text that holds this object,
	// for an object embedded in another (Embedded); "" otherwise.
	within string
}

// Object describes d as "Kind namespace/name", or "Kind name" when d has no
// namespace; "object" stands for an unknown kind.
func (d *Doc) Object() string {
	return objectName(d.Kind, d.Namespace, d.Name)
}

func objectName(kind, namespace, name string) string {
	if kind == "" {
		kind = "object"
	}
	switch {
	case name == "":
		return kind
	case namespace != "":
		return kind + " " + namespace + "/" + name
	default:
		return kind + " " + name
	}
}

// Error is a problem with a document, or with a path given to Read.
type Error struct {
	Source Source
	Object string // e.g. "HTTPRoute default/r1"; may be empty
	Field  string // dotted field path, e.g. "spec.rules[0].backendRefs"; may be empty
	Msg    string
}

// Error renders e as "FILE: document N (line L): Kind ns/name: field F: msg",
// leaving out the parts that are empty.
func (e *Error) Error() string {
	parts := make([]string, 0, 4)
	if s := e.Source.String(); s != "" {
		parts = append(parts, s)
	}
	if e.Object != "" {
		parts = append(parts, e.Object)
	}
	if e.Field != "" {
		parts = append(parts, "field "+e.Field)
	}
	if e.Msg != "" {
		parts = append(parts, e.Msg)
	}
	// Names and fields come from the input: escaped, they cannot forge a
	// line or drive the terminal.
	return ref.Printable(strings.Join(parts, ": "))
}

// Errors is a list of problems; it is an error with one line per problem.
type Errors []*Error

// Error joins the errors, one a line.
func (es Errors) Error() string {
	lines := make([]string, 0, len(es))
	for _, e := range es {
		if e != nil {
			lines = append(lines, e.Error())
		}
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.As and errors.Is see each error.
func (es Errors) Unwrap() []error {
	out := make([]error, 0, len(es))
	for _, e := range es {
		if e != nil {
			out = append(out, e)
		}
	}
	return out
}

// Add appends e, ignoring a nil e or a nil receiver.
func (es *Errors) Add(e *Error) {
	if es == nil || e == nil {
		return
	}
	*es = append(*es, e)
}

// Err returns es as an error, or nil when es is empty, avoiding a non-nil
// error interface that holds an empty list.
func (es Errors) Err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}

// Read reads the objects in paths. A path is a file, a directory (walked
// recursively for files ending in .yaml, .yml or .json, in lexical order) or
// "-" for stdin. Read returns every valid object, in order, and an Errors
// holding every problem found, or a nil error. It reads within
// DefaultLimits (ReadLimited).
func Read(paths []string, stdin io.Reader) ([]*Doc, error) {
	return ReadLimited(paths, stdin, DefaultLimits)
}

// Limits bound the work of reading input and of simulating it. A limit of
// 0 is its default.
type Limits struct {
	// MaxBytes is the most bytes read from one file or from standard
	// input (--max-bytes).
	MaxBytes int64
	// MaxDocuments is the most documents read in all (--max-documents).
	MaxDocuments int
	// MaxPaths is the most path prefixes of the hierarchy, counted
	// before any path is walked (--max-paths; topology.Graph.Prefixes).
	MaxPaths int64
	// MaxDepth is the most levels of nesting in one document
	// (--max-depth; depth.go).
	MaxDepth int
}

// DefaultLimits are the limits when none are given: far above any real
// manifest set, far below what exhausts a machine.
// (GEP-713's Example 2 has 12 path prefixes; 10,000 HTTPRoutes under 100
// Gateways about 390,000.)
var DefaultLimits = Limits{MaxBytes: 64 << 20, MaxDocuments: 200_000, MaxPaths: 5_000_000, MaxDepth: DefaultMaxDepth}

// OrDefault is l with every zero limit set to its default.
func (l Limits) OrDefault() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultLimits.MaxBytes
	}
	if l.MaxDocuments <= 0 {
		l.MaxDocuments = DefaultLimits.MaxDocuments
	}
	if l.MaxPaths <= 0 {
		l.MaxPaths = DefaultLimits.MaxPaths
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultLimits.MaxDepth
	}
	return l
}

// ReadLimited is Read within lim: only regular files, directories and
// standard input are read (a device, a named pipe or a socket could block
// or never end), each at most lim.MaxBytes, and at most lim.MaxDocuments
// documents in all; past a limit the error names the file and the limit.
// Every file is read as objects: ReadInput skips, in a folder, what is
// not.
func ReadLimited(paths []string, stdin io.Reader, lim Limits) ([]*Doc, error) {
	docs, _, err := read(Input{Paths: paths, Stdin: stdin}, lim, false)
	return docs, err
}

// Objects reads objs, objects a caller holds decoded (read from a
// cluster, as unstructured.Unstructured holds them), as ReadLimited reads
// the same objects written as the documents of one file named file: object
// i is document i+1, its numbers float64 as the YAML decoder gives them,
// and every check of a document's type, metadata and nesting (lim.MaxDepth)
// and lim.MaxDocuments hold. The limit: there is no text, so no error names
// a line, and lim.MaxBytes is not applied (the objects are in memory
// already). The objects are copied, not kept.
func Objects(file string, objs []map[string]any, lim Limits) ([]*Doc, error) {
	lim = lim.OrDefault()
	var (
		docs []*Doc
		errs Errors
	)
	for i, o := range objs {
		d, _ := decoded(Source{File: file, Doc: i + 1}, chunk{}, FromAPI(o), lim.MaxDepth+1, lim.MaxDepth, &errs)
		docs = append(docs, d...)
		if len(docs) > lim.MaxDocuments {
			return nil, &Error{Source: docs[lim.MaxDocuments].Source, Msg: fmt.Sprintf("more than %d documents in all (the limit; --max-documents raises it)", lim.MaxDocuments)}
		}
	}
	return docs, errs.Err()
}

// FromAPI copies v, a JSON value as the API server decodes it
// (unstructured JSON: integers int64), with every number a float64, as
// gepcheck reads YAML.
func FromAPI(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = FromAPI(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = FromAPI(x)
		}
		return out
	case int64:
		return float64(v)
	case int32:
		return float64(v)
	case int:
		return float64(v)
	}
	return v
}

// ToAPI copies v, a JSON value as gepcheck reads it, as the API server
// decodes it: an integral number is an int64 (unstructured JSON), other
// numbers float64.
func ToAPI(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = ToAPI(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = ToAPI(x)
		}
		return out
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int64(v)
		}
		return v
	case int:
		return int64(v)
	}
	return v
}

// ReadBytes reads data, the text of one input that is not a file (an
// object read from a cluster, named "cluster:CONTEXT/KIND/NAMESPACE/NAME"),
// as ReadLimited reads a file named name: at most lim.MaxBytes, nesting at
// most lim.MaxDepth, every error naming name, document, line and field.
// The caller counts documents against lim.MaxDocuments.
func ReadBytes(name string, data []byte, lim Limits) ([]*Doc, error) {
	lim = lim.OrDefault()
	if int64(len(data)) > lim.MaxBytes {
		return nil, &Error{Source: Source{File: name}, Msg: fmt.Sprintf("more than %d bytes (the limit; --max-bytes raises it)", lim.MaxBytes)}
	}
	var errs Errors
	docs, _ := parseFile(name, data, lim.MaxDepth, &errs)
	return docs, errs.Err()
}

// readFile reads a regular file of at most max bytes.
func readFile(path string, max int64) ([]byte, error) {
	data, err := ReadRegular(path, max)
	var le *LimitError
	switch {
	case errors.As(err, &le):
		return nil, fmt.Errorf("%s (--max-bytes raises it)", le.Msg)
	case errors.As(err, new(*NotRegularError)):
		return nil, fmt.Errorf("%w: %s", err, whatIsRead)
	}
	return data, err
}

// ReadNamed is ReadRegular with the path in its errors, for callers that
// return them as they are.
func ReadNamed(path string, max int64) ([]byte, error) {
	data, err := ReadRegular(path, max)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// fileError is an error of the file system, said without the path (the
// caller names it), that still matches fs.ErrNotExist and the like.
type fileError struct {
	msg string
	err error
}

func (e *fileError) Error() string { return e.msg }
func (e *fileError) Unwrap() error { return e.err }

// NotRegularError is a path ReadRegular refuses: Kind says what it is
// ("a named pipe", "a directory").
type NotRegularError struct{ Kind string }

func (e *NotRegularError) Error() string { return "is " + e.Kind + ", not a regular file" }

// whatIsRead is what the loader's own paths may be (Read).
const whatIsRead = "gepcheck reads regular files, directories and - (standard input)"

// LimitError is a file over the byte limit of ReadRegular; Msg says so
// without naming the flag that raises it, which the caller knows.
type LimitError struct{ Msg string }

func (e *LimitError) Error() string { return e.Msg }

// ReadRegular reads the regular file at path, of at most max bytes: the
// one way gepcheck reads a file it is given (scenarios, profiles,
// results, findings, admission configurations and requests, CRDs,
// what an implementation writes). A device, a named pipe or a socket is
// refused by name before any byte is read (docs/limits.md); a file over
// max is a *LimitError. Errors do not repeat the path: callers name it.
func ReadRegular(path string, max int64) ([]byte, error) {
	// Checked before it is opened, as opening a device can act (a tape
	// rewinds, a watchdog arms) and a named pipe waits for a writer;
	// then opened without blocking or taking a terminal, and checked
	// again on the open file, so that what is read is what was checked.
	info, err := os.Stat(path)
	if err != nil {
		return nil, &fileError{pathErrMsg(err), err}
	}
	if !info.Mode().IsRegular() {
		return nil, &NotRegularError{Kind: fileKind(info.Mode())}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, &fileError{pathErrMsg(err), err}
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return nil, &fileError{pathErrMsg(err), err}
	}
	if !opened.Mode().IsRegular() || !os.SameFile(info, opened) {
		return nil, fmt.Errorf("changed while it was opened: gepcheck reads a regular file that stays one")
	}
	if opened.Size() > max {
		return nil, &LimitError{Msg: fmt.Sprintf("is %d bytes, more than the limit of %d", opened.Size(), max)}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, &fileError{pathErrMsg(err), err}
	}
	if int64(len(data)) > max {
		return nil, &LimitError{Msg: fmt.Sprintf("grew past the limit of %d bytes while read", max)}
	}
	return data, nil
}

// readAtMost reads r to its end, or fails past max bytes.
func readAtMost(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("more than the limit of %d bytes (--max-bytes raises it)", max)
	}
	return data, nil
}

// fileKind names what a file that is not regular is.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "not a regular file"
}

// expand lists the files path names: itself, or the manifests of the
// folder it is (folder is true).
func expand(path string) (files []string, folder bool, err error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, false, errors.New(pathErrMsg(err))
	}
	if !info.IsDir() {
		if !info.Mode().IsRegular() {
			return nil, false, fmt.Errorf("%w: %s", &NotRegularError{Kind: fileKind(info.Mode())}, whatIsRead)
		}
		return []string{path}, false, nil
	}
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && isManifest(p) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, true, err
	}
	sort.Strings(files)
	return files, true, nil
}

func isManifest(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

func pathErrMsg(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "no such file or directory"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// chunk is the text of one document and the line it starts on.
type chunk struct {
	text      []byte
	firstLine int // line of text[0]
	line      int // first line with content
}

// separator matches a document separator line: "---" (a document start)
// or "..." (a document end, after which a new document may begin without
// "---"), then optionally spaces and a comment after them ("---#x" is no
// separator to YAML: a comment follows a space).
var separator = regexp.MustCompile(`^(---|\.\.\.)([ \t]+(#.*)?)?$`)

// split cuts data into documents on separator lines, dropping documents that
// hold only blank lines and comments. Line ends may be LF, CRLF or a lone
// CR (classic Mac); a document that is a stream of JSON values, as kubectl
// accepts, is one document per value.
func split(data []byte) []chunk {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // UTF-8 byte order mark
	data = loneCRToLF(data)
	var (
		out   []chunk
		cur   chunk
		start = 0
	)
	cur.firstLine = 1
	flush := func(end int) {
		if cur.line > 0 {
			cur.text = data[start:end]
			out = append(out, cur)
		}
	}
	lineNo := 0
	for off := 0; off < len(data); {
		lineNo++
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			next = off + end + 1
		}
		line := bytes.TrimRight(data[off:next], "\r\n")
		if separator.Match(line) {
			flush(off)
			cur = chunk{firstLine: lineNo + 1}
			start = next
		} else if cur.line == 0 && hasContent(line) {
			cur.line = lineNo
		}
		off = next
	}
	flush(len(data))
	var docs []chunk
	for _, c := range out {
		docs = append(docs, jsonStream(c)...)
	}
	return docs
}

// loneCRToLF turns every CR not followed by LF into LF, so that lines
// ended by a lone CR are lines.
func loneCRToLF(data []byte) []byte {
	if bytes.IndexByte(data, '\r') < 0 {
		return data
	}
	var out []byte // a copy, made at the first lone CR
	for i, c := range data {
		if c == '\r' && (i+1 == len(data) || data[i+1] != '\n') {
			if out == nil {
				out = bytes.Clone(data)
			}
			out[i] = '\n'
		}
	}
	if out == nil {
		return data
	}
	return out
}

// jsonStream splits a document that is two or more JSON values one after
// another into one chunk per value; anything else is returned as it is
// (and a malformed value is the YAML parser's to report).
func jsonStream(c chunk) []chunk {
	t := bytes.TrimLeft(c.text, " \t\r\n")
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return []chunk{c}
	}
	dec := json.NewDecoder(bytes.NewReader(c.text))
	var ends []int
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if err != io.EOF {
				return []chunk{c}
			}
			break
		}
		ends = append(ends, int(dec.InputOffset()))
	}
	if len(ends) < 2 {
		return []chunk{c}
	}
	var out []chunk
	start := 0
	for _, end := range ends {
		text := c.text[start:end]
		lead := len(text) - len(bytes.TrimLeft(text, " \t\r\n"))
		first := c.firstLine + bytes.Count(c.text[:start], []byte("\n"))
		line := first + bytes.Count(text[:lead], []byte("\n"))
		out = append(out, chunk{text: text, firstLine: first, line: line})
		start = end
	}
	return out
}

// hasContent reports whether a line is neither blank nor a comment.
func hasContent(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) > 0 && t[0] != '#'
}

// content is what a document, or a file, holds.
type content int

const (
	objects       content = iota // Kubernetes objects, or what does not parse (its error is kept)
	plainYAML                    // mappings with neither apiVersion nor kind: a Helm values file, a CI workflow
	kustomization                // kustomize's own kinds (group kustomize.config.k8s.io): its input
)

// parseHook, when set (OnParse), is called with the name of every file
// parseFile decodes.
var parseHook atomic.Pointer[func(file string)]

// OnParse calls f with the name of every file decoded from then on
// ("<stdin>" for standard input), until the function it returns is
// called: a test counts with it that a run parses each scenario file once
// (issue 32). f may be called from several goroutines at once.
func OnParse(f func(file string)) (stop func()) {
	parseHook.Store(&f)
	return func() { parseHook.Store(nil) }
}

// CountParses counts, by name, the files decoded (OnParse) until stop is
// called; parsed is read after stop.
func CountParses() (parsed map[string]int, stop func()) {
	var mu sync.Mutex
	parsed = map[string]int{}
	return parsed, OnParse(func(file string) {
		mu.Lock()
		defer mu.Unlock()
		parsed[file]++
	})
}

// NotOnce says, of a count of parses (CountParses), which of files were
// not parsed once, and what else was parsed.
func NotOnce(parsed map[string]int, files []string) []string {
	var out []string
	for _, f := range files {
		if parsed[f] != 1 {
			out = append(out, fmt.Sprintf("%s parsed %d times, want once", f, parsed[f]))
		}
	}
	for _, f := range slices.Sorted(maps.Keys(parsed)) {
		if !slices.Contains(files, f) {
			out = append(out, fmt.Sprintf("%s parsed %d times: no scenario file (a case's YAML parsed again)", f, parsed[f]))
		}
	}
	return out
}

// parseFile decodes the documents of one file, and says what the file
// holds: plainYAML or kustomization when every document does, else
// objects (also for a file with no document).
func parseFile(file string, data []byte, maxDepth int, errs *Errors) ([]*Doc, content) {
	if h := parseHook.Load(); h != nil {
		(*h)(file)
	}
	chunks := split(data)
	docs := make([][]*Doc, len(chunks))
	chunkErrs := make([]Errors, len(chunks))
	kinds := make([]content, len(chunks))
	// Documents are independent: decoded on every CPU, kept in order.
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range min(runtime.GOMAXPROCS(0), len(chunks)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(chunks); i = int(next.Add(1) - 1) {
				src := Source{File: file, Doc: i + 1, Line: chunks[i].line}
				docs[i], kinds[i] = parseChunk(src, chunks[i], maxDepth, &chunkErrs[i])
			}
		})
	}
	wg.Wait()
	var out []*Doc
	for i := range chunks {
		out = append(out, docs[i]...)
		for _, e := range chunkErrs[i] {
			errs.Add(e)
		}
	}
	if len(kinds) == 0 {
		return out, objects
	}
	for _, k := range kinds[1:] {
		if k != kinds[0] {
			return out, objects
		}
	}
	return out, kinds[0]
}

// parseChunk decodes one document, expanding Lists, and says what it
// holds.
func parseChunk(src Source, c chunk, maxDepth int, errs *Errors) ([]*Doc, content) {
	if msg := checkStraySeparator(c); msg != "" {
		errs.Add(&Error{Source: src, Msg: msg})
		return nil, objects
	}
	v, depth, ok := parsePlain(c.text)
	if !ok {
		v, depth, ok = decodeYAML(c.text)
	}
	if !ok {
		var msg string
		if v, msg = slowDecode(c, src, errs); msg != "" {
			return nil, objects
		}
		depth = maxDepth + 1 // unknown: walked below
	}
	return decoded(src, c, v, depth, maxDepth, errs)
}

// decoded is parseChunk past decoding: v, of nesting depth (maxDepth+1:
// unknown), checked and read as a document, a List expanded.
func decoded(src Source, c chunk, v any, depth, maxDepth int, errs *Errors) ([]*Doc, content) {
	if depth > maxDepth {
		if path, over := overDepth(v, maxDepth); over {
			errs.Add(depthError(src, v, path, maxDepth))
			return nil, objects
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		errs.Add(&Error{Source: src, Msg: "document must be a mapping, got " + jsonKind(v)})
		return nil, objects
	}
	what := contentOf(m)
	if items, ok := listItems(m); ok {
		return parseList(src, c, m, items, errs), what
	}
	if d := newDoc(src, c, m, errs); d != nil {
		return []*Doc{d}, what
	}
	return nil, what
}

// contentOf says what a decoded document holds.
func contentOf(m map[string]any) content {
	av, hasAPIVersion := m["apiVersion"]
	_, hasKind := m["kind"]
	if !hasAPIVersion && !hasKind {
		return plainYAML
	}
	if s, ok := av.(string); ok && strings.HasPrefix(s, kustomizeGroup+"/") {
		return kustomization
	}
	return objects
}

// slowDecode decodes a document the way decodeYAML does not take:
// sigs.k8s.io/yaml's conversion to JSON, then encoding/json. It reports
// the problem with the document, if any, and says so with a non-empty msg.
func slowDecode(c chunk, src Source, errs *Errors) (v any, msg string) {
	j, err := yaml.YAMLToJSONStrict(c.text)
	if err != nil {
		if path, line, val, ok := nonFinite(c.text); ok {
			e := &Error{Source: src, Field: path, Msg: fmt.Sprintf("line %d: %s is a number JSON cannot hold, and Kubernetes objects are JSON (quote it for a string)", c.firstLine+line-1, val)}
			errs.Add(e)
			return nil, e.Msg
		}
		e := &Error{Source: src, Msg: yamlErrMsg(err, c.firstLine)}
		errs.Add(e)
		return nil, e.Msg
	}
	if err := json.Unmarshal(j, &v); err != nil {
		e := &Error{Source: src, Msg: "invalid document: " + strings.TrimPrefix(err.Error(), "json: ")}
		errs.Add(e)
		return nil, e.Msg
	}
	return v, ""
}

// checkStraySeparator refuses "--- value" lines: YAML would read the text
// after them as a further document that the decoder silently drops.
func checkStraySeparator(c chunk) string {
	for i, line := range bytes.Split(c.text, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("--- ")) || bytes.HasPrefix(line, []byte("---\t")) {
			return fmt.Sprintf("line %d: only spaces and a comment may follow the document separator \"---\"", c.firstLine+i)
		}
	}
	return ""
}

// yamlLine matches the line numbers in YAML parser errors.
var yamlLine = regexp.MustCompile(`line (\d+)`)

// yamlErrMsg rewrites a YAML error so that its line numbers count from the
// start of the file rather than of the document.
func yamlErrMsg(err error, firstLine int) string {
	msg := err.Error()
	for _, p := range []string{"error converting YAML to JSON: ", "yaml: ", "unmarshal errors:"} {
		msg = strings.TrimPrefix(strings.TrimSpace(msg), p)
	}
	msg = yamlLine.ReplaceAllStringFunc(msg, func(s string) string {
		n, err := strconv.Atoi(strings.TrimPrefix(s, "line "))
		if err != nil {
			return s
		}
		return fmt.Sprintf("line %d", firstLine+n-1)
	})
	var lines []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return "invalid YAML: " + strings.Join(lines, "; ")
}

// listItems returns the items of a List: kind "List", or any kind ending in
// "List" with an items array, as kubectl reads them.
func listItems(m map[string]any) ([]any, bool) {
	kind, _ := m["kind"].(string)
	if !strings.HasSuffix(kind, "List") {
		return nil, false
	}
	items, isArray := m["items"].([]any)
	if isArray {
		return items, true
	}
	if kind == "List" {
		return nil, true // checked in parseList
	}
	return nil, false
}

func parseList(src Source, c chunk, m map[string]any, items []any, errs *Errors) []*Doc {
	kind, _ := m["kind"].(string)
	if _, _, err := checkAPIVersion(m); err != nil {
		errs.Add(&Error{Source: src, Object: kind, Field: "apiVersion", Msg: err.Error()})
	}
	if raw, present := m["items"]; present && raw != nil && items == nil {
		errs.Add(&Error{Source: src, Object: kind, Field: "items", Msg: "must be a list, got " + jsonKind(raw)})
		return nil
	}
	var docs []*Doc
	for i, it := range items {
		isrc := src
		isrc.Item = i + 1
		im, ok := it.(map[string]any)
		if !ok {
			errs.Add(&Error{Source: isrc, Msg: "list item must be a mapping, got " + jsonKind(it)})
			continue
		}
		if _, nested := listItems(im); nested {
			errs.Add(&Error{Source: isrc, Field: "kind", Msg: "a List inside a List is not supported"})
			continue
		}
		if d := newDoc(isrc, c, im, errs); d != nil {
			docs = append(docs, d)
		}
	}
	return docs
}

// withoutObjectMeta are the types gepcheck reads that are no API objects:
// they have TypeMeta and no ObjectMeta, so no metadata.name (an
// admission.k8s.io AdmissionReview, as a webhook receives it).
var withoutObjectMeta = map[string]bool{"admission.k8s.io/AdmissionReview": true}

// newDoc checks the type and object metadata of m and builds its Doc, or
// reports every problem found and returns nil.
func newDoc(src Source, c chunk, m map[string]any, errs *Errors) *Doc {
	d := &Doc{Source: src, Raw: m, text: c.text, firstLine: c.firstLine}
	var bad Errors
	report := func(field, msg string) {
		bad.Add(&Error{Source: d.At(field), Field: field, Msg: msg})
	}
	var err error
	d.APIVersion, _ = m["apiVersion"].(string)
	if d.Group, d.Version, err = checkAPIVersion(m); err != nil {
		report("apiVersion", err.Error())
	}
	if d.Kind, err = stringField(m, "kind", true); err != nil {
		report("kind", err.Error())
	}
	meta, present := m["metadata"]
	metaMap, ok := meta.(map[string]any)
	switch {
	case (!present || meta == nil) && withoutObjectMeta[d.Group+"/"+d.Kind]:
	case !present || meta == nil:
		report("metadata.name", "is required")
	case !ok:
		report("metadata", "must be a mapping, got "+jsonKind(meta))
	default:
		if d.Name, err = stringField(metaMap, "name", true); err != nil {
			report("metadata.name", err.Error())
		}
		if d.Namespace, err = stringField(metaMap, "namespace", false); err != nil {
			report("metadata.namespace", err.Error())
		}
		checkNames(d, report)
	}
	if len(bad) == 0 {
		return d
	}
	obj := d.Object()
	for _, e := range bad {
		e.Object = obj
		errs.Add(e)
	}
	return nil
}

// Embedded reads m, an object written inside document parent at field
// (a scenario step's spec.steps[i].apply[j]), as a document of its own:
// errors about it name the lines of parent's text. It reports the
// problems newDoc reports and returns nil when there are any.
func Embedded(parent *Doc, field string, m map[string]any, errs *Errors) *Doc {
	src := parent.At(field)
	c := chunk{text: parent.text, firstLine: parent.firstLine}
	d := &Doc{Source: src, text: c.text, firstLine: c.firstLine, within: parent.field(field)}
	var bad Errors
	if nd := newDoc(src, c, m, &bad); nd != nil {
		nd.within = d.within
		return nd
	}
	// Point each error at its field inside the embedding document.
	for _, e := range bad {
		if e.Field != "" {
			e.Source = d.At(e.Field)
		}
		errs.Add(e)
	}
	return nil
}

// WithRaw is d holding raw instead of its object (a scenario step's state
// with a creationTimestamp set): the source and text stay d's.
func (d *Doc) WithRaw(raw map[string]any) *Doc {
	c := *d
	c.Raw = raw
	return &c
}

// checkAPIVersion splits apiVersion into group and version.
func checkAPIVersion(m map[string]any) (group, version string, err error) {
	av, err := stringField(m, "apiVersion", true)
	if err != nil {
		return "", "", err
	}
	parts := strings.Split(av, "/")
	switch {
	case len(parts) == 1:
		return "", parts[0], nil
	case len(parts) == 2 && parts[0] != "" && parts[1] != "":
		return parts[0], parts[1], nil
	}
	return "", "", fmt.Errorf("%q is not group/version or version", av)
}

// stringField reads the string m[key].
func stringField(m map[string]any, key string, required bool) (string, error) {
	v, present := m[key]
	if !present || v == nil {
		if required {
			return "", errors.New("is required")
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", errors.New("must be a string, got " + jsonKind(v))
	}
	if s == "" && required {
		return "", errors.New("is required")
	}
	return s, nil
}

// jsonKind names the kind of a decoded JSON value.
func jsonKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case string:
		return fmt.Sprintf("the string %q", truncate(v))
	case float64:
		return "the number " + strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return "the boolean " + strconv.FormatBool(v)
	}
	return fmt.Sprintf("%T", v)
}

func truncate(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}

// DecodeStrict decodes d.Raw into into, a pointer to a Go API type, refusing
// fields that the type does not declare. A failure is an *Error that names
// the offending field, e.g. "spec.listeners[0].prot".
func DecodeStrict(d *Doc, into any) error {
	if d == nil || d.Raw == nil {
		return &Error{Msg: "no document"}
	}
	fail := func(field, msg string) error {
		return &Error{Source: d.At(field), Object: d.Object(), Field: field, Msg: msg}
	}
	data, err := json.Marshal(d.Raw)
	if err != nil {
		return fail("", "cannot encode document: "+strings.TrimPrefix(err.Error(), "json: "))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err = dec.Decode(into)
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		field := typeErr.Field
		if p, ok := findTypeError(typeErr, into, d.Raw); ok {
			field = p
		}
		return fail(field, fmt.Sprintf("expected %s, got %s", typeWords(typeErr.Type), valueWords(typeErr.Value)))
	}
	if name, ok := unknownFieldName(err); ok {
		field := name
		if p, ok := findUnknownField(name, into, d.Raw); ok {
			field = p
		}
		return fail(field, "unknown field")
	}
	return fail("", strings.TrimPrefix(err.Error(), "json: "))
}

// unknownFieldName extracts x from encoding/json's `json: unknown field "x"`.
func unknownFieldName(err error) (string, bool) {
	const prefix = "json: unknown field "
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return "", false
	}
	name, err := strconv.Unquote(strings.TrimPrefix(msg, prefix))
	return name, err == nil
}

// typeWords describes the JSON value a Go type expects.
func typeWords(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "a base64 string"
		}
		return "a list"
	case reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fmt.Sprintf("an integer (%d-bit)", t.Bits())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return fmt.Sprintf("a non-negative integer (%d-bit)", t.Bits())
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a " + t.String()
}

// valueWords describes the Value of a json.UnmarshalTypeError.
func valueWords(v string) string {
	switch v {
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "number":
		return "a number"
	}
	return v // e.g. "number 1.5"
}

// node is one value met while walking a decoded document against a Go type.
type node struct {
	path    string       // field path as written, with indexes: spec.listeners[0].port
	plain   string       // Go field path without indexes, as encoding/json reports it
	key     string       // last object key, if any
	typ     reflect.Type // nil for a field the Go type does not declare
	val     any
	unknown bool
}

// findUnknownField finds the path of the first field named name that the
// type of into does not declare, in the order encoding/json decodes.
func findUnknownField(name string, into any, raw map[string]any) (string, bool) {
	return find(into, raw, func(n node) bool { return n.unknown && n.key == name })
}

// findTypeError finds the path, with list indexes, of the value that caused
// a json.UnmarshalTypeError.
func findTypeError(te *json.UnmarshalTypeError, into any, raw map[string]any) (string, bool) {
	return find(into, raw, func(n node) bool {
		return !n.unknown && n.plain == te.Field && mismatch(n.typ, n.val)
	})
}

func find(into any, raw map[string]any, match func(node) bool) (string, bool) {
	t := reflect.TypeOf(into)
	if t == nil {
		return "", false
	}
	var found string
	ok := walk(node{typ: t, val: raw}, func(n node) bool {
		if match(n) {
			found = n.path
			return true
		}
		return false
	})
	return found, ok && found != ""
}

// walk visits n and its descendants depth first, object keys in sorted order
// (the order of json.Marshal, hence of decoding); it stops as soon as visit
// returns true and reports whether it did.
func walk(n node, visit func(node) bool) bool {
	for n.typ != nil && n.typ.Kind() == reflect.Pointer {
		n.typ = n.typ.Elem()
	}
	if visit(n) {
		return true
	}
	if n.unknown || opaque(n.typ) {
		return false
	}
	switch v := n.val.(type) {
	case map[string]any:
		return walkObject(n, v, visit)
	case []any:
		if k := n.typ.Kind(); k != reflect.Slice && k != reflect.Array {
			return false
		}
		for i, e := range v {
			c := node{path: fmt.Sprintf("%s[%d]", n.path, i), plain: n.plain, typ: n.typ.Elem(), val: e}
			if walk(c, visit) {
				return true
			}
		}
	}
	return false
}

func walkObject(n node, obj map[string]any, visit func(node) bool) bool {
	var fields []field
	switch n.typ.Kind() {
	case reflect.Struct:
		fields = jsonFields(n.typ, map[reflect.Type]bool{})
	case reflect.Map:
	default:
		return false
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		c := node{path: joinPath(n.path, k), key: k, val: obj[k]}
		if n.typ.Kind() == reflect.Map {
			c.plain, c.typ = joinPath(n.plain, k), n.typ.Elem()
		} else if f, ok := lookupField(fields, k); ok {
			c.plain, c.typ = joinPath(n.plain, f.name), f.typ
		} else {
			c.plain, c.unknown = joinPath(n.plain, k), true
		}
		if walk(c, visit) {
			return true
		}
	}
	return false
}

func joinPath(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// field is a JSON field of a struct type.
type field struct {
	name string
	typ  reflect.Type
}

// jsonFields lists the JSON fields of struct type t following encoding/json:
// tag names, "-" skipped, fields of untagged embedded structs promoted (after
// the direct fields, which take precedence).
func jsonFields(t reflect.Type, seen map[reflect.Type]bool) []field {
	if seen[t] {
		return nil
	}
	seen[t] = true
	var direct, promoted []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if sf.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			promoted = append(promoted, jsonFields(ft, seen)...)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		direct = append(direct, field{name: name, typ: sf.Type})
	}
	return append(direct, promoted...)
}

// lookupField matches a key to a field as encoding/json does: exactly, else
// case-insensitively.
func lookupField(fields []field, key string) (field, bool) {
	for _, f := range fields {
		if f.name == key {
			return f, true
		}
	}
	for _, f := range fields {
		if strings.EqualFold(f.name, key) {
			return f, true
		}
	}
	return field{}, false
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// opaque reports whether values of t decode in ways walk cannot follow.
func opaque(t reflect.Type) bool {
	if t == nil || t.Kind() == reflect.Interface {
		return true
	}
	pt := reflect.PointerTo(t)
	return pt.Implements(jsonUnmarshaler) || pt.Implements(textUnmarshaler)
}

// mismatch reports whether encoding/json refuses to decode v into type t.
func mismatch(t reflect.Type, v any) bool {
	if v == nil || opaque(t) {
		return false
	}
	k := t.Kind()
	switch v := v.(type) {
	case map[string]any:
		return k != reflect.Struct && k != reflect.Map
	case []any:
		return k != reflect.Slice && k != reflect.Array
	case string:
		return k != reflect.String && !(k == reflect.Slice && t.Elem().Kind() == reflect.Uint8)
	case bool:
		return k != reflect.Bool
	case float64:
		return !numberFits(t, v)
	}
	return false
}

// numberFits reports whether the JSON number v decodes into type t.
func numberFits(t reflect.Type, v float64) bool {
	const two63 = 1 << 63
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v == math.Trunc(v) && v >= -two63 && v < two63 && !reflect.Zero(t).OverflowInt(int64(v))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v == math.Trunc(v) && v >= 0 && v < 2*two63 && !reflect.Zero(t).OverflowUint(uint64(v))
	}
	return false
}

// Marshal renders docs' objects as multi-document YAML, which Read reads
// back as the same objects (keys sorted: the same objects give the same
// bytes).
func Marshal(docs []*Doc) (string, error) {
	var b strings.Builder
	for _, d := range docs {
		data, err := yaml.Marshal(d.Raw)
		if err != nil {
			return "", fmt.Errorf("%s: %w", d.Source, err)
		}
		b.WriteString("---\n")
		b.Write(data)
	}
	return b.String(), nil
}

// SameText reports whether a and b are documents of the same text, each a
// whole document of its file (not an item of a List, not embedded in
// another): what one decodes to, the other does. gepcheck diff decodes
// such a document of its two states once (simulator.BuildPair).
func SameText(a, b *Doc) bool {
	return a.Source.Item == 0 && b.Source.Item == 0 && a.within == "" && b.within == "" && a.text != nil && bytes.Equal(a.text, b.text)
}
