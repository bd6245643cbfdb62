package ref

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"
)

// NameErrors says why name cannot be the metadata.name of an object of
// group and kind, with the API server's own rules (apimachinery's
// validation functions), or returns nil. Namespaces are DNS-1123 labels,
// Services DNS-1035 labels (core/v1 validation), and every other kind, CRDs
// included, DNS-1123 subdomains. None of these admit "/", "#", " > ",
// spaces or control characters, which gepcheck's refs and paths use as
// separators.
func NameErrors(group, kind, name string) []string {
	switch {
	case group == "" && kind == "Namespace":
		return validation.IsDNS1123Label(name)
	case group == "" && kind == "Service":
		return validation.IsDNS1035Label(name)
	default:
		return validation.IsDNS1123Subdomain(name)
	}
}

// NamespaceErrors says why ns cannot be a metadata.namespace, or returns
// nil.
func NamespaceErrors(ns string) []string {
	return validation.IsDNS1123Label(ns)
}

// SectionNameErrors says why s cannot be a Gateway API SectionName (a
// listener or rule name; the CRD's pattern is that of a DNS-1123
// subdomain), or returns nil.
func SectionNameErrors(s string) []string {
	return validation.IsDNS1123Subdomain(s)
}

// Invalid renders the problems of a name for an error message, quoting
// the name so that control characters show as escapes.
func Invalid(name string, problems []string) string {
	q := name
	if len(q) > 80 {
		q = q[:80] + "…"
	}
	return strconv.Quote(q) + " is not a valid name: " + strings.Join(problems, "; ")
}

// Printable is s with control characters and invalid UTF-8 escaped, as in
// a Go string literal, so that text from the input printed to a terminal
// can neither move the cursor, colour it, forge a line nor reorder what
// is shown (Unicode's bidirectional controls); other strings are returned
// as they are. It is the escaper of every string from input or from an
// implementation that gepcheck prints to a terminal.
func Printable(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r == utf8.RuneError || unicode.IsControl(r) || bidi(r) }) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case unicode.IsControl(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		case bidi(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

// bidi says whether r is one of Unicode's explicit bidirectional
// formatting characters (UAX #9, "Explicit Directional Embeddings",
// "Overrides" and "Isolates"), which reorder the text around them.
func bidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}
