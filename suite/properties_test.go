package suite

import (
	"testing"

	"pgregory.net/rapid"
)

// TestProperties checks every property on the reference engine, with
// rapid's default of 100 random cases each (-rapid.checks=N for more; the
// seed is printed on failure, -rapid.seed=S replays it).
func TestProperties(t *testing.T) {
	for _, p := range Properties() {
		if p.Finding {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			rapid.Check(t, func(rt *rapid.T) { p.Check(rt, "", nil) })
		})
	}
}

func TestPropertyRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range Properties() {
		if p.Name == "" || p.Cite == "" || p.Check == nil {
			t.Errorf("property %q lacks a name, a citation or a check", p.Name)
		}
		if seen[p.Name] {
			t.Errorf("property %q registered twice", p.Name)
		}
		seen[p.Name] = true
		if !p.Finding && len(p.Kills) == 0 {
			t.Errorf("property %s kills no mutant: nothing shows it can fail", p.Name)
		}
	}
}
