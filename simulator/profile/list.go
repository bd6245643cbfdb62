package profile

import (
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/internal/exitcode"
)

// WriteBuiltin writes the built-in profile name as YAML (gepcheck
// profiles NAME); a name not built in is an exitcode.Input.
func WriteBuiltin(w io.Writer, name string) error {
	b, err := Builtins()
	if err != nil {
		return err
	}
	p, ok := b[name]
	if !ok {
		return exitcode.Input{Err: fmt.Errorf("no built-in profile %q (one of %s)", name, strings.Join(BuiltinNames(), ", "))}
	}
	data, err := yaml.Marshal(p)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// WriteBuiltins writes a line per built-in profile (gepcheck profiles):
// its name, the policy kind it reads, and its citation.
func WriteBuiltins(w io.Writer) error {
	b, err := Builtins()
	if err != nil {
		return err
	}
	for _, n := range BuiltinNames() {
		p := b[n]
		// An alternative reading of a kind is chosen by name only
		// (docs/profiles.md): say so, so that the default is plain.
		alt := ""
		if p.Spec.Alternative {
			alt = " (alternative: by name only)"
		}
		fmt.Fprintf(w, "%-20s %s.%s%s  %s\n", n, p.Spec.Policy.Kind, p.Spec.Policy.Group, alt, p.Spec.Citation)
	}
	return nil
}
