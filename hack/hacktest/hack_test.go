// Package hacktest plants faults under the checks of the hack scripts that
// make ci runs (hack/reports.sh --check, hack/cli-test.sh through
// hack/lib.sh) and shows each check fails on them: a step that fails or is
// killed, a step that writes nothing or an empty file, a file missing on one
// side, a difference. A fake gepcheck (a few lines of bash) stands in for
// the binary, so the tests take seconds and need no egctl.
package hacktest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// root is the repository, where make runs the hack scripts.
const root = "../.."

// fake is a gepcheck that prints a pinned Envoy Gateway version (FAKE_VERSION)
// and, as run, fuzz or report merge, writes the report files FAKE asks for
// into --report-dir or --out. Modes: ok (the committed offline report of
// the pinned version, its dates changed), nothing, empty, missing (ok
// without junit-offline.xml), extra (ok and one more offline file), differ
// (ok with a line changed), rebuilt (ok as another gepcheck build
// writes it: the lines naming the build changed), differmerge (ok, a line changed by report
// merge only), run3 and fuzz1 (those steps exit 3, 1), changed (findings
// verify finds a kept finding changed),
// killed (run dies of SIGKILL), noversion (egctl --help names none).
const fake = `#!/usr/bin/env bash
v=$FAKE_VERSION cmd=$1
dir=""; prev=""
for a in "$@"; do
  case $prev in --report-dir) dir=$a/envoy-gateway/$v ;; --out) [ "$1 $2" = "report merge" ] && dir=$a/envoy-gateway/$v ;; esac
  prev=$a
done
write() { # the committed offline files, dated otherwise, as FAKE says
  mkdir -p "$dir"
  for f in reports/envoy-gateway/$v/*offline*; do
    n=$(basename "$f")
    case $FAKE in
      nothing) ;;
      empty) : > "$dir/$n" ;;
      missing) [ "$n" = junit-offline.xml ] || sed 's/20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]T/2031-01-02T/g' "$f" > "$dir/$n" ;;
      *) sed 's/20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]T/2031-01-02T/g' "$f" > "$dir/$n" ;;
    esac
  done
  case $FAKE in
    nothing) rmdir "$dir" ;;
    extra) echo planted > "$dir/planted-offline.txt" ;;
    differ) sed -i '$s/$/ planted/' "$dir/junit-offline.xml" ;;
    differmerge) [ "$cmd" = report ] && sed -i '$s/$/ planted/' "$dir/junit-offline.xml" ;;
    rebuilt) sed -i -E 's/commit [0-9a-z+]+, go[0-9.]+/commit 0123456789ab+dirty, go1.99.0/g; s/"gepcheckCommit": "[0-9a-f]+"/"gepcheckCommit": "0123456789abcdef"/' "$dir"/* ;;
  esac
}
case "$1 ${2:-}" in
  "egctl --help")
    [ "$FAKE" = noversion ] && { echo "Usage: egctl"; exit 0; }
    echo "      --envoy-gateway-version string   Envoy Gateway version (default \"$v\")" ;;
  "egctl "*) ;;
  "run "*)
    # as gepcheck run: fuzz's flags are not its own
    case " $* " in *" --fail-on-new "*|*" --coverage "*) echo "Error: unknown flag" >&2; exit 2 ;; esac
    case $FAKE in run3) echo "planted: no cluster" >&2; exit 3 ;; killed) kill -KILL $$ ;; esac
    write; exit 1 ;; # Envoy Gateway disagrees on its kept findings: exit 1
  "fuzz "*)
    [ "$FAKE" = fuzz1 ] && exit 1
    [ -n "$dir" ] && write; exit 0 ;;
  "report merge") write; exit 0 ;;
  "findings verify")
    [ "$FAKE" = changed ] && { echo "CHANGED     planted"; exit 1; }
    echo "findings verify: fake"; exit 0 ;;
  *) echo "fake gepcheck: $*" >&2; exit 2 ;;
esac
`

// fakeBin writes fake into a new directory and returns its path.
func fakeBin(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "gepcheck")
	if err := os.WriteFile(bin, []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// bash runs a bash command line in the repository, args as $1…, with env
// added, and returns its output and exit code.
func bash(t *testing.T, env []string, script string, args ...string) (string, int) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash not found: the hack scripts are bash")
	}
	cmd := exec.Command("bash", append([]string{"-c", script, "bash"}, args...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	return string(out), code
}

// committed is a version of Envoy Gateway with an offline report committed
// in reports/ (the fake pins it) and the number of its offline files.
func committed(t *testing.T) (string, int) {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(root, "reports/envoy-gateway/v*/results-offline.json"))
	if len(dirs) == 0 {
		t.Fatal("no committed offline report of Envoy Gateway in reports/envoy-gateway/")
	}
	dir := filepath.Dir(dirs[len(dirs)-1])
	files, _ := filepath.Glob(filepath.Join(dir, "*offline*"))
	return filepath.Base(dir), len(files)
}

func TestReportsCheck(t *testing.T) {
	bin := fakeBin(t)
	v, n := committed(t)
	// The committed report names the gepcheck that wrote it, so that
	// "rebuilt" changes something.
	if readme, err := os.ReadFile(filepath.Join(root, "reports/envoy-gateway", v, "README.md")); err != nil || !strings.Contains(string(readme), "Run by gepcheck ") {
		t.Fatalf("reports/envoy-gateway/%s/README.md names no gepcheck build (Run by gepcheck ...): regenerate it (make reports)", v)
	}
	for _, tc := range []struct {
		fake, version string
		ok            bool
		want          string
	}{
		// The control: the committed report, dated otherwise, passes and
		// says how many files it compared.
		{"ok", "", true, fmt.Sprintf("reports: envoy-gateway %s offline: %d files identical but for the date", v, n)},
		{"noversion", "", false, "names no pinned Envoy Gateway version"},
		{"ok", "v0.0.0", false, "no committed report of envoy-gateway v0.0.0"},
		{"run3", "", false, "exited 3, want 0 1"},
		{"killed", "", false, "exited 137, want 0 1"},
		{"fuzz1", "", false, "exited 1, want 0"},
		{"nothing", "", false, "the steps wrote no report"},
		{"empty", "", false, "junit-offline.xml is empty"},
		{"missing", "", false, "junit-offline.xml is missing"},
		{"extra", "", false, "planted-offline.txt is missing"},
		{"differ", "", false, "differ:"},
		// Another build of gepcheck writes the same report but for the
		// line naming it (docs/reports.md, What every report states).
		{"rebuilt", "", true, "files identical but for the date"},
		{"changed", "", false, "kept findings changed"},
	} {
		version := tc.version
		if version == "" {
			version = v
		}
		t.Run(tc.fake+tc.version, func(t *testing.T) {
			out, code := bash(t, []string{"FAKE=" + tc.fake, "FAKE_VERSION=" + version}, `hack/reports.sh --check "$1"`, bin)
			if (code == 0) != tc.ok || !strings.Contains(out, tc.want) {
				t.Errorf("hack/reports.sh --check, %s: exit %d, want ok=%v and %q in:\n%s", tc.fake, code, tc.ok, tc.want, out)
			}
		})
	}
}

func TestShardedSame(t *testing.T) {
	bin := fakeBin(t)
	v, _ := committed(t)
	for _, tc := range []struct {
		fake string
		ok   bool
		want string
	}{
		{"ok", true, "2 files identical to the unsharded campaign's"},
		{"noversion", false, "names no pinned Envoy Gateway version"},
		{"fuzz1", false, "exited 1, want 0"},
		{"nothing", false, "is missing"},
		{"empty", false, "is empty"},
		{"missing", false, "junit-offline.xml is missing"},
		{"differmerge", false, "differ:"},
	} {
		t.Run(tc.fake, func(t *testing.T) {
			out, code := bash(t, []string{"FAKE=" + tc.fake, "FAKE_VERSION=" + v}, `. hack/lib.sh; sharded_same "$1" "$2"`, bin, t.TempDir())
			if (code == 0) != tc.ok || !strings.Contains(out, tc.want) {
				t.Errorf("sharded_same, %s: exit %d, want ok=%v and %q in:\n%s", tc.fake, code, tc.ok, tc.want, out)
			}
		})
	}
}

func TestNonemptyYAMLKey(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		ok   bool
	}{
		{"effectivePolicies:\n- path:\n  - Gateway/default/g1\n", true},
		{"effectivePolicies:\n  - path: []\n", true},
		{"effectivePolicies:\n  a: 1\n", true},
		{"effectivePolicies: [x]\n", true},
		{"effectivePolicies: []\npolicies:\n- p\n", false},
		{"effectivePolicies: {}\n", false},
		{"effectivePolicies: null\n", false},
		{"effectivePolicies:\npolicies:\n- p\n", false},
		{"effectivePolicies:\n", false},
		{"policies:\n- p\n", false},
		{"", false},
		{"  effectivePolicies:\n  - p\n", false}, // not at the top level
	} {
		cmd := exec.Command("bash", "-c", ". hack/lib.sh; nonempty_yaml_key effectivePolicies")
		cmd.Dir = root
		cmd.Stdin = strings.NewReader(tc.yaml)
		out, err := cmd.CombinedOutput()
		if _, exit := err.(*exec.ExitError); err != nil && !exit {
			t.Fatal(err)
		}
		if (err == nil) != tc.ok || len(out) > 0 {
			t.Errorf("nonempty_yaml_key effectivePolicies on %q: err %v, output %q; want ok=%v", tc.yaml, err, out, tc.ok)
		}
	}
}

// kept_kinds, which judges make ci's random runs in a cluster by their
// findings, fails on a new kind, on no triage and on a missing log.
func TestKeptKinds(t *testing.T) {
	const triage = "contour on local: 3 passed, 17 failed, 0 errors, 0 skipped (of 20 scenarios, 1m0s)\n" +
		"triage of the kept finding of each kind (scenarios/findings; a kind is not always one behaviour: compare the files):\n" +
		"  conflicted                                    contradicts-must GEP-713-027 (contour/cluster-backendtlspolicy-gateway-api-conflicted.yaml)\n" +
		"  condition                                     contradicts-must GEP-2649-023 (contour/cluster-backendtlspolicy-gateway-api-condition.yaml)\n"
	const newKind = "  extra-setting-validation                      new: no kept finding of this kind (verdict untriaged)\n"
	for _, tc := range []struct {
		name, log string
		ok        bool
		want      string
	}{
		{"kept", triage + "coverage (field @ level / merge option):\n  x 1 1\n", true, "2 kinds"},
		{"a new kind", triage + newKind, false, "without a kept finding:\n  extra-setting-validation"},
		{"no triage", "contour on local: 20 passed, 0 failed, 0 errors, 0 skipped (of 20 scenarios, 1m0s)\n", false, "no triage of kinds"},
		{"findings not read", "kept findings in scenarios/findings not read: planted\n", false, "no triage of kinds"},
		{"empty log", "", false, "is missing or empty"},
	} {
		log := filepath.Join(t.TempDir(), "run.txt")
		if err := os.WriteFile(log, []byte(tc.log), 0o644); err != nil {
			t.Fatal(err)
		}
		out, code := bash(t, nil, `. hack/lib.sh; kept_kinds "$1" && echo "$kept_count kinds"`, log)
		if (code == 0) != tc.ok || !strings.Contains(out, tc.want) {
			t.Errorf("kept_kinds, %s: exit %d, want ok=%v and %q in:\n%s", tc.name, code, tc.ok, tc.want, out)
		}
	}
}

// random_outcomes fails on a run that did not report every case, skipped
// one, or had more errors than its bound.
func TestRandomOutcomes(t *testing.T) {
	sum := func(p, f, e, s, n int) string {
		return fmt.Sprintf("traefik on local: %d passed, %d failed, %d errors, %d skipped (of %d scenarios, 2m3s)\n", p, f, e, s, n)
	}
	for _, tc := range []struct {
		name, log string
		ok        bool
		want      string
	}{
		{"within the bound", sum(10, 8, 2, 0, 20), true, ""},
		{"errors over the bound", sum(10, 7, 3, 0, 20), false, "3 errors, at most 2 allowed"},
		{"a skip", sum(10, 8, 1, 1, 20), false, "1 random cases skipped"},
		{"fewer cases", sum(10, 8, 1, 0, 19), false, "want 20 cases"},
		{"another implementation", strings.Replace(sum(10, 8, 2, 0, 20), "traefik", "contour", 1), false, "no summary of traefik's run"},
		{"no summary", "", false, "no summary"},
	} {
		log := filepath.Join(t.TempDir(), "run.txt")
		if err := os.WriteFile(log, []byte(tc.log), 0o644); err != nil {
			t.Fatal(err)
		}
		out, code := bash(t, nil, `. hack/lib.sh; random_outcomes "$1" traefik 20 2`, log)
		if (code == 0) != tc.ok || !strings.Contains(out, tc.want) {
			t.Errorf("random_outcomes, %s: exit %d, want ok=%v and %q in:\n%s", tc.name, code, tc.ok, tc.want, out)
		}
	}
}

// findings_reproduce (hack/cluster-test.sh) fails when the run wrote no
// results, or more than one, and when gepcheck findings verify fails
// (a finding changed, none compared); it passes with verify's summary.
func TestFindingsReproduce(t *testing.T) {
	verify := func(code int) string {
		bin := filepath.Join(t.TempDir(), "gepcheck")
		script := fmt.Sprintf("#!/usr/bin/env bash\n[ \"$1 $2\" = 'findings verify' ] || exit 2\necho 'CHANGED     planted'\necho 'findings verify: planted summary'\nexit %d\n", code)
		if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return bin
	}
	results := func(n int) string {
		dir := t.TempDir()
		for i := range n {
			d := filepath.Join(dir, "impl", fmt.Sprintf("v%d", i))
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, "results-offline.json"), []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	for _, tc := range []struct {
		name     string
		bin, dir string
		code     int
		want     string
	}{
		{"reproduces", verify(0), results(1), 0, "findings verify: planted summary"},
		{"changed", verify(1), results(1), 1, "CHANGED     planted"},
		{"not judged", verify(2), results(1), 1, "findings verify exited 2"},
		{"no results", verify(0), results(0), 1, "want one results-*.json"},
		{"two results", verify(0), results(2), 1, "want one results-*.json"},
		{"no directory", verify(0), filepath.Join(t.TempDir(), "none"), 1, "want one results-*.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code := bash(t, nil, `. hack/lib.sh; findings_reproduce "$1" "$2" scenarios/findings/contour/`, tc.bin, tc.dir)
			if code != tc.code || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, output %q; want %d and %q", code, out, tc.code, tc.want)
			}
		})
	}
}

// readme_run (hack/cluster-test.sh) runs the one README line that carries
// its key, as written, and fails when the line exits otherwise than
// wanted, when no line carries the key and when two do.
func TestReadmeRun(t *testing.T) {
	readme := "# r\n\n```sh\necho one > one.txt  # writes one # ci: one # needs: cluster\nexit 3  # fails # exit: 3 # ci: three\necho a # ci: twice\necho b # ci: twice\n```\n\n```sh\nnot-in-a-block # ci: zero\n```\n"
	// Outside a ```sh block, a line is no command: "zero" names none.
	readme = strings.Replace(readme, "```sh\nnot-in-a-block", "```\nnot-in-a-block", 1)
	for _, tc := range []struct {
		name, args string
		ok         bool
		want       string
	}{
		{"as written", "0 -- one", true, "readme: echo one > one.txt"},
		{"the exit wanted", "3 -- three", true, "readme: exit 3"},
		{"another exit", "0 -- three", false, "exited 3, want 0"},
		{"no line", "0 -- zero", false, "0 lines of"},
		{"two lines", "0 -- twice", false, "2 lines of"},
	} {
		dir := t.TempDir()
		file := filepath.Join(dir, "README.md")
		if err := os.WriteFile(file, []byte(readme), 0o644); err != nil {
			t.Fatal(err)
		}
		out, code := bash(t, []string{"README_FILE=" + file}, `. hack/lib.sh; readme_run "$1" "$1/log" `+tc.args+` 2>&1`, dir)
		if (code == 0) != tc.ok || !strings.Contains(out, tc.want) {
			t.Errorf("readme_run, %s: exit %d, want ok=%v and %q in:\n%s", tc.name, code, tc.ok, tc.want, out)
		}
		if tc.name == "as written" {
			if b, err := os.ReadFile(filepath.Join(dir, "one.txt")); err != nil || string(b) != "one\n" {
				t.Errorf("readme_run did not run the line in DIR: %q, %v", b, err)
			}
		}
	}
}
