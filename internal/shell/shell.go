// Package shell writes the words of the commands gepcheck prints for
// people to run again (replay commands), quoted for a POSIX shell.
package shell

import "strings"

// Quote quotes s for a POSIX shell when it needs quoting: a word of
// letters, digits and -_./:,=@+ is left as it is, anything else is put
// in single quotes, its own single quotes written '\”.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,=@+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
