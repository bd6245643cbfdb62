#!/usr/bin/env bash
# End-to-end checks of the gepcheck binary, as a user runs it: the demo
# prints GEP-713 Example 2's outcome, JSON output parses, stdin works, and
# every bad input exits 2 with file, document and field named, never a panic.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
BIN=${1:-bin/gepcheck}
fail=0; pass=0
ok()   { pass=$((pass+1)); }
bad()  { echo "FAIL: $*"; fail=$((fail+1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

ex2=scenarios/gep-713/example-2-defaults-and-overrides.yaml
# -o wide: each row on one line, however wide (the table fits 120 columns,
# wrapping the paths; docs/output.md, Tables).
"$BIN" simulate -f "$ex2" -o wide > "$tmp/demo.txt" 2>&1 || bad "simulate $ex2 exited $?"
# GEP-713 Example 2, expected outcome.
for want in \
  'Gateway/default/g1 > HTTPRoute/default/r1 > Service/default/b1  {"color":"blue"}' \
  'Gateway/default/g1 > HTTPRoute/default/r2 > Service/default/b1  {"color":"red"}' \
  'Gateway/default/g2 > HTTPRoute/default/r3 > Service/default/b1  {"color":"yellow"}' \
  'Gateway/default/g2 > HTTPRoute/default/r4 > Service/default/b2  {"color":"yellow"}'; do
  grep -qF -- "$want" "$tmp/demo.txt" && ok || bad "demo output lacks: $want"
done
grep -E '^ColorPolicy/default/p1 .*True/PartiallyProgrammed' "$tmp/demo.txt" >/dev/null && ok || bad "p1 not PartiallyProgrammed (merged GEP-713, Status conditions)"
grep -E '^ColorPolicy/default/p4 .*False/Overridden' "$tmp/demo.txt" >/dev/null && ok || bad "p4 not Overridden"

# gepcheck version names the commit the binary was built from (the line
# every report records, docs/reports.md), when built in a git work tree.
if head=$(git rev-parse HEAD 2> /dev/null); then
  v=$("$BIN" version) || bad "version exited $?"
  case "$v" in *", commit ${head:0:12}"*) ok ;; *) bad "version printed '$v', not commit ${head:0:12}" ;; esac
  [ "$("$BIN" --version)" = "$v" ] && ok || bad "--version differs from version"
fi

# JSON from stdin parses and has the documented top-level fields.
"$BIN" simulate -f - --profile color-inherited -o json < "$ex2" > "$tmp/out.json" || bad "simulate from stdin exited $?"
python3 - "$tmp/out.json" <<'PY' && ok || bad "JSON output"
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) >= {"semantics", "effectivePolicies", "policies", "targets"}, d.keys()
assert len(d["effectivePolicies"]) == 4
e = d["effectivePolicies"][0]
assert set(e) >= {"policyKind", "path", "spec", "provenance"}, e.keys()
PY
# (Output captured before grep -q: under pipefail, grep -q leaving early
# would fail the pipeline when gepcheck is still writing, SIGPIPE.)
out=$("$BIN" simulate -f "$ex2" -o yaml); nonempty_yaml_key effectivePolicies <<<"$out" && ok || bad "yaml output: no effectivePolicies, or none listed"

# explain both ways.
out=$("$BIN" explain -f "$ex2" --target Service/default/b2); grep -q 'ColorPolicy/default/p3' <<<"$out" && ok || bad "explain --target"
out=$("$BIN" explain -f "$ex2" --policy ColorPolicy/default/p3); grep -q 'if deleted, 2 path(s) change' <<<"$out" && ok || bad "explain --policy"

# Both semantics run every bundled scenario.
"$BIN" check scenarios/ > "$tmp/check.txt" && ok || { cat "$tmp/check.txt"; bad "check scenarios/"; }

# Bad input: exit 2, file and document named, no panic.
for f in cmd/gepcheck/testdata/bad/*.yaml; do
  "$BIN" simulate -f "$f" --profile color-direct > /dev/null 2> "$tmp/err.txt"; code=$?
  if [ "$code" -ne 2 ]; then bad "$f: exit $code, want 2"; continue; fi
  if grep -qE 'panic|goroutine [0-9]+' "$tmp/err.txt"; then bad "$f: panicked"; continue; fi
  if ! grep -qF "$(basename "$f")" "$tmp/err.txt" || ! grep -q 'document [0-9]' "$tmp/err.txt"; then
    bad "$f: error does not name file and document: $(cat "$tmp/err.txt")"; continue
  fi
  ok
done
# A scenario that does not load is bad input in a cluster run too, found
# before any cluster is reached (exit 2, not 3: the environment's).
mkdir -p "$tmp/badsc"
sed 's/^  fieldValidation:/  fieldValidationX:/' scenarios/stored/gateway-api/xbackendtrafficpolicy-crd-strict.yaml > "$tmp/badsc/x.yaml"
"$BIN" run --cluster kubeconfig --kubeconfig "$tmp/none" --impl reference "$tmp/badsc/" > /dev/null 2> "$tmp/err.txt"; code=$?
[ "$code" -eq 2 ] && grep -q 'x.yaml: document 1 (line [0-9]*): .*field spec.fieldValidationX: unknown field' "$tmp/err.txt" && ok || bad "run --cluster with a bad scenario: exit $code, want 2: $(cat "$tmp/err.txt")"
printf 'garbage: [\n\x00\x01' | "$BIN" simulate -f - > /dev/null 2>&1; code=$?
[ "$code" -eq 2 ] && ok || bad "garbage on stdin: exit $code, want 2"

# Admission webhooks: the chain as JSON, with a hook reinvoked; bad input
# exits 2 naming the file.
out=$("$BIN" admission simulate -f scenarios/admission/reinvocation.yaml --request 'CREATE v1 configmaps ns=team-b' --patch defaults.example.com -o json)
python3 -c 'import json,sys; o=json.loads(sys.argv[1])["outcome"]; assert o["reinvoked"]==["1-sidecar/sidecar.example.com/0"] and o["allowed"], o' "$out" && ok || bad "admission simulate -o json"
"$BIN" admission simulate -f simulator/admission/testdata/bad.yaml --request 'CREATE v1 pods ns=a' > /dev/null 2> "$tmp/err.txt"; code=$?
[ "$code" -eq 2 ] && grep -q 'bad.yaml: document 1' "$tmp/err.txt" && ok || bad "admission bad input: exit $code: $(cat "$tmp/err.txt")"
out=$("$BIN" admission simulate -f scenarios/admission/selectors.yaml --request-file simulator/admission/testdata/review.yaml -o json)
python3 -c 'import json,sys; o=json.loads(sys.argv[1])["outcome"]; assert o["mutating"]==["selectors/team-a.example.com/0", "selectors/app-web.example.com/0"], o' "$out" && ok || bad "admission --request-file (an AdmissionReview): $out"
"$BIN" admission simulate -f scenarios/admission/selectors.yaml --request 'CREATE apps/v1 deploymentz ns=a' > /dev/null 2> "$tmp/err.txt"; code=$?
[ "$code" -eq 2 ] && grep -q 'not a resource the API server serves' "$tmp/err.txt" && ok || bad "admission request on no resource: exit $code: $(cat "$tmp/err.txt")"

# An unknown egctl build is refused before anything is built.
for args in "egctl --egctl-build nope" "fuzz --impl envoy-gateway --egctl-build nope --checks 1"; do
  "$BIN" $args > /dev/null 2> "$tmp/err.txt"; code=$?
  [ "$code" -eq 2 ] && grep -q 'one of fast, stock' "$tmp/err.txt" && ok || bad "gepcheck $args: exit $code, want 2: $(cat "$tmp/err.txt")"
done

# fuzz --coverage fails when a combination the implementation declares is
# never drawn (two scenarios cannot draw the seventy-odd of BackendTrafficPolicy).
"$BIN" fuzz --impl envoy-gateway --checks 2 --seed 1 --coverage --out "$tmp/cov" > "$tmp/cov.txt" 2>&1; code=$?
[ "$code" -eq 1 ] && grep -q 'declared combination(s) never drawn' "$tmp/cov.txt" && ok || bad "fuzz --coverage with 2 checks: exit $code, want 1: $(tail -2 "$tmp/cov.txt")"

# fuzz --steps: out of range, or with --coverage (which counts scenarios
# without steps), is refused before anything runs.
for args in "--steps 9" "--steps 2 --coverage"; do
  "$BIN" fuzz --impl envoy-gateway --checks 1 $args > /dev/null 2> "$tmp/err.txt"; code=$?
  [ "$code" -eq 2 ] && grep -q -- '--steps\|--coverage' "$tmp/err.txt" && ok || bad "fuzz --impl envoy-gateway $args: exit $code, want 2: $(cat "$tmp/err.txt")"
done

# A random campaign sharded four ways and merged is the unsharded campaign:
# the same report but for the date and the shards it names
# (docs/reports.md, Shards).
if sharded_same "$BIN" "$tmp"; then ok; else bad "a campaign sharded 4 ways and merged is not the unsharded one (above)"; fi

# Every command line of README.md, as written (hack/readme-test.sh): the
# lines that need egctl, helm, a build or a few minutes run here (make ci
# builds them first; about 5 minutes, the Envoy Gateway fuzz lines and
# make fuzz the most); the lines that need a cluster are marked
# "# ci: KEY" and run by hack/cluster-test.sh, which judges their output,
# and make test and make ci by .ci/run: none is skipped. Planted faults
# first: a line that fails, a README whose lines all need something, and a
# line whose "# ci:" marker names a key or a command no step runs fail the
# check.
printf '```sh\nbin/gepcheck simulate -f no-such-file.yaml\n```\n' > "$tmp/README-bad.md"
printf '```sh\nbin/gepcheck version # needs: cluster\n```\n' > "$tmp/README-none.md"
printf '```sh\nbin/gepcheck version\nbin/gepcheck version # ci: no-such-key\n```\n' > "$tmp/README-ci-key.md"
printf '```sh\nbin/gepcheck version\nmake no-such-target # ci: .ci/run\n```\n' > "$tmp/README-ci-run.md"
printf '```sh\nbin/gepcheck version\nmake conformance IMPL=traefik CLUSTER=local # ci: Makefile\n```\n' > "$tmp/README-ci-make.md"
if ./hack/readme-test.sh "$BIN" "$tmp/README-bad.md" > "$tmp/readme-bad.txt" 2>&1; then bad "readme-test passed a README line that fails"; else ok; fi
if ./hack/readme-test.sh "$BIN" "$tmp/README-none.md" > "$tmp/readme-none.txt" 2>&1; then bad "readme-test passed a README of which no line ran"; else ok; fi
for f in ci-key ci-run ci-make; do
  if ./hack/readme-test.sh "$BIN" "$tmp/README-$f.md" > "$tmp/readme-$f.txt" 2>&1; then bad "readme-test passed a '# ci:' line no step runs ($f)"; else ok; fi
done
README_NEEDS="egctl helm build long" ./hack/readme-test.sh "$BIN" > "$tmp/readme.txt" 2>&1 && ok || { cat "$tmp/readme.txt"; bad "a README command line fails (above)"; }
grep -qE '^readme: [0-9]+ command lines ran, 0 failed, 0 skipped, [1-9][0-9]* run by' "$tmp/readme.txt" && ok || bad "README lines skipped or none left to CI's other steps: $(tail -1 "$tmp/readme.txt")"
tail -1 "$tmp/readme.txt"

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
