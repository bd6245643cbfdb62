package contour

import (
	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/impl/internal/controller"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/incluster"
)

func init() {
	controller.Register(controller.Plugin{
		Name: "contour", Project: "Contour", Version: Version,
		Doc: "Contour's contour serve in a cluster, one per Gateway, built and cached by gepcheck; no offline form",
		Who: func(version string) impl.Who {
			return impl.Who{Organization: "projectcontour", Project: "contour", URL: "https://github.com/projectcontour/contour", Version: version,
				Contact: []string{"https://github.com/projectcontour/contour/issues/new/choose"}}
		},
		// contour.
		Tools: func(version string) []impl.Tool {
			t := Tool(version)
			return []impl.Tool{{Name: t.Name, Version: t.Version, Build: t.Build}}
		},
		InCluster: func(version string) incluster.Implementation { return &InCluster{Version: version} },
		Describe:  func(version string) string { return "contour " + version + " (contour serve, one per Gateway)" },
		// Random cases in a cluster (run --cluster --random) draw Gateway
		// API's BackendTLSPolicy.
		FuzzKinds:     []differential.FuzzKind{{Kind: "BackendTLSPolicy", Profile: "backendtlspolicy-gateway-api"}},
		ProfileSource: "Gateway API's BackendTLSPolicy reference (docs/semantics.md, Which None policies conflict)",
	})
}
