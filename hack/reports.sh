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
echo "reports: $(find reports -name 'results-*.json' | wc -l) reports written"
