// Package outpath builds the paths gepcheck writes: each element a name
// checked on its own, joined under the folder the user named, so that no
// name from input (a results file's implementation, version or mode, an
// implementation's name) can lead a write outside it (docs/limits.md,
// "Paths written").
package outpath

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// MaxElem is the longest element: a DNS-1123 label has at most 63
// characters, a version string is given twice that.
const MaxElem = 128

// elem is a DNS-1123 label or a version string ("v1.9.1",
// "v0.0.0-20251101-abcdef", "1.2.3+build"): letters, digits and . _ + -,
// starting and ending with a letter or digit.
var elem = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._+-]*[A-Za-z0-9])?$`)

// Elem says why name cannot be one element of a path gepcheck writes, or
// nil: it must be a DNS-1123 label or a version string, of at most
// MaxElem characters, with no "..".
func Elem(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("is empty")
	case len(name) > MaxElem:
		return fmt.Errorf("%s is longer than %d characters", quote(name), MaxElem)
	case !elem.MatchString(name) || strings.Contains(name, ".."):
		return fmt.Errorf("%s is not a DNS-1123 label or a version string (letters, digits and . _ + -, starting and ending with a letter or digit, no \"..\")", quote(name))
	}
	return nil
}

// Join is root with elems below it, each checked by Elem; what an element
// names (field) is said in the error.
func Join(root string, elems ...Named) (string, error) {
	parts := []string{root}
	for _, e := range elems {
		if err := Elem(e.Value); err != nil {
			return "", fmt.Errorf("%s %w", e.Field, err)
		}
		parts = append(parts, e.Value)
	}
	return filepath.Join(parts...), nil
}

// Named is an element of a path and what it names, for errors
// ("implementation.name").
type Named struct{ Field, Value string }

// quote quotes s for an error, cut to 80 bytes, so that control
// characters show as escapes.
func quote(s string) string {
	if len(s) > 80 {
		s = s[:80]
	}
	return strconv.Quote(s)
}
