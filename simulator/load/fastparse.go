package load

import (
	"bytes"
	"strconv"
)

// parsePlain decodes a document written in the subset of YAML that
// Kubernetes manifests are written in, into the values decodeYAML gives,
// about twenty times faster than go.yaml.in/yaml/v2 (docs/performance.md):
// block mappings and sequences (sequences may sit at their key's
// indentation, as kubectl writes them), flow mappings and sequences that
// end on the line they start on, plain scalars, and single- or
// double-quoted scalars on one line.
//
// It is a fast path, not a parser of its own: for anything outside that
// subset, or anything it is not sure of (a tab, a byte outside printable
// ASCII, an anchor, a tag, a block scalar, a multi-line scalar, a
// duplicate or non-string key, a number it does not read exactly as
// go.yaml.in/yaml/v2 resolves it, more than maxFastDepth levels), ok is
// false and the caller takes decodeYAML. Where ok is true, v and depth are
// what decodeYAML returns for the same text: TestFastParseAgrees and
// FuzzFastParse check it against the library.
func parsePlain(text []byte) (v any, depth int, ok bool) {
	p := fastParser{src: text}
	if !p.splitLines() || len(p.lines) == 0 {
		return nil, 0, false
	}
	defer func() {
		if r := recover(); r != nil {
			if r != errBail {
				panic(r)
			}
			v, depth, ok = nil, 0, false
		}
	}()
	p.col = p.lines[0].indent
	v, depth = p.blockNode(-1, 1)
	if p.i != len(p.lines) {
		return nil, 0, false
	}
	return v, depth, true
}

// maxFastDepth is the most levels parsePlain follows; deeper documents
// take decodeYAML (and --max-depth's check).
const maxFastDepth = 64

// maxSimpleKey is the most bytes from a key's start to its ':' that
// parsePlain reads; go.yaml.in/yaml/v2 stops looking for the ':' of a
// key on one line after 1,024.
const maxSimpleKey = 1000

// errBail unwinds parsePlain when the text leaves its subset.
var errBail = new(int)

func bail() { panic(errBail) }

// fastLine is one line with content: src[start:end] without its line end,
// indent spaces first.
type fastLine struct{ start, end, indent int }

type fastParser struct {
	src   []byte
	lines []fastLine // lines other than blank and comment-only ones
	i     int        // the current line
	col   int        // where the next node starts in line i, from its start
}

// splitLines indexes the lines with content, refusing text with any byte
// other than printable ASCII, LF and the CR of a CRLF.
func (p *fastParser) splitLines() bool {
	src := p.src
	for start := 0; start < len(src); {
		end := bytes.IndexByte(src[start:], '\n')
		next := len(src)
		if end < 0 {
			end = len(src)
		} else {
			end += start
			next = end + 1
		}
		if end > start && src[end-1] == '\r' {
			end--
		}
		indent := -1
		for j := start; j < end; j++ {
			c := src[j]
			if c < 0x20 || c > 0x7e {
				return false
			}
			if indent < 0 && c != ' ' {
				indent = j - start
			}
		}
		if indent >= 0 && src[start+indent] != '#' {
			p.lines = append(p.lines, fastLine{start, end, indent})
		}
		start = next
	}
	return true
}

// rest is the text of line i from column col on.
func (p *fastParser) rest() []byte {
	l := p.lines[p.i]
	return p.src[l.start+p.col : l.end]
}

// endOfLine reports whether only spaces and a comment are left on line i
// from col on.
func (p *fastParser) endOfLine() bool {
	r := p.rest()
	for j, c := range r {
		switch {
		case c == ' ':
		case c == '#' && (j > 0 || p.col == 0 || p.src[p.lines[p.i].start+p.col-1] == ' '):
			return true
		default:
			return false
		}
	}
	return true
}

// nextLine moves to the start of the next line's content.
func (p *fastParser) nextLine() {
	p.i++
	if p.i < len(p.lines) {
		p.col = p.lines[p.i].indent
	}
}

// skipSpaces moves col past spaces.
func (p *fastParser) skipSpaces() {
	r := p.rest()
	j := 0
	for j < len(r) && r[j] == ' ' {
		j++
	}
	p.col += j
}

// isDash reports whether the text at col is a block sequence entry: "-"
// followed by a space or the end of the line.
func (p *fastParser) isDash() bool {
	r := p.rest()
	return len(r) > 0 && r[0] == '-' && (len(r) == 1 || r[1] == ' ')
}

// blockNode parses the node that starts at col of line i and the lines
// that belong to it; parent is the indentation of the enclosing block
// collection. level is the node's nesting level (the document is 1); depth
// is the levels in the node as jsonValue counts them.
func (p *fastParser) blockNode(parent, level int) (v any, depth int) {
	if level > maxFastDepth {
		bail()
	}
	switch {
	case p.isDash():
		return p.blockSequence(p.col, level)
	case p.keyAhead():
		return p.blockMapping(p.col, level)
	}
	v, depth = p.inlineValue(level)
	if p.i < len(p.lines) && p.lines[p.i].indent > parent {
		bail() // a multi-line scalar, or an error go.yaml.in/yaml/v2 reports
	}
	return v, depth
}

// blockSequence parses the entries at column n from line i on.
func (p *fastParser) blockSequence(n, level int) ([]any, int) {
	out := []any{}
	depth := 0
	for {
		p.col++ // the dash
		p.skipSpaces()
		var v any
		var d int
		if p.endOfLine() {
			p.nextLine()
			if p.i < len(p.lines) && p.lines[p.i].indent > n {
				v, d = p.blockNode(n, level+1)
			}
		} else {
			v, d = p.blockNode(n, level+1)
		}
		out = append(out, v)
		depth = max(depth, d)
		if p.i == len(p.lines) || p.lines[p.i].indent < n {
			break
		}
		if p.lines[p.i].indent > n {
			bail()
		}
		if !p.isDash() {
			break // a key of the mapping this sequence is the value of
		}
	}
	return out, depth + 1
}

// blockMapping parses the entries at column n from line i on.
func (p *fastParser) blockMapping(n, level int) (map[string]any, int) {
	out := map[string]any{}
	depth := 0
	for {
		k := p.key()
		if _, dup := out[k]; dup {
			bail() // go.yaml.in/yaml/v2's strict mode refuses it
		}
		p.skipSpaces()
		var v any
		var d int
		if p.endOfLine() {
			p.nextLine()
			if p.i < len(p.lines) {
				switch l := p.lines[p.i]; {
				case l.indent > n:
					v, d = p.blockNode(n, level+1)
				case l.indent == n && p.isDash():
					v, d = p.blockSequence(n, level+1)
				}
			}
		} else {
			v, d = p.inlineValue(level + 1)
		}
		out[k] = v
		depth = max(depth, d)
		if p.i == len(p.lines) || p.lines[p.i].indent < n {
			break
		}
		if p.lines[p.i].indent > n {
			bail()
		}
	}
	return out, depth + 1
}

// keyAhead reports whether line i holds a mapping key at col.
func (p *fastParser) keyAhead() bool {
	r := p.rest()
	if len(r) == 0 {
		return false
	}
	if r[0] == '"' || r[0] == '\'' {
		_, n := quoted(r)
		return n > 0 && n <= maxSimpleKey && n < len(r) && r[n] == ':' && (n+1 == len(r) || r[n+1] == ' ')
	}
	_, n := plainKey(r)
	return n > 0
}

// key parses a mapping key and its ':' at col, leaving col after them.
func (p *fastParser) key() string {
	r := p.rest()
	var (
		k string
		n int
	)
	if len(r) > 0 && (r[0] == '"' || r[0] == '\'') {
		k, n = quoted(r)
		if n == 0 || n > maxSimpleKey || n == len(r) || r[n] != ':' || (n+1 < len(r) && r[n+1] != ' ') {
			bail()
		}
		n++
	} else {
		k, n = plainKey(r)
		if n == 0 {
			bail()
		}
		if s, isString := resolvePlain(k); !isString {
			bail() // a key that is not a string
		} else {
			k = s.(string)
		}
	}
	p.col += n
	return k
}

// plainKey reads "key:" (followed by a space or the end of the line) at
// the start of r; n is the bytes read including the colon, 0 when r does
// not start with one.
func plainKey(r []byte) (k string, n int) {
	if len(r) == 0 || startsIndicator(r) {
		return "", 0
	}
	for j := 0; j < len(r); j++ {
		switch r[j] {
		case ':':
			if j+1 == len(r) || r[j+1] == ' ' {
				k := bytes.TrimRight(r[:j], " ")
				if len(k) == 0 || j > maxSimpleKey {
					return "", 0
				}
				return string(k), j + 1
			}
		case '#':
			if r[j-1] == ' ' {
				return "", 0
			}
		}
	}
	return "", 0
}

// startsIndicator reports whether r starts with a character that cannot
// start a plain scalar here, or that parsePlain leaves to the library.
func startsIndicator(r []byte) bool {
	switch r[0] {
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', '.':
		return true
	}
	return false
}

// inlineValue parses the value that takes the rest of line i from col: a
// flow collection, a quoted scalar or a plain scalar, then moves to the
// next line.
func (p *fastParser) inlineValue(level int) (v any, depth int) {
	r := p.rest()
	n := 0
	switch r[0] {
	case '[', '{':
		v, depth, n = flow(r, level)
	case '"', '\'':
		v, n = quoted(r)
	default:
		if startsIndicator(r) {
			bail()
		}
		end := len(r)
		for j := 1; j < len(r); j++ {
			if r[j] == '#' && r[j-1] == ' ' {
				end = j
				break
			}
			if r[j] == ':' && (j+1 == len(r) || r[j+1] == ' ') {
				bail() // "a: b: c" is an error
			}
		}
		s := bytes.TrimRight(r[:end], " ")
		v, _ = resolvePlain(string(s))
		n = end
	}
	if n == 0 {
		bail()
	}
	p.col += n
	if !p.endOfLine() {
		bail()
	}
	p.nextLine()
	return v, depth
}

// flow parses a flow mapping or sequence at the start of r that ends on
// the line; n is the bytes it takes.
func flow(r []byte, level int) (v any, depth, n int) {
	if level > maxFastDepth {
		bail()
	}
	closing := byte(']')
	if r[0] == '{' {
		closing = '}'
	}
	j := skip(r, 1)
	var (
		seq []any
		m   map[string]any
	)
	if closing == ']' {
		seq = []any{}
	} else {
		m = map[string]any{}
	}
	for {
		if j < len(r) && r[j] == closing {
			break
		}
		var k string
		if m != nil {
			k, j = flowKey(r, j, m)
		}
		if j >= len(r) {
			bail()
		}
		e, d, en := flowElement(r[j:], level)
		j = skip(r, j+en)
		if m != nil {
			m[k] = e
		} else {
			if j < len(r) && r[j] == ':' {
				bail() // [a: b] is a sequence of a mapping
			}
			seq = append(seq, e)
		}
		depth = max(depth, d)
		if j < len(r) && r[j] == ',' {
			j = skip(r, j+1)
			continue
		}
		if j < len(r) && r[j] == closing {
			break
		}
		bail()
	}
	if m != nil {
		return m, depth + 1, j + 1
	}
	return seq, depth + 1, j + 1
}

// flowKey reads the key of a flow mapping m at r[j:] and the ": " after
// it; j is then the index of its value.
func flowKey(r []byte, j int, m map[string]any) (string, int) {
	k, kn := flowScalarKey(r[j:])
	start := j
	j = skip(r, j+kn)
	if j-start > maxSimpleKey {
		bail()
	}
	if j >= len(r) || r[j] != ':' || j+1 >= len(r) || r[j+1] != ' ' {
		bail() // a key without a value, or {a:b}
	}
	if _, dup := m[k]; dup {
		bail()
	}
	return k, skip(r, j+1)
}

// flowElement parses the value at the start of r in a flow collection at
// level: a nested collection, a quoted or a plain scalar; n is the bytes
// it takes.
func flowElement(r []byte, level int) (e any, depth, n int) {
	switch r[0] {
	case '[', '{':
		e, depth, n = flow(r, level+1)
	case '"', '\'':
		e, n = quoted(r)
	default:
		var s string
		s, n = flowPlain(r)
		e, _ = resolvePlain(s)
	}
	if n == 0 {
		bail()
	}
	return e, depth, n
}

// skip returns the index of the first byte of r at or after j that is not
// a space.
func skip(r []byte, j int) int {
	for j < len(r) && r[j] == ' ' {
		j++
	}
	return j
}

// flowScalarKey reads a key in a flow mapping: quoted, or plain resolving
// to a string.
func flowScalarKey(r []byte) (string, int) {
	if len(r) == 0 {
		bail()
	}
	if r[0] == '"' || r[0] == '\'' {
		k, n := quoted(r)
		if n == 0 {
			bail()
		}
		return k, n
	}
	s, n := flowPlain(r)
	k, isString := resolvePlain(s)
	if !isString || n == 0 {
		bail()
	}
	return k.(string), n
}

// flowPlain reads a plain scalar in a flow collection; n is the bytes read
// (trailing spaces are not part of it).
func flowPlain(r []byte) (string, int) {
	if len(r) == 0 || startsIndicator(r) {
		bail()
	}
	j := 0
	for ; j < len(r); j++ {
		c := r[j]
		if flowIndicator(c) {
			break
		}
		if c == ':' {
			if j+1 == len(r) || r[j+1] == ' ' {
				break
			}
			if n := r[j+1]; flowIndicator(n) || n == '?' {
				bail()
			}
		}
		if c == '?' || (c == '#' && r[j-1] == ' ') {
			bail()
		}
	}
	s := bytes.TrimRight(r[:j], " ")
	if len(s) == 0 {
		bail()
	}
	return string(s), len(s)
}

// flowIndicator: c separates or ends the entries of a flow collection, or
// starts one (YAML 1.2, c-flow-indicator).
func flowIndicator(c byte) bool {
	return c == ',' || c == '[' || c == ']' || c == '{' || c == '}'
}

// quoted reads a single- or double-quoted scalar that ends on the line;
// n is 0 when it does not (or uses an escape parsePlain leaves to the
// library). What may follow it, which differs in a flow collection, the
// caller checks.
func quoted(r []byte) (s string, n int) {
	q := r[0]
	var b []byte
	for j := 1; j < len(r); j++ {
		c := r[j]
		switch {
		case q == '\'' && c == '\'':
			if j+1 < len(r) && r[j+1] == '\'' {
				b = append(b, '\'')
				j++
				continue
			}
			return string(b), j + 1
		case q == '"' && c == '"':
			return string(b), j + 1
		case q == '"' && c == '\\':
			if j+1 == len(r) {
				return "", 0
			}
			j++
			switch r[j] {
			case '\\', '"':
				b = append(b, r[j])
			case 'n':
				b = append(b, '\n')
			case 't':
				b = append(b, '\t')
			default:
				return "", 0
			}
		default:
			b = append(b, c)
		}
	}
	return "", 0
}

// resolvePlain resolves a plain scalar as go.yaml.in/yaml/v2 does when it
// decodes into an interface (resolve.go there), for the forms parsePlain
// is sure of; it bails on the others. isString reports a string result.
func resolvePlain(s string) (v any, isString bool) {
	if s == "" {
		return nil, false
	}
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return true, false
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return false, false
	case "~", "null", "Null", "NULL":
		return nil, false
	}
	switch c := s[0]; {
	case c == '.' || c == '<':
		bail() // .inf, .nan, floats, the merge key "<<"
	case c == '+' || c == '-' || ('0' <= c && c <= '9'):
		if len(s) > 1 && s[1] == '.' {
			bail() // +.inf, -.inf, -.5
		}
		if f, ok := decimal(s); ok {
			return f, false
		}
		// Anything else the library might read as a number uses only
		// these bytes (ParseInt with base 0 after dropping '_', or its
		// float pattern); without them it is a string, or a timestamp,
		// which decodes to its text too.
		for j := 0; j < len(s); j++ {
			switch c := s[j]; {
			case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F',
				c == 'x', c == 'X', c == 'o', c == 'O', c == '_', c == '+', c == '-', c == '.':
			default:
				return s, true
			}
		}
		bail()
	}
	return s, true
}

// decimal reads an integer written plainly ("0", "-12", "+7"; no leading
// zeros, at most 15 digits, so a float64 holds it exactly) as the float64
// JSON gives it.
func decimal(s string) (float64, bool) {
	d := s
	if d[0] == '-' || d[0] == '+' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 15 || (d[0] == '0' && len(d) > 1) {
		return 0, false
	}
	for j := 0; j < len(d); j++ {
		if d[j] < '0' || d[j] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return float64(n), true
}
