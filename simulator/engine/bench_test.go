package engine_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/topology"
)

// scale is the size of the benchmark topology of docs/performance.md.
type scale struct {
	gateways, listeners, routes, rules, services, policies int
}

var issueScale = scale{gateways: 100, listeners: 4, routes: 10000, rules: 3, services: 2000, policies: 3000}

// bigInput builds a Gateway API topology of the given scale and policies at
// every level, deterministically from seed.
func bigInput(tb testing.TB, s scale, seed uint64) engine.Input {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, 0))
	const g = "gateway.networking.k8s.io"
	var in topology.GatewayAPI
	in.GatewayClasses = append(in.GatewayClasses, &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "bench"}})
	ns := func(i int) string { return fmt.Sprintf("ns%d", i%10) }
	all := gwv1.NamespacesFromAll
	for i := 0; i < s.gateways; i++ {
		gw := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("gw%d", i), Namespace: ns(i)}}
		gw.Spec.GatewayClassName = "bench"
		for l := 0; l < s.listeners; l++ {
			gw.Spec.Listeners = append(gw.Spec.Listeners, gwv1.Listener{
				Name: gwv1.SectionName(fmt.Sprintf("l%d", l)), Protocol: gwv1.HTTPProtocolType, Port: gwv1.PortNumber(8000 + l),
				AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: &all}},
			})
		}
		in.Gateways = append(in.Gateways, gw)
	}
	for i := 0; i < s.services; i++ {
		in.Services = append(in.Services, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("svc%d", i), Namespace: ns(i)}})
	}
	for i := 0; i < s.routes; i++ {
		r := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("route%d", i), Namespace: ns(i)}}
		parents := 1
		if rng.IntN(5) == 0 {
			parents = 2 // a route attached to two gateways
		}
		for p := 0; p < parents; p++ {
			pr := gwv1.ParentReference{Name: gwv1.ObjectName(fmt.Sprintf("gw%d", rng.IntN(s.gateways)))}
			if rng.IntN(10) < 7 {
				sec := gwv1.SectionName(fmt.Sprintf("l%d", rng.IntN(s.listeners)))
				pr.SectionName = &sec
			}
			r.Spec.ParentRefs = append(r.Spec.ParentRefs, pr)
		}
		for k := 0; k < s.rules; k++ {
			var rule gwv1.HTTPRouteRule
			if k%2 == 0 {
				name := gwv1.SectionName(fmt.Sprintf("rule%d", k))
				rule.Name = &name
			}
			for b := 0; b < 1+rng.IntN(2); b++ {
				// Same-namespace Services, shared by many routes.
				svc := rng.IntN(s.services/10)*10 + i%10
				rule.BackendRefs = append(rule.BackendRefs, gwv1.HTTPBackendRef{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: gwv1.ObjectName(fmt.Sprintf("svc%d", svc))}}})
			}
			r.Spec.Rules = append(r.Spec.Rules, rule)
		}
		in.HTTPRoutes = append(in.HTTPRoutes, r)
	}
	// Parent namespaces: gateways live in ns(i); point each parentRef at it.
	for _, r := range in.HTTPRoutes {
		for p := range r.Spec.ParentRefs {
			var idx int
			fmt.Sscanf(string(r.Spec.ParentRefs[p].Name), "gw%d", &idx)
			n := gwv1.Namespace(ns(idx))
			r.Spec.ParentRefs[p].Namespace = &n
		}
	}
	graph := &topology.Graph{}
	graph.AddGatewayAPI(in)

	// The generators' all-levels profile targets every level and
	// implements the four GEP-713 strategies that merge.
	prof, err := profile.Parse([]byte(generators.AllLevelsProfile), "all-levels")
	if err != nil {
		tb.Fatal(err)
	}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var pols []engine.Policy
	for i := 0; i < s.policies; i++ {
		var tr engine.TargetRef
		var pns string
		switch lvl := rng.IntN(100); {
		case lvl < 1:
			tr = engine.TargetRef{Group: g, Kind: "GatewayClass", Name: "bench"}
			pns = "ns0"
		case lvl < 10:
			gi := rng.IntN(s.gateways)
			tr = engine.TargetRef{Group: g, Kind: "Gateway", Name: fmt.Sprintf("gw%d", gi)}
			if rng.IntN(2) == 0 {
				tr.SectionName = fmt.Sprintf("l%d", rng.IntN(s.listeners))
			}
			pns = ns(gi)
		case lvl < 80:
			ri := rng.IntN(s.routes)
			tr = engine.TargetRef{Group: g, Kind: "HTTPRoute", Name: fmt.Sprintf("route%d", ri)}
			if rng.IntN(3) == 0 {
				tr.SectionName = fmt.Sprintf("rule%d", 2*rng.IntN((s.rules+1)/2))
			}
			pns = ns(ri)
		default:
			si := rng.IntN(s.services)
			tr = engine.TargetRef{Kind: "Service", Name: fmt.Sprintf("svc%d", si)}
			pns = ns(si)
		}
		spec := map[string]any{
			"timeout": fmt.Sprintf("%ds", rng.IntN(30)),
			"retry":   map[string]any{"attempts": float64(rng.IntN(5)), "on": []any{"5xx"}},
		}
		if rng.IntN(3) == 0 {
			spec["color"] = []string{"red", "blue", "green"}[rng.IntN(3)]
		}
		body := map[string]any{"targetRefs": []any{}}
		switch rng.IntN(6) {
		case 0:
			body["overrides"] = spec
		case 1:
			spec["strategy"] = "patch"
			body["overrides"] = spec
		case 2:
			spec["strategy"] = "patch"
			body["defaults"] = spec
		default:
			for k, v := range spec {
				body[k] = v
			}
		}
		ts := base.Add(time.Duration(rng.IntN(50)) * time.Second) // ties happen often
		pols = append(pols, engine.Policy{
			Ref:               ref.Ref{Group: generators.TestPolicyGroup, Kind: generators.TestPolicyKind, Namespace: pns, Name: fmt.Sprintf("p%04d", i)},
			CreationTimestamp: &ts,
			TargetRefs:        []engine.TargetRef{tr},
			Intent:            prof.Interpret(body),
		})
	}
	return engine.Input{Graph: graph, Profile: prof, Policies: pols, Semantics: engine.StickyOverrides}
}

// The output is in path order (docs/output.md) whatever the semantics, on a
// topology large enough for paths to share prefixes in every way.
func TestOutputSortedByPath(t *testing.T) {
	in := bigInput(t, scale{gateways: 5, listeners: 3, routes: 200, rules: 3, services: 40, policies: 150}, 7)
	for _, sem := range []engine.Semantics{engine.StickyOverrides, engine.GEP713} {
		in.Semantics = sem
		res := engine.Run(in)
		if len(res.EffectivePolicies) < 100 {
			t.Fatalf("only %d paths: the input is too small to test ordering", len(res.EffectivePolicies))
		}
		ok := slices.IsSortedFunc(res.EffectivePolicies, func(a, b engine.EffectivePolicy) int { return slices.Compare(a.Path, b.Path) })
		if !ok {
			t.Errorf("%s: effective policies are not sorted by path", sem)
		}
		seen := map[string]bool{}
		for _, e := range res.EffectivePolicies {
			k := strings.Join(e.Path, " ")
			if seen[k] {
				t.Errorf("%s: path %s emitted twice", sem, k)
			}
			seen[k] = true
		}
	}
}

// BenchmarkRun is the benchmark of docs/performance.md: 100 Gateways × 4
// listeners, 10,000 HTTPRoutes × 3 rules, 2,000 shared Services and 3,000
// policies at every level; every effective policy, status and provenance.
func BenchmarkRun(b *testing.B) {
	in := bigInput(b, issueScale, 1)
	for _, sem := range []engine.Semantics{engine.StickyOverrides, engine.GEP713} {
		b.Run(string(sem), func(b *testing.B) {
			in.Semantics = sem
			b.ReportAllocs()
			var res engine.Result
			for i := 0; i < b.N; i++ {
				res = engine.Run(in)
			}
			b.ReportMetric(float64(len(res.EffectivePolicies)), "paths")
			b.ReportMetric(float64(len(res.Policies)), "policies")
			b.ReportMetric(float64(len(res.Targets)), "targets")
		})
	}
}
