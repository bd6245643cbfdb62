package crd

import (
	"embed"
	"io/fs"
	"path"
	"strings"
)

// GatewayAPIVersion is the Gateway API release whose policy CRDs are built
// in (simulator/crd/gatewayapi/README.md), the version go.mod pins.
const GatewayAPIVersion = "v1.6.3"

// gatewayAPI holds Gateway API's own policy CRDs, the module's files
// gzip-compressed (hack/gatewayapi-crds.sh writes them): BackendTLSPolicy
// from the standard channel, XBackendTrafficPolicy from the experimental
// channel. They are Gateway API's, not an implementation's, so they live
// with the code that stores by them.
//
//go:generate ../../hack/gatewayapi-crds.sh
//go:embed gatewayapi/*/*.yaml.gz
var gatewayAPI embed.FS

// GatewayAPIFiles lists the built-in Gateway API CRD files as
// CHANNEL/FILE.yaml.gz, sorted.
func GatewayAPIFiles() []string {
	var out []string
	_ = fs.WalkDir(gatewayAPI, "gatewayapi", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, strings.TrimPrefix(p, "gatewayapi/"))
		}
		return err
	})
	return out
}

// GatewayAPIFile returns the gzip-compressed bytes of one of
// GatewayAPIFiles.
func GatewayAPIFile(name string) ([]byte, error) {
	return gatewayAPI.ReadFile(path.Join("gatewayapi", name))
}

func init() {
	for _, name := range GatewayAPIFiles() {
		data, err := GatewayAPIFile(name)
		if err != nil {
			panic(err)
		}
		channel, _, _ := strings.Cut(name, "/")
		Register("built in: Gateway API "+GatewayAPIVersion+" ("+channel+" channel)", data)
	}
}
