package shell

import (
	"os/exec"
	"testing"
)

// TestQuoteReadsBack: sh reads every quoted word back as the word itself.
func TestQuoteReadsBack(t *testing.T) {
	for _, w := range []string{"plain", "", "a b", "it's", "$(touch x)", "`x`", "a\nb", "--flag=[a,b]", "*", `\`} {
		out, err := exec.Command("sh", "-c", "printf %s "+Quote(w)).Output()
		if err != nil || string(out) != w {
			t.Errorf("Quote(%q) = %s: sh reads %q (%v)", w, Quote(w), out, err)
		}
	}
}
