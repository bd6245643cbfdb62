#!/usr/bin/env bash
# Envoy Gateway v1.9.1's translator test inputs (internal/gatewayapi/testdata/
# *.in.yaml in its module, Envoy Gateway's `resources` form) as Kubernetes
# manifests, one file each in OUTDIR, for gepcheck simulate --impl
# envoy-gateway (docs/envoy-gateway.md, Envoy Gateway's own test cases).
#
#   hack/eg-testdata.sh OUTDIR [PATTERN]   # PATTERN: a glob of case names, default *
set -euo pipefail
out=${1:?usage: hack/eg-testdata.sh OUTDIR [PATTERN]}
pattern=${2:-*}
dir=$(go mod download -json github.com/envoyproxy/gateway@v1.9.1 | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
shopt -s nullglob
files=("$dir"/internal/gatewayapi/testdata/$pattern.in.yaml)
if [ ${#files[@]} -eq 0 ]; then
	echo "hack/eg-testdata.sh: no input matches $pattern" >&2
	exit 2
fi
go run ./impl/envoygateway/cmd/eg-testdata "$out" "${files[@]}"
echo "${#files[@]} cases written to $out"
