package findings

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/suite"
)

var updateFindings = flag.Bool("update-findings", false, "rewrite scenarios/findings/ from the finding properties")

const (
	findingsDir   = "../../scenarios/findings"
	findingSeed   = 713
	findingChecks = 2000
)

// TestFindings: each finding property still finds its disagreement on the
// reference engine, and the kept, shrunk counterexample still shows it.
// `go test ./suite/findings/ -run TestFindings -update-findings` rewrites the files.
func TestFindings(t *testing.T) {
	for _, p := range suite.Properties() {
		if !p.Finding {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			name := filepath.Base(p.Name)
			file := filepath.Join(findingsDir, name+".yaml")
			if *updateFindings {
				out := suite.Run(p, "", findingSeed, findingChecks, suite.Options{})
				if out.Passed {
					t.Fatalf("%s found no disagreement in %d checks (seed %d)", p.Name, findingChecks, findingSeed)
				}
				if _, err := suite.WriteFinding(findingsDir, name, out); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := os.Stat(file); err != nil {
				t.Fatalf("no finding kept for %s: run go test ./suite/findings/ -run TestFindings -update-findings", p.Name)
			}
			// As gepcheck check runs it: the recorded disagreements,
			// exactly (suite.ReproduceFinding).
			diffs, err := scenarios.Check(file)
			if err != nil {
				t.Fatal(err)
			}
			if len(diffs) > 0 {
				t.Errorf("%s: %s", file, strings.Join(diffs, "\n"))
			}
		})
	}
}

// A kept finding of a property whose recorded disagreement is edited no
// longer reproduces: the check prints the recorded and the new outcome.
func TestFindingEditedFails(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(findingsDir, "gep713-vs-sticky.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"an outcome", "gep-713:", "gep-713-edited:", "changed: recorded"},
		{"a path", "    path:\n    - ", "    path:\n    - Gateway/elsewhere/gw\n    - ", "recorded, not seen now"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edited := strings.Replace(string(data), tc.from, tc.to, 1)
			if edited == string(data) {
				t.Fatalf("%q not in the finding", tc.from)
			}
			file := filepath.Join(t.TempDir(), "f.yaml")
			if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			diffs, err := scenarios.Check(file)
			if err != nil {
				t.Fatal(err)
			}
			if len(diffs) != 1 || !strings.Contains(diffs[0], tc.want) {
				t.Errorf("check of the edited finding: %q, want one naming %q", diffs, tc.want)
			}
		})
	}
}

// Every kept finding is triaged: a verdict other than untriaged, and a
// triage block that passes Triage.Check (issue: findings triaged).
func TestFindingsTriaged(t *testing.T) {
	var files []string
	err := filepath.WalkDir(findingsDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 11 {
		t.Fatalf("only %d findings files under %s", len(files), findingsDir)
	}
	for _, f := range files {
		got, err := Read(f)
		if err != nil {
			t.Error(err)
			continue
		}
		if got.Triage.Verdict == suite.Untriaged {
			t.Errorf("%s: untriaged: read it against the specs and set spec.triage", f)
		}
	}
}

// A findings file whose triage is missing or invalid, or that is not a
// finding, is an error naming the file, the document and the field.
func TestReadFindingErrors(t *testing.T) {
	good, err := os.ReadFile(filepath.Join(findingsDir, "envoy-gateway", "envoy-gateway-backendtrafficpolicy-condition.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	head, rest, _ := strings.Cut(string(good), "  triage:\n")
	_, rest, _ = strings.Cut(rest, "---\n")
	for _, tc := range []struct {
		name, triage string
		want         []string
	}{
		{"missing", "", []string{"document 1", "field spec.triage", "missing"}},
		{"verdict", "  triage:\n    verdict: wrong\n", []string{"document 1", "field spec.triage.verdict", `"wrong"`}},
		{"quote", "  triage:\n    verdict: contradicts-must\n    requirement: GEP-2649-023\n    quote: Each Inherited Policy MAY\n    note: why\n",
			[]string{"field spec.triage.quote", "not in GEP-2649-023"}},
		{"upstream", "  triage:\n    verdict: undefined\n    note: why\n    upstream: [envoyproxy/gateway#8926]\n", []string{"field spec.triage.upstream[0]", "https"}},
		{"unknown field", "  triage:\n    verdict: undefined\n    note: why\n    verdit: undefined\n", []string{"field spec.triage.verdit", "unknown field"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "f.yaml")
			if err := os.WriteFile(file, []byte(head+tc.triage+"---\n"+rest), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Read(file)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append(tc.want, file) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not name %q: %v", w, err)
				}
			}
		})
	}
	t.Run("not a finding", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "s.yaml")
		if err := os.WriteFile(file, []byte(rest), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(file); err == nil || !strings.Contains(err.Error(), file+": not a finding") {
			t.Errorf("error %v; want %s: not a finding", err, file)
		}
	})
}

// ReplayRun names the implementation, its version and the mode from the
// replay command a finding records (issue 31: findings named the profile
// where the implementation belonged).
func TestReplayRun(t *testing.T) {
	for _, tc := range []struct {
		replay string
		want   Run
	}{
		{"gepcheck run --impl envoy-gateway --envoy-gateway-version v1.9.1 scenarios/findings/envoy-gateway/x.yaml", Run{"envoy-gateway", "v1.9.1", "offline"}},
		{"gepcheck run --cluster local --impl contour --contour-version v1.33.8 f.yaml", Run{"contour", "v1.33.8", "local"}},
		{"gepcheck run --cluster=kind --impl=traefik f.yaml", Run{"traefik", "", "kind"}},
		{"gepcheck fuzz --property findings/gep713-vs-sticky --seed 713 --checks 2000", Run{}},
		{"", Run{}},
	} {
		if got := ReplayRun(tc.replay); got != tc.want {
			t.Errorf("ReplayRun(%q) = %+v, want %+v", tc.replay, got, tc.want)
		}
	}
}

// A finding's profile is read once from its header: a cluster run's
// spec.implementation has ClusterPrefix before it (report.WriteFinding),
// an offline run's is the profile itself.
func TestFindingProfile(t *testing.T) {
	for file, want := range map[string]string{
		"../../scenarios/findings/traefik/cluster-backendtlspolicy-gateway-api-condition.yaml":               "backendtlspolicy-gateway-api",
		"../../scenarios/findings/envoy-gateway/envoy-gateway-backendtrafficpolicy-stored-values-retry.yaml": "envoy-gateway-backendtrafficpolicy",
	} {
		e, err := Read(file)
		if err != nil {
			t.Fatal(err)
		}
		if e.Profile != want {
			t.Errorf("%s: profile %q, want %q", file, e.Profile, want)
		}
	}
}
