package input

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/internal/exitcode"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/ref"
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

// Target is the object --target names in m: KIND/NAMESPACE/NAME, or
// KIND/NAME in namespace ns, kinds by plural or short name too, as
// kubectl takes them (ref.Kubectl); optionally #SECTION.
func Target(target, ns string, m *simulator.Model) (ref.Ref, error) {
	r, err := ref.Kubectl(target, ns, m.Refs(false))
	if err != nil {
		return r, exitcode.Input{Err: fmt.Errorf("--target: %w", err)}
	}
	return r, nil
}

// Policy is the policy --policy names in m, as Target reads a reference;
// a policy has no section.
func Policy(policy, ns string, m *simulator.Model) (ref.Ref, error) {
	r, err := ref.Kubectl(policy, ns, m.Refs(true))
	if err != nil {
		return r, exitcode.Input{Err: fmt.Errorf("--policy: %w", err)}
	}
	if r.Section != "" {
		return r, exitcode.Input{Err: fmt.Errorf("--policy: %q: a policy has no section", policy)}
	}
	return r, nil
}
