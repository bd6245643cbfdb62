package reference

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/internal/exitcode"
)

// --mutant is hidden, takes the names Mutants lists, and refuses another
// name as the user's input, naming the flag and the names.
func TestMutantFlag(t *testing.T) {
	cmd := plugin{}.Commands(&bytes.Buffer{}, &bytes.Buffer{})["controller"][0]
	f := cmd.Flags().Lookup("mutant")
	if f == nil || !f.Hidden {
		t.Fatalf("--mutant: %+v, want a hidden flag", f)
	}
	seen := map[Mutant]bool{}
	for _, m := range Mutants() {
		got, err := ParseMutant(string(m.Name))
		if err != nil || got != m.Name {
			t.Errorf("%s: %q %v", m.Name, got, err)
		}
		if seen[m.Name] || m.Oracle == "" || m.Doc == "" {
			t.Errorf("%s: listed twice, or without its oracle or line", m.Name)
		}
		seen[m.Name] = true
	}
	if m, err := ParseMutant(""); m != "" || err != nil {
		t.Errorf("no --mutant: %q %v, want the correct controller", m, err)
	}
	_, err := ParseMutant("forget")
	var in exitcode.Input
	if !errors.As(err, &in) || !strings.Contains(err.Error(), "--mutant") || !strings.Contains(err.Error(), string(StaleRead)) {
		t.Errorf("unknown mutant: %v, want an input error naming --mutant and the mutants", err)
	}
	var out bytes.Buffer
	if code := runController([]string{"--kubeconfig", "/nonexistent", "--mutant", "forget"}, &out, &out); code == 0 || !strings.Contains(out.String(), "--mutant: unknown mutant") {
		t.Errorf("gepcheck controller reference --mutant forget: exit %d, %s", code, out.String())
	}
}
