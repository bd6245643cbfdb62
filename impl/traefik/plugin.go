package traefik

import (
	"context"

	"github.com/gepcheck/gepcheck/impl"
	"github.com/gepcheck/gepcheck/impl/internal/controller"
	"github.com/gepcheck/gepcheck/suite/differential"
	"github.com/gepcheck/gepcheck/suite/incluster"
)

func init() {
	controller.Register(controller.Plugin{
		Name: "traefik", Project: "Traefik", Version: Version,
		Doc: "Traefik with its Kubernetes Gateway provider in a cluster, built and cached by gepcheck; no offline form",
		Who: func(version string) impl.Who {
			return impl.Who{Organization: "traefik", Project: "traefik", URL: "https://github.com/traefik/traefik", Version: version,
				Contact: []string{"https://github.com/traefik/traefik/issues/new/choose"}}
		},
		// traefik (and its configuration reader).
		Tools: func(version string) []impl.Tool {
			t := Tool(version)
			return []impl.Tool{{Name: t.Name, Version: t.Version, Build: func(ctx context.Context, log func(string)) (string, error) {
				return Build(ctx, version, log)
			}}}
		},
		InCluster: func(version string) incluster.Implementation { return &InCluster{Version: version} },
		Describe:  func(version string) string { return "traefik " + version + " (Kubernetes Gateway provider)" },
		// Random cases in a cluster draw Gateway API's BackendTLSPolicy.
		FuzzKinds:     []differential.FuzzKind{{Kind: "BackendTLSPolicy", Profile: "backendtlspolicy-gateway-api"}},
		ProfileSource: "Gateway API's BackendTLSPolicy reference (docs/semantics.md, Which None policies conflict)",
	})
}
