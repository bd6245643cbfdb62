package incluster

import (
	"slices"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/features"
)

// Expect, which holds make ci's catalogue runs to the catalogue's own
// outcomes, fails on each planted fault: a file that should pass and did
// not, a skip for another reason, a file that did not run or ran twice, a
// file not in the catalogue, a reason it cannot name, nothing compared.
func TestExpect(t *testing.T) {
	const dir = "../../scenarios/gep-713/"
	direct, own, gep713 := dir+"example-1-direct.yaml", dir+"abstract-process.yaml", dir+"atomic-default-above-patch-override-gep713.yaml"
	tg := Target{Run: "r", Features: features.Set{"ColorPolicy"}, Semantics: engine.StickyOverrides}
	skipOf := func(f string) string {
		p, err := NewPlan(f, tg)
		if err != nil {
			t.Fatal(err)
		}
		return p.Skip
	}
	files := []string{direct, own, gep713}
	good := []Ran{{direct, Pass, ""}, {own, Skip, skipOf(own)}, {gep713, Skip, skipOf(gep713)}}
	skipped, problems := Expect(files, good, tg)
	if len(problems) > 0 || !slices.Equal(skipped["defines its own PolicyProfile"], []string{own}) || !slices.Equal(skipped["holds under the other semantics"], []string{gep713}) {
		t.Fatalf("the run as the catalogue says: skipped %v, problems %v", skipped, problems)
	}
	with := func(i int, r Ran) []Ran {
		out := slices.Clone(good)
		out[i] = r
		return out
	}
	for _, tc := range []struct {
		name  string
		files []string
		ran   []Ran
		says  string
	}{
		{"a failure", files, with(0, Ran{direct, Fail, "differs"}), "example-1-direct.yaml: fail (differs), want pass"},
		{"an error", files, with(0, Ran{direct, Error, "no status"}), "want pass"},
		{"skipped though it applies", files, with(0, Ran{direct, Skip, "needs feature X, which the implementation does not declare"}), "want pass"},
		{"skipped for another reason", files, with(1, Ran{own, Skip, "needs feature X, which the implementation does not declare"}), "want skipped: defines its own PolicyProfile"},
		{"passed though it does not apply", files, with(2, Ran{gep713, Pass, ""}), "want skipped: holds under gep-713"},
		{"not run", files, good[1:], "example-1-direct.yaml ran 0 times"},
		{"run twice", files, append(slices.Clone(good), good[0]), "example-1-direct.yaml ran 2 times"},
		{"not in the catalogue", files[1:], good, "example-1-direct.yaml ran, but is not a file of the catalogue"},
		{"nothing compared", files[1:], good[1:], "none of 2 files passed"},
		{"no files", nil, nil, "no scenario files"},
	} {
		_, problems := Expect(tc.files, tc.ran, tg)
		if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, tc.says) }) {
			t.Errorf("%s: problems %v, want one saying %q", tc.name, problems, tc.says)
		}
	}
	for reason, want := range map[string]string{
		"needs feature SectionName, which the implementation does not declare":                  "needs a feature the implementation does not declare",
		"step 2 (delete-route): uses BackendTLSPolicy, which the implementation does not serve": "uses a policy kind the implementation does not serve",
		"holds under gep-713; the implementation claims sticky-overrides":                       "holds under the other semantics",
		"the controller was busy": "",
		"defines its own PolicyProfile; implementations in a cluster serve built-in profiles; also": "",
	} {
		if got := skipReason(reason); got != want {
			t.Errorf("skipReason(%q) = %q, want %q", reason, got, want)
		}
	}
}
