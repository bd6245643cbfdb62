// Package markdown writes strings that may come from anywhere (a results
// file, a user's YAML) into CommonMark/GFM as literal text: the one set of
// escapers of reports and simulator/render.
package markdown

import (
	"strings"

	"github.com/gepcheck/gepcheck/simulator/ref"
)

// The Markdown escapers: every string from the input (a results file may
// come from another machine's CI, a diff's names from a pull request) is written into Markdown through one of
// them, so that it can open no block, link with a hidden target, image,
// emphasis or HTML tag (a bare URL may still show as the link it is),
// close no code span and add no table cell or line (CommonMark 0.31,
// "Backslash escapes"; GFM, "Tables": a pipe in a cell is escaped even
// inside a code span). Control characters are escaped first
// (ref.Printable), so no text adds a line.

// mdSpecial are the ASCII punctuation characters that can start Markdown
// syntax inline: any ASCII punctuation may be backslash-escaped, and
// these are, so ordinary names ("gepcheck-reference v1.0.0") read as they are.
const mdSpecial = "\\`*_[]<>|&!#~"

// Text is s as literal inline Markdown text, also inside a table cell.
func Text(s string) string {
	s = ref.Printable(s)
	if !strings.ContainsAny(s, mdSpecial) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 && strings.ContainsRune(mdSpecial, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Code is s as an inline code span: its text on one line (a line break
// becomes a space, other control characters escapes), between fences of
// one backtick more than the longest run of backticks in it, so that s
// cannot close the span; padded with a space where s starts or ends with a
// backtick (CommonMark, "Code spans").
func Code(s string) string {
	s = ref.Printable(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// Cell is a code span in a GFM table cell: Code with its pipes
// escaped, which GFM takes out before it reads the span.
func Cell(s string) string {
	return strings.ReplaceAll(Code(s), "|", `\|`)
}

// Fenced is lines as a fenced code block in lang: each line on its own
// line (ref.Printable, so none adds another), inside a fence of backticks
// longer than any run of them in the lines, so that no line can close it
// (CommonMark, "Fenced code blocks").
func Fenced(lang string, lines []string) string {
	longest := 0
	for i, l := range lines {
		lines[i] = ref.Printable(l)
		longest = max(longest, longestRun(lines[i], '`'))
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + lang + "\n" + strings.Join(lines, "\n") + "\n" + fence + "\n"
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c rune) int {
	longest, run := 0, 0
	for _, r := range s {
		if r == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}
