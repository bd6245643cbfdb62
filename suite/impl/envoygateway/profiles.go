package envoygateway

import (
	"embed"
	"strings"

	"github.com/gepcheck/gepcheck/simulator/profile"
)

// profiles are Envoy Gateway's policy kinds as its documentation describes
// them (docs/envoy-gateway.md), built-in profiles of gepcheck wherever
// this implementation is linked.
//
//go:embed profiles/*.yaml
var profiles embed.FS

func init() {
	files, _ := profiles.ReadDir("profiles")
	for _, f := range files {
		data, err := profiles.ReadFile("profiles/" + f.Name())
		if err != nil {
			panic(err)
		}
		profile.Register(strings.TrimSuffix(f.Name(), ".yaml"), data)
	}
}
