package markdown

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// TestMarkdownEscapers: the text reads back literally (what GFM shows is
// what the results file says, control characters escaped).
func TestMarkdownEscapers(t *testing.T) {
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	render := func(s string) string {
		var b bytes.Buffer
		if err := md.Convert([]byte(s), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, s := range []string{"plain", "a`b", "``x``", "`", "<b>x</b>", "[l](u)", "*e* _u_", `back\slash`, "a|b", "&amp;"} {
		got := render(Text(s))
		if !strings.Contains(got, htmlEscape(s)) {
			t.Errorf("Text(%q) renders %q", s, got)
		}
		got = render(Code(s))
		if !strings.Contains(got, "<code>"+htmlEscape(s)+"</code>") {
			t.Errorf("Code(%q) renders %q", s, got)
		}
		// GFM, "Tables": in a cell, the escaped pipe reads back as a pipe
		// inside the one code span, and the row keeps its two cells.
		got = render("| h | i |\n| --- | --- |\n| " + Cell(s) + " | x |\n")
		if !strings.Contains(got, "<td><code>"+htmlEscape(s)+"</code></td>") || strings.Count(got, "<td") != 2 {
			t.Errorf("Cell(%q) renders %q", s, got)
		}
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
