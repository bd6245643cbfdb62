package render

import (
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

// Width is the number of columns a table fits in unless it is printed
// wide (docs/output.md, Tables).
const Width = 120

// maxCellLines is the most lines a wrapped cell takes; the rest of a
// longer one (a large spec) is summarized by its last line.
const maxCellLines = 4

// TableOptions says how tables are printed, in kubectl's words: -o wide
// (every cell in full, on one line), --no-headers (no section titles and
// no column headers).
type TableOptions struct {
	Wide      bool
	NoHeaders bool
}

// Table is one section of a printout: a title, column headers and rows
// of cells, aligned with two spaces between columns as text/tabwriter
// aligns them (the last cell of a row is not padded). Cells are printed
// as given: escape them (ref.Printable) first.
type Table struct {
	Title  string
	Header []string
	Rows   [][]string
	// Long are the columns whose cells may be long (a spec, its
	// provenance, a message): narrowed first, and cut at maxCellLines.
	Long []int
	// Names are the columns of long names (file paths, profile names),
	// which may be wrapped after a slash or a hyphen; the first column
	// is narrowed only when it is one.
	Names []int
}

// Write prints t. Unless opts.Wide, the widest columns are narrowed
// until a row fits Width, and a cell wider than its column is wrapped
// after a space or a comma (or cut where there is none), on at most
// maxCellLines lines.
func (t *Table) Write(w io.Writer, opts TableOptions) error {
	var b strings.Builder
	if t.Title != "" && !opts.NoHeaders {
		for _, l := range wrapCell(t.Title, Width, 0, opts.Wide) {
			b.WriteString(l + "\n")
		}
	}
	rows := t.Rows
	if t.Header != nil && !opts.NoHeaders {
		rows = append([][]string{t.Header}, rows...)
	}
	n := 0
	for _, r := range rows {
		n = max(n, len(r))
	}
	widths := make([]int, n)
	for _, r := range rows {
		for i, c := range r {
			// The last cell of a row is not padded: it sets no width
			// unless another row has a cell after it.
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	if !opts.Wide {
		t.narrow(widths, rows)
	}
	wrapped := t.wrap(rows, widths, opts.Wide)
	// A column is as wide as its widest line once wrapped.
	clear(widths)
	for _, r := range wrapped {
		for i, c := range r {
			for _, l := range c {
				widths[i] = max(widths[i], utf8.RuneCountInString(l))
			}
		}
	}
	for _, cells := range wrapped {
		writeRow(&b, cells, widths)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// wrap wraps every cell to its column's width, a long column's on at most
// maxCellLines lines.
func (t *Table) wrap(rows [][]string, widths []int, wide bool) [][][]string {
	wrapped := make([][][]string, len(rows))
	for j, r := range rows {
		wrapped[j] = make([][]string, len(r))
		for i, c := range r {
			limit := 0
			if slices.Contains(t.Long, i) {
				limit = maxCellLines
			}
			wrapped[j][i] = wrapCell(c, widths[i], limit, wide)
		}
	}
	return wrapped
}

// writeRow writes a row of wrapped cells, as many lines as its tallest
// cell, each cell but the last padded to its column's width and two
// spaces.
func writeRow(b *strings.Builder, cells [][]string, widths []int) {
	height := 1
	for _, c := range cells {
		height = max(height, len(c))
	}
	for l := range height {
		var line strings.Builder
		for i := range cells {
			s := ""
			if l < len(cells[i]) {
				s = cells[i][l]
			}
			line.WriteString(s)
			if i < len(cells)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(s)+2))
			}
		}
		out := line.String()
		if l > 0 {
			// A continuation line ends where its text ends.
			out = strings.TrimRight(out, " ")
		}
		b.WriteString(out + "\n")
	}
}

// narrow lowers the widest column, one column at a time, until the
// columns and the two spaces between each fit Width: first the long
// columns, then any column but the first (which names the row, unless it
// is one of Names), each down to its longest word (split at spaces,
// commas and colons, and in Names at slashes and hyphens) and at least
// 24, then 12; then any but the first down to 12, cutting words.
func (t *Table) narrow(widths []int, rows [][]string) {
	words := t.longestWords(len(widths), rows)
	total := func() int {
		s := 0
		for _, w := range widths {
			s += w
		}
		return s + 2*max(len(widths)-1, 0)
	}
	for _, pass := range []struct {
		least int
		long  bool
		words bool
	}{{24, true, true}, {12, false, true}, {12, false, false}} {
		// Bounded: each turn lowers one width by one, and no width
		// goes below least.
		for total() > Width {
			widest := -1
			for i, w := range widths {
				least := pass.least
				if pass.words {
					least = max(least, words[i])
				}
				if (i == 0 && !slices.Contains(t.Names, 0)) || (pass.long && !slices.Contains(t.Long, i)) || w <= least {
					continue
				}
				if widest < 0 || w > widths[widest] {
					widest = i
				}
			}
			if widest < 0 {
				break
			}
			widths[widest]--
		}
	}
}

// longestWords is each column's longest word, and a space: words split at
// spaces, commas and colons, and in Names at slashes and hyphens.
func (t *Table) longestWords(n int, rows [][]string) []int {
	words := make([]int, n)
	for _, r := range rows {
		for i, c := range r {
			name := slices.Contains(t.Names, i)
			for _, w := range strings.FieldsFunc(c, func(r rune) bool { return r == ' ' || r == ',' || r == ':' || (name && (r == '/' || r == '-')) }) {
				words[i] = max(words[i], utf8.RuneCountInString(w)+1)
			}
		}
	}
	return words
}

// wrapCell splits s into lines of at most width runes, breaking after the
// last space, comma, colon or ← that fits, else slash or hyphen (a path "A > B" before its " >"); with limit > 0, past limit lines the
// last line says how much more there is. Wide: s whole.
func wrapCell(s string, width, limit int, wide bool) []string {
	if wide || utf8.RuneCountInString(s) <= width || width < 1 {
		return []string{s}
	}
	var lines []string
	r := []rune(s)
	for len(r) > 0 {
		if len(r) <= width {
			lines = append(lines, string(r))
			break
		}
		cut := width
		// Not after "> ": a path's next step starts a line with its
		// ">". A name breaks after a slash or a hyphen only where no
		// space, comma, colon or ← is in the second half of the line.
		if i := lastBreak(r, width, func(i int) bool {
			return (r[i-1] == ' ' && (i < 2 || r[i-2] != '>')) || r[i-1] == ',' || r[i-1] == ':' || r[i-1] == '←'
		}); i > 0 {
			cut = i
		} else if i := lastBreak(r, width, func(i int) bool { return r[i-1] == '/' || r[i-1] == '-' }); i > 0 {
			cut = i
		}
		lines = append(lines, strings.TrimRight(string(r[:cut]), " "))
		r = r[cut:]
		for len(r) > 0 && r[0] == ' ' {
			r = r[1:]
		}
	}
	if limit > 0 && len(lines) > limit {
		lines = append(lines[:limit-1], "… (-o wide)")
	}
	return lines
}

// Names prints refs (Kind/namespace/name, Kind/name) as kubectl's -o name
// does, one a line: the kind in lower case, a slash, the name (the
// namespace and a section left out).
func Names(w io.Writer, refs []string) error {
	var b strings.Builder
	for _, s := range refs {
		r, err := ref.Parse(s)
		if err != nil {
			return err
		}
		b.WriteString(clean(strings.ToLower(r.Kind) + "/" + r.Name))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// PolicyNames are the policies of out, as Names prints them.
func PolicyNames(out *simulator.Output) []string {
	refs := make([]string, len(out.Policies))
	for i, p := range out.Policies {
		refs[i] = p.Ref
	}
	return refs
}

// lastBreak is the last i in (width/2, width] where a line of r may
// break before r[i]; 0 when there is none.
func lastBreak(r []rune, width int, at func(i int) bool) int {
	for i := width; i > width/2; i-- {
		if at(i) {
			return i
		}
	}
	return 0
}

// fit wraps each line of text wider than Width (as wrapCell does), its
// continuation lines indented four spaces past the line's own indent:
// explain's indented key-value listings fit Width as tables do. Wide:
// text as it is.
func fit(w io.Writer, text string, opts TableOptions) error {
	if opts.Wide {
		_, err := io.WriteString(w, text)
		return err
	}
	var b strings.Builder
	for l := range strings.Lines(text) {
		line := strings.TrimSuffix(l, "\n")
		if utf8.RuneCountInString(line) <= Width {
			b.WriteString(l)
			continue
		}
		body := strings.TrimLeft(line, " ")
		indent := len(line) - len(body)
		first := true
		for _, part := range wrapCell(body, max(Width-indent-4, 24), 0, false) {
			pad := indent + 4
			if first {
				pad, first = indent, false
			}
			b.WriteString(strings.Repeat(" ", pad) + part + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
