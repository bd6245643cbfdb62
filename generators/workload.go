package generators

import (
	"fmt"
	"io"
	"math/rand/v2"
	"time"
)

// MaxWorkloadRoutes bounds Workload (gen --workload-routes): about 1.5
// documents a route, so more would pass the loader's 200,000 documents
// (docs/limits.md).
const MaxWorkloadRoutes = 100_000

// Workload writes the benchmark input of docs/performance.md as YAML that
// simulate reads with --profile color-inherited: one GatewayClass, 100
// Gateways × 4 listeners in 10 namespaces, routes HTTPRoutes × 3 rules
// (every other rule named; 20 % attached to two Gateways; 70 % of
// parentRefs naming a listener), routes/5 Services shared by the routes of
// their namespace (1–2 backendRefs a rule), and routes×3/10 ColorPolicies
// (15 % on Gateways, 85 % on routes; bare, defaults or overrides; creation
// times drawn from 50 seconds, so ties are common). The same routes and
// seed always give the same bytes.
func Workload(w io.Writer, routes int, seed uint64) error {
	if routes < 1 || routes > MaxWorkloadRoutes {
		return fmt.Errorf("%d routes: from 1 to %d", routes, MaxWorkloadRoutes)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	const gateways, listeners, namespaces = 100, 4, 10
	services := max(routes/5, namespaces)
	policies := routes * 3 / 10
	ns := func(i int) string { return fmt.Sprintf("ns%d", i%namespaces) }
	bw := &errWriter{w: w}
	bw.printf("apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: bench}\nspec: {controllerName: example.com/bench}\n")
	for i := range gateways {
		bw.printf("---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw%d, namespace: %s}\nspec:\n  gatewayClassName: bench\n  listeners:\n", i, ns(i))
		for l := range listeners {
			bw.printf("  - {name: l%d, protocol: HTTP, port: %d, allowedRoutes: {namespaces: {from: All}}}\n", l, 8000+l)
		}
	}
	for i := range services {
		bw.printf("---\napiVersion: v1\nkind: Service\nmetadata: {name: svc%d, namespace: %s}\nspec:\n  ports: [{port: 80}]\n", i, ns(i))
	}
	for i := range routes {
		bw.printf("---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: route%d, namespace: %s}\nspec:\n  parentRefs:\n", i, ns(i))
		parents := 1
		if rng.IntN(5) == 0 {
			parents = 2
		}
		for range parents {
			g := rng.IntN(gateways)
			if rng.IntN(10) < 7 {
				bw.printf("  - {name: gw%d, namespace: %s, sectionName: l%d}\n", g, ns(g), rng.IntN(listeners))
			} else {
				bw.printf("  - {name: gw%d, namespace: %s}\n", g, ns(g))
			}
		}
		bw.printf("  rules:\n")
		for k := range 3 {
			bw.printf("  - ")
			if k%2 == 0 {
				bw.printf("name: rule%d\n    ", k)
			}
			bw.printf("matches: [{path: {type: PathPrefix, value: /r%d/%d}}]\n    backendRefs:\n", i, k)
			for range 1 + rng.IntN(2) {
				bw.printf("    - {name: svc%d, port: 80}\n", rng.IntN(services/namespaces)*namespaces+i%namespaces)
			}
		}
	}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	colors := []string{"red", "blue", "green", "yellow"}
	for i := range policies {
		var kind, name, pns string
		if rng.IntN(100) < 15 {
			g := rng.IntN(gateways)
			kind, name, pns = "Gateway", fmt.Sprintf("gw%d", g), ns(g)
		} else {
			r := rng.IntN(routes)
			kind, name, pns = "HTTPRoute", fmt.Sprintf("route%d", r), ns(r)
		}
		ts := base.Add(time.Duration(rng.IntN(50)) * time.Second).Format(time.RFC3339)
		bw.printf("---\napiVersion: policies.controller.io/v1\nkind: ColorPolicy\nmetadata: {name: p%05d, namespace: %s, creationTimestamp: %q}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: %s, name: %s}]\n", i, pns, ts, kind, name)
		color := colors[rng.IntN(len(colors))]
		switch rng.IntN(4) {
		case 0:
			bw.printf("  overrides: {color: %s}\n", color)
		case 1:
			bw.printf("  defaults: {color: %s}\n", color)
		default:
			bw.printf("  color: %s\n", color)
		}
	}
	return bw.err
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, a ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, a...)
	}
}
