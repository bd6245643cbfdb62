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
#   hack/reports.sh --offline BIN VERSION...
#                                    those Envoy Gateway versions offline only
#                                    (a part of the above, run on its own)
#   hack/reports.sh --cluster BIN    the rest: the reference, the pinned
#                                    Envoy Gateway's controller, Contour and
#                                    Traefik, the matrix and the comparison
#   hack/reports.sh --check BIN      what make ci runs: fails when a step
#                                    fails, when nothing is regenerated, when
#                                    a file is missing or empty on either side,
#                                    or when they differ (hack/hacktest plants
#                                    each of these)
#
# Exit codes of the steps (README, "Exit codes"): run exits 1 when the
# implementation disagrees with the reference on some case, as Envoy
# Gateway does on its kept findings, so 0 and 1 are accepted of run; fuzz
# --impl prints its findings and exits 0. Anything else (2, 3, a signal)
# stops the script.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
die() { echo "reports: $*"; exit 1; }
check=false offline=false cluster=false
if [ "${1:-}" = "--check" ]; then check=true; shift; fi
if [ "${1:-}" = "--offline" ]; then offline=true; shift; fi
if [ "${1:-}" = "--cluster" ]; then cluster=true; shift; fi
[ "$#" -ge 1 ] || die "usage: hack/reports.sh [--check|--offline|--cluster] BIN [VERSION...]"
BIN=$1; shift
pinned=$(pinned_eg_version "$BIN") || die "$BIN egctl --help names no pinned Envoy Gateway version (its --envoy-gateway-version default)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# offline_eg DIR VERSION: Envoy Gateway's catalogue, Gateway API's
# BackendTLSPolicy scenarios, the findings and three random campaigns,
# offline, into DIR.
offline_eg() {
  local dir=$1 v=$2 build=fast
  "$BIN" egctl --envoy-gateway-version "$v" --egctl-build fast > /dev/null 2>&1 || build=stock
  local flags=(--impl envoy-gateway --envoy-gateway-version "$v" --egctl-build "$build") fz=() cover=()
  # make ci's campaigns of the pinned version are these: each fails on a
  # kind of difference no kept finding has (fuzz --fail-on-new), the first
  # on a declared combination never drawn (--coverage); neither changes
  # what the report holds.
  if $check; then fz=(--fail-on-new); cover=(--coverage); fi
  ran "$tmp/log" 0 1 -- "$BIN" run "${flags[@]}" scenarios/envoy-gateway/ scenarios/gateway-api/ scenarios/findings/envoy-gateway/ --report-dir "$dir" || exit 1
  ran "$tmp/log" 0 -- "$BIN" fuzz "${flags[@]}" "${fz[@]}" "${cover[@]}" --checks 300 --seed 1 --out "$tmp/findings-$v" --report-dir "$dir" || exit 1
  ran "$tmp/log" 0 -- "$BIN" fuzz "${flags[@]}" "${fz[@]}" --kind BackendTLSPolicy --checks 200 --seed 1 --out "$tmp/findings-$v" --report-dir "$dir" || exit 1
  ran "$tmp/log" 0 -- "$BIN" fuzz "${flags[@]}" "${fz[@]}" --steps 3 --checks 50 --seed 1 --out "$tmp/findings-$v" --report-dir "$dir" || exit 1
  echo "envoy-gateway $v offline ($build egctl): $(ls "$dir/envoy-gateway/$v" 2> /dev/null | tr '\n' ' ')"
}

if $check; then
  new=$tmp/reports/envoy-gateway/$pinned committed=reports/envoy-gateway/$pinned
  [ -d "$committed" ] || die "no committed report of envoy-gateway $pinned, the pinned version: $committed (make reports)"
  offline_eg "$tmp/reports" "$pinned"
  [ -d "$new" ] || die "envoy-gateway $pinned: the steps wrote no report in $new"
  # The kept findings found offline show exactly their recorded differences
  # in the regenerated run (those found in a cluster, cluster-*, are
  # cluster-test's).
  mapfile -t offline_findings < <(ls scenarios/findings/envoy-gateway/*.yaml | grep -v '/cluster-')
  [ "${#offline_findings[@]}" -gt 0 ] || die "no offline kept findings of envoy-gateway"
  findings_reproduce "$BIN" "$new" "${offline_findings[@]}" || die "envoy-gateway $pinned offline: kept findings changed (gepcheck findings update records new ones)"
  # The offline files of both sides: one on a side only is missing on the other.
  names=$( { ls "$new"; ls "$committed"; } | grep offline | sort -u) || die "envoy-gateway $pinned: no offline report file in $new or $committed"
  # shellcheck disable=SC2086 # file names of the report, no blanks
  if ! same_files undated "$new" "$committed" $names; then
    die "envoy-gateway $pinned offline: the regenerated report is not the committed one (make reports), $same_count file(s) identical"
  fi
  [ "$same_count" -gt 0 ] || die "envoy-gateway $pinned offline: no file compared"
  echo "reports: envoy-gateway $pinned offline: $same_count files identical but for the date"
  exit 0
fi

$cluster || for v in "$@"; do offline_eg reports "$v"; done
if $offline; then
  [ "$#" -ge 1 ] || die "--offline: name the Envoy Gateway versions"
  exit 0
fi
ran "$tmp/log" 0 1 -- "$BIN" run --impl reference scenarios/ --report-dir reports || exit 1
ran "$tmp/log" 0 1 -- "$BIN" run --cluster local --impl reference scenarios/ --report-dir reports || exit 1
ran "$tmp/log" 0 1 -- "$BIN" run --cluster local --impl envoy-gateway scenarios/envoy-gateway/ scenarios/gateway-api/ scenarios/findings/envoy-gateway/ --report-dir reports || exit 1
"$BIN" report matrix reports/envoy-gateway > reports/envoy-gateway/README.md
# Contour on a local control plane: Gateway API's BackendTLSPolicy
# catalogue, its kept findings and 50 random cases, shrunk there.
contour=$("$BIN" run --help | sed -n 's/.*--contour-version string.*(default "\(v[0-9.]*\)").*/\1/p')
[ -n "$contour" ] || die "$BIN run --help names no pinned Contour version"
ran "$tmp/log" 0 1 -- "$BIN" run --cluster local --impl contour scenarios/gateway-api/ scenarios/findings/contour/ --random 50 --seed 1 --out "$tmp/contour-findings" --report-dir reports || exit 1
# Traefik likewise: one Traefik for every Gateway.
traefik=$("$BIN" run --help | sed -n 's/.*--traefik-version string.*(default "\(v[0-9.]*\)").*/\1/p')
[ -n "$traefik" ] || die "$BIN run --help names no pinned Traefik version"
ran "$tmp/log" 0 1 -- "$BIN" run --cluster local --impl traefik scenarios/gateway-api/ scenarios/findings/traefik/ --random 50 --seed 1 --step-timeout 10s --out "$tmp/traefik-findings" --report-dir reports || exit 1
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
