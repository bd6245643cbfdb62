#!/usr/bin/env bash
# Gateway API v1.6.3's CustomResourceDefinitions of its own policy kinds,
# built into gepcheck (simulator/crd/gatewayapi, its README.md): copied from
# the module sigs.k8s.io/gateway-api@v1.6.3 (the version go.mod pins),
# gzip-compressed and otherwise unchanged, each from the channel that
# serves the kind:
#   standard/gateway.networking.k8s.io_backendtlspolicies.yaml       BackendTLSPolicy
#   experimental/gateway.networking.x-k8s.io_xbackendtrafficpolicies.yaml XBackendTrafficPolicy
# simulator/crd TestGatewayAPICRDs checks the files against the module.
#
#   hack/gatewayapi-crds.sh
set -euo pipefail
cd "$(dirname "$0")/.."
version=v1.6.3
dir=$(go mod download -json sigs.k8s.io/gateway-api@$version | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
out=simulator/crd/gatewayapi
for f in standard/gateway.networking.k8s.io_backendtlspolicies.yaml experimental/gateway.networking.x-k8s.io_xbackendtrafficpolicies.yaml; do
	channel=${f%%/*}
	mkdir -p "$out/$channel"
	gzip -9 -n -c "$dir/config/crd/$f" >"$out/$f.gz"
done
cp "$dir/LICENSE" "$out/LICENSE"
chmod u+w "$out/LICENSE"
echo "Gateway API $version CRDs written to $out"
