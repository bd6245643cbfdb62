#!/usr/bin/env bash
# Regenerates the published reports in reports/ (docs/reports.md), or, with
# --check, regenerates Envoy Gateway's offline report of the version gepcheck
# pins and checks it equals the committed one but for its date.
#
#   hack/reports.sh BIN VERSION...   every Envoy Gateway version offline (the
#                                    fast egctl build, else the stock one), its
#                                    pinned version's controller on a local
#                                    control plane, the reference there and
#                                    offline, and the matrix of findings
#   hack/reports.sh --check BIN      what make ci runs
set -u
check=false
if [ "${1:-}" = "--check" ]; then check=true; shift; fi
BIN=$1; shift
pinned=$("$BIN" egctl --help | sed -n 's/.*--envoy-gateway-version string.*(default "\(v[0-9.]*\)").*/\1/p')

# offline_eg DIR VERSION: Envoy Gateway's catalogue, Gateway API's
# BackendTLSPolicy scenarios, the findings and three random campaigns,
# offline, into DIR.
offline_eg() {
  local dir=$1 v=$2 build=fast
  "$BIN" egctl --envoy-gateway-version "$v" --egctl-build fast > /dev/null 2>&1 || build=stock
  local flags=(--impl envoy-gateway --envoy-gateway-version "$v" --egctl-build "$build")
  "$BIN" run "${flags[@]}" scenarios/envoy-gateway/ scenarios/gateway-api/ scenarios/findings/envoy-gateway/ --report-dir "$dir" > /dev/null 2>&1
  "$BIN" fuzz "${flags[@]}" --checks 300 --seed 1 --out "$tmp/findings-$v" --report-dir "$dir" > /dev/null
  "$BIN" fuzz "${flags[@]}" --kind BackendTLSPolicy --checks 200 --seed 1 --out "$tmp/findings-$v" --report-dir "$dir" > /dev/null
  "$BIN" fuzz "${flags[@]}" --steps 3 --checks 50 --seed 1 --out "$tmp/findings-$v" --report-dir "$dir" > /dev/null
  echo "envoy-gateway $v offline ($build egctl): $(ls "$dir/envoy-gateway/$v" | tr '\n' ' ')"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if $check; then
  offline_eg "$tmp/reports" "$pinned"
  bad=0
  for f in "$tmp/reports/envoy-gateway/$pinned"/*offline*; do
    name=$(basename "$f")
    committed="reports/envoy-gateway/$pinned/$name"
    if ! diff <(grep -vE '20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z' "$f") <(grep -vE '20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z' "$committed") > "$tmp/diff" 2>&1; then
      echo "reports: $committed differs from a regenerated one (make reports):"; head -20 "$tmp/diff"; bad=1
    fi
  done
  [ "$bad" -eq 0 ] && echo "reports: envoy-gateway $pinned offline regenerated identical but for the date"
  exit $bad
fi

for v in "$@"; do offline_eg reports "$v"; done
"$BIN" run --impl reference scenarios/ --report-dir reports > /dev/null 2>&1
"$BIN" run --cluster local --impl reference scenarios/ --report-dir reports > /dev/null 2>&1
"$BIN" run --cluster local --impl envoy-gateway scenarios/envoy-gateway/ scenarios/gateway-api/ scenarios/findings/envoy-gateway/ --report-dir reports > /dev/null 2>&1
"$BIN" report matrix reports/envoy-gateway > reports/envoy-gateway/README.md
# Contour on a local control plane: Gateway API's BackendTLSPolicy
# catalogue, its kept findings and 50 random cases, shrunk there.
contour=$("$BIN" run --help | sed -n 's/.*--contour-version string.*(default "\(v[0-9.]*\)").*/\1/p')
"$BIN" run --cluster local --impl contour scenarios/gateway-api/ scenarios/findings/contour/ --random 50 --seed 1 --out "$tmp/contour-findings" --report-dir reports > /dev/null 2>&1
# Traefik likewise: one Traefik for every Gateway.
traefik=$("$BIN" run --help | sed -n 's/.*--traefik-version string.*(default "\(v[0-9.]*\)").*/\1/p')
"$BIN" run --cluster local --impl traefik scenarios/gateway-api/ scenarios/findings/traefik/ --random 50 --seed 1 --step-timeout 10s --out "$tmp/traefik-findings" --report-dir reports > /dev/null 2>&1
# The implementations side by side (docs/comparison.md).
{
  cat <<'EOM'
# Implementations side by side: Gateway API's BackendTLSPolicy

Written by `make reports` (hack/reports.sh) with `gepcheck report compare`
from the published results in reports/: the reference in a local control
plane, Envoy Gateway offline (egctl) and its controller, Contour in a local
control plane (one `contour serve` per Gateway), Traefik in a local
control plane (its Kubernetes Gateway provider). Rows: Gateway API's
BackendTLSPolicy scenarios (scenarios/gateway-api/), the kept findings
(scenarios/findings/, each an implementation's shrunk disagreement, which
gepcheck-reference, the reference engine's own controller, passes), and the
random campaigns with each kind of difference they
found. "—": not run by that implementation (another implementation's
finding, or a kind it does not serve); "skip": a feature it does not
declare. What each kind means, and its triage: `gepcheck findings`,
docs/envoy-gateway.md and docs/contour-and-traefik.md.

EOM
  "$BIN" report compare --under scenarios/gateway-api/ --under scenarios/findings/ \
    reports/reference/main/results-cluster-local.json \
    "reports/envoy-gateway/$pinned/results-offline.json" "reports/envoy-gateway/$pinned/results-cluster-local.json" \
    "reports/contour/$contour/results-cluster-local.json" "reports/traefik/$traefik/results-cluster-local.json"
} > docs/comparison.md
echo "reports: $(find reports -name 'results-*.json' | wc -l) reports written"
