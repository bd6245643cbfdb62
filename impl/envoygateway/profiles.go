package envoygateway

import (
	"embed"
	"strings"

	"github.com/gepcheck/gepcheck/simulator/crd"
	"github.com/gepcheck/gepcheck/simulator/profile"
)

// profiles are Envoy Gateway's policy kinds as its documentation describes
// them (docs/envoy-gateway.md), built-in profiles of gepcheck wherever
// this implementation is linked.
//
//go:embed profiles/*.yaml
var profiles embed.FS

// crds are the CustomResourceDefinitions of those kinds in Envoy Gateway
// v1.9.1 (crds/README.md): gepcheck stores each policy as the API server
// does with them (docs/profiles.md, What is stored).
//
//go:embed crds/*.yaml.gz
var crds embed.FS

func init() {
	files, _ := profiles.ReadDir("profiles")
	for _, f := range files {
		data, err := profiles.ReadFile("profiles/" + f.Name())
		if err != nil {
			panic(err)
		}
		profile.Register(strings.TrimSuffix(f.Name(), ".yaml"), data)
	}
	files, _ = crds.ReadDir("crds")
	for _, f := range files {
		data, err := crds.ReadFile("crds/" + f.Name())
		if err != nil {
			panic(err)
		}
		crd.Register("built in: Envoy Gateway "+Version, data)
	}
}
