package ref

import "testing"

// TestPrintable: text from input printed to a terminal can neither send
// an escape sequence, forge a line nor reorder what follows it.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"gw-policy":            "gw-policy",
		"héllo":                "héllo",
		"a\x1b[31mred":         `a\x1b[31mred`,
		"two\nlines":           `two\nlines`,
		"c1\u009bcsi":          `c1\u009bcsi`,
		"bad\xffutf8":          `bad\xffutf8`,
		"abc\u202edcba":        `abc\u202edcba`,
		"iso\u2066late\u2069d": `iso\u2066late\u2069d`,
		"tab\there":            `tab\there`,
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}
