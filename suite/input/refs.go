package input

import (
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/simulator"
)

// Refs completes --target (policies false: objects of the hierarchy) or
// --policy (policies) from files read with profiles: the references
// (KIND/NAMESPACE/NAME) that start with prefix, in any case; nil when the
// files do not load. Standard input ("-") is the shell's, not read; a
// file or profile named twice is read once (cobra's __complete parses a
// repeated flag again, appending).
func Refs(files, profiles []string, policies bool, prefix string) []string {
	var stdinless []string
	for _, f := range files {
		if f != "-" && !slices.Contains(stdinless, f) {
			stdinless = append(stdinless, f)
		}
	}
	if len(stdinless) == 0 {
		return nil
	}
	var named []string
	for _, p := range profiles {
		if !slices.Contains(named, p) {
			named = append(named, p)
		}
	}
	m, err := simulator.LoadFiles(stdinless, nil, simulator.Options{Profiles: named})
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range m.Refs(policies) {
		if s := r.String(); strings.HasPrefix(strings.ToLower(s), strings.ToLower(prefix)) {
			out = append(out, s)
		}
	}
	return out
}
