package generators

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/profile"
)

var semantics = []engine.Semantics{engine.StickyOverrides, engine.GEP713}

// configs are the configurations every test draws from.
var configs = map[string]Config{
	"default":            {},
	"all-levels":         {Profile: "all-levels"},
	"color-inherited":    {Profile: "color-inherited"},
	"color-direct":       {Profile: "color-direct"},
	"backendtlspolicy":   {Profile: "backendtlspolicy"},
	"cross-namespace":    {Profile: "all-levels", CrossNamespace: true},
	"no-invalid":         {NoInvalid: true},
	"no-invalid-xns":     {Profile: "all-levels", CrossNamespace: true, NoInvalid: true},
	"flat-patch":         {Profile: "all-levels", FlatSpecs: true, Strategies: []profile.Strategy{profile.PatchDefaults, profile.PatchOverrides}},
	"flat-color":         {Profile: "color-inherited", FlatSpecs: true},
	"atomic-only":        {Strategies: []profile.Strategy{profile.AtomicDefaults, profile.AtomicOverrides}},
	"none-only":          {Strategies: []profile.Strategy{profile.None}},
	"small":              {MaxObjects: 4, MaxPolicies: 1},
	"large":              {MaxObjects: 60, MaxPolicies: 30},
	"small-no-invalid":   {MaxObjects: 5, MaxPolicies: 3, NoInvalid: true, CrossNamespace: true, Profile: "all-levels"},
	"hierarchy":          {Profile: "all-levels", Hierarchy: true},
	"hierarchy-colors":   {Profile: "color-inherited", Hierarchy: true},
	"generic:default":    {},
	"generic:small":      {MaxObjects: 2, MaxPolicies: 2},
	"generic:no-invalid": {NoInvalid: true, FlatSpecs: true},
}

func generator(name string, cfg Config) *rapid.Generator[*Scenario] {
	if len(name) > 8 && name[:8] == "generic:" {
		return GenericScenarios(cfg)
	}
	return Scenarios(cfg)
}

func sortedConfigs() []string {
	var out []string
	for n := range configs {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// run builds the model of s and runs it under sem, as JSON.
func runJSON(t interface{ Fatal(...any) }, m *simulator.Model, sem engine.Semantics) []byte {
	out, err := json.Marshal(m.Run(sem, nil))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every scenario stays within its Config and is well formed.
func TestBounds(t *testing.T) {
	for _, name := range sortedConfigs() {
		cfg := configs[name]
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				s := generator(name, cfg).Draw(t, "scenario")
				checkBounds(t, s, cfg.withDefaults())
			})
		})
	}
}

func checkBounds(t *rapid.T, s *Scenario, cfg Config) {
	if n := s.ObjectCount(); n > cfg.MaxObjects {
		t.Fatalf("%d objects, more than %d", n, cfg.MaxObjects)
	}
	if n := len(s.Policies); n > cfg.MaxPolicies || n == 0 {
		t.Fatalf("%d policies, want 1 to %d", n, cfg.MaxPolicies)
	}
	prof, err := s.ParsedProfile()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Profile != "" && s.Generic == nil && s.ProfileName() != cfg.Profile && !((cfg.CrossNamespace || cfg.Hierarchy) && cfg.Profile == "all-levels") {
		t.Fatalf("profile %s, want %s", s.ProfileName(), cfg.Profile)
	}
	if s.Generic == nil {
		if len(s.GatewayClasses) < 1 || len(s.GatewayClasses) > 2 || len(s.Gateways) < 1 || len(s.Routes) < 1 || len(s.Services) < 1 {
			t.Fatalf("shape: %d classes, %d gateways, %d routes, %d services", len(s.GatewayClasses), len(s.Gateways), len(s.Routes), len(s.Services))
		}
		maxListeners := 3
		if cfg.Hierarchy {
			maxListeners = 4 // one TCP, TLS or UDP listener more
		}
		for _, gw := range s.Gateways {
			if len(gw.Listeners) < 1 || len(gw.Listeners) > maxListeners {
				t.Fatalf("gateway %s has %d listeners", gw.Name, len(gw.Listeners))
			}
		}
		if !cfg.Hierarchy && len(s.ListenerSets) > 0 {
			t.Fatalf("%d ListenerSets without Config.Hierarchy", len(s.ListenerSets))
		}
		if ns := len(namespacesOf(&Scenario{Gateways: s.Gateways})); ns > 3 {
			t.Fatalf("gateways in %d namespaces", ns)
		}
	} else if k := len(s.Generic.Kinds); k < 2 || k > 4 {
		t.Fatalf("%d kinds", k)
	}
	seen := map[string]bool{}
	for _, p := range s.Policies {
		if p.Group != prof.Spec.Policy.Group || p.Kind != prof.Spec.Policy.Kind {
			t.Fatalf("policy %s/%s of kind %s.%s under profile %s", p.Namespace, p.Name, p.Kind, p.Group, prof.Metadata.Name)
		}
		if seen[p.Namespace+"/"+p.Name] {
			t.Fatalf("policy %s/%s twice", p.Namespace, p.Name)
		}
		seen[p.Namespace+"/"+p.Name] = true
		if n := len(p.Targets) + len(p.Selectors); n < 1 || n > 3 || len(p.Targets) > 2 {
			t.Fatalf("policy %s has %d targets and %d selectors", p.Name, len(p.Targets), len(p.Selectors))
		}
		if _, ok := p.Spec["targetRefs"]; ok {
			t.Fatalf("policy %s: spec has targetRefs", p.Name)
		}
		if p.Created != nil {
			if d := p.Created.Sub(BaseTime); d < 0 || d.Seconds() > 3 {
				t.Fatalf("creationTimestamp %v", p.Created)
			}
		}
		in := prof.Interpret(p.Spec)
		if cfg.NoInvalid && in.Invalid != "" {
			t.Fatalf("NoInvalid, yet policy %s is invalid: %s", p.Name, in.Invalid)
		}
		if in.Invalid != "" {
			continue
		}
		if len(cfg.Strategies) > 0 && !slices.Contains(cfg.Strategies, in.Strategy) {
			t.Fatalf("policy %s selects %v, not one of %v", p.Name, in.Strategy, cfg.Strategies)
		}
		if cfg.FlatSpecs {
			if len(in.SpecProper) == 0 || len(in.SpecProper) > len(FlatKeys) {
				t.Fatalf("flat spec %v", in.SpecProper)
			}
			for k, v := range in.SpecProper {
				switch v.(type) {
				case string, float64:
				default:
					t.Fatalf("flat spec %v: %s is %T", in.SpecProper, k, v)
				}
				if !slices.Contains(FlatKeys, k) {
					t.Fatalf("flat spec %v: key %q", in.SpecProper, k)
				}
			}
		}
	}
	m, err := s.Model()
	if err != nil {
		t.Fatalf("Model: %v", err)
	}
	if cfg.NoInvalid {
		out := m.Run(engine.StickyOverrides, nil)
		for _, ps := range out.Policies {
			for _, c := range ps.Conditions {
				switch c.Reason {
				case engine.ReasonInvalid, engine.ReasonTargetNotFound:
					t.Fatalf("NoInvalid, yet %s: %s %s: %s\n%s", ps.Ref, c.Type, c.Reason, c.Message, s.YAML())
				}
			}
		}
	}
}

// The fast path is faithful: Model gives the output that loading YAML
// gives, under both semantics, byte for byte.
func TestModelMatchesYAML(t *testing.T) {
	for _, name := range sortedConfigs() {
		cfg := configs[name]
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				s := generator(name, cfg).Draw(t, "scenario")
				checkModelMatchesYAML(t, s)
			})
		})
	}
}

func checkModelMatchesYAML(t *rapid.T, s *Scenario) {
	data := s.YAML()
	loaded, err := simulator.LoadFiles([]string{"-"}, bytes.NewReader(data), simulator.Options{})
	if err != nil {
		t.Fatalf("YAML does not load: %v\n%s", err, data)
	}
	fast, err := s.Model()
	if err != nil {
		t.Fatalf("Model: %v", err)
	}
	for _, sem := range semantics {
		want, got := runJSON(t, loaded, sem), runJSON(t, fast, sem)
		if !bytes.Equal(want, got) {
			t.Fatalf("%s: Model().Run differs from LoadFiles(YAML).Run\nYAML:\n%s\nfrom YAML: %s\nfrom Model: %s", sem, data, want, got)
		}
	}
}

// Permuted, cloned and extended scenarios are still faithful, and
// permuting changes no output (GEP-713 outcomes do not depend on the order
// objects are listed in).
func TestHelpers(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := Config{CrossNamespace: rapid.Bool().Draw(t, "cross-namespace")}
		var s *Scenario
		if rapid.IntRange(0, 3).Draw(t, "generic") == 0 {
			s = GenericScenarios(cfg).Draw(t, "scenario")
		} else {
			s = Scenarios(cfg).Draw(t, "scenario")
		}
		before := s.YAML()
		p := Permute(t, s)
		if !bytes.Equal(before, s.YAML()) {
			t.Fatalf("Permute changed its argument")
		}
		checkModelMatchesYAML(t, p)
		m1, err := s.Model()
		if err != nil {
			t.Fatal(err)
		}
		m2, err := p.Model()
		if err != nil {
			t.Fatal(err)
		}
		for _, sem := range semantics {
			if a, b := runJSON(t, m1, sem), runJSON(t, m2, sem); !bytes.Equal(a, b) {
				t.Fatalf("%s: permuting the documents changed the output\noriginal:\n%s\npermuted:\n%s\n%s\n%s", sem, before, p.YAML(), a, b)
			}
		}

		c := s.Clone()
		if !reflect.DeepEqual(c, s) {
			t.Fatalf("clone differs")
		}
		mutate(c)
		if !bytes.Equal(before, s.YAML()) {
			t.Fatalf("changing a clone changed the original")
		}

		extra := PolicyFor(s, cfg).Draw(t, "extra policy")
		s2 := s.WithPolicy(extra)
		if len(s2.Policies) != len(s.Policies)+1 {
			t.Fatalf("WithPolicy: %d policies, want %d (new policy %s/%s)", len(s2.Policies), len(s.Policies)+1, extra.Namespace, extra.Name)
		}
		if !bytes.Equal(before, s.YAML()) {
			t.Fatalf("WithPolicy changed its receiver")
		}
		checkModelMatchesYAML(t, s2)
	})
}

// mutate changes every part of s that Clone must copy.
func mutate(s *Scenario) {
	s.Namespaces = append(s.Namespaces[:0:0], "zz")
	for i := range s.Gateways {
		for j := range s.Gateways[i].Listeners {
			s.Gateways[i].Listeners[j].Name = "changed"
		}
	}
	for i := range s.Routes {
		for j := range s.Routes[i].Rules {
			for k := range s.Routes[i].Rules[j].Backends {
				s.Routes[i].Rules[j].Backends[k].Name = "changed"
			}
		}
		for j := range s.Routes[i].Parents {
			s.Routes[i].Parents[j].Name = "changed"
		}
	}
	for i := range s.Services {
		for j := range s.Services[i].Ports {
			s.Services[i].Ports[j] = "changed"
		}
	}
	if s.Generic != nil {
		for i := range s.Generic.Nodes {
			s.Generic.Nodes[i].Name = "changed"
		}
		for i := range s.Generic.Edges {
			s.Generic.Edges[i] = [2]int{0, 0}
		}
	}
	for i := range s.Policies {
		p := &s.Policies[i]
		if p.Created != nil {
			*p.Created = p.Created.Add(1000)
		}
		for j := range p.Targets {
			p.Targets[j].Name = "changed"
		}
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					walk(e)
					x[k] = "changed"
				}
				x["added"] = true
			case []any:
				for i, e := range x {
					walk(e)
					x[i] = "changed"
				}
			}
		}
		walk(p.Spec)
	}
}

// The same seed draws the same scenario.
func TestDeterministic(t *testing.T) {
	for seed := 0; seed < 20; seed++ {
		for _, g := range []*rapid.Generator[*Scenario]{Scenarios(Config{}), GenericScenarios(Config{})} {
			a, b := g.Example(seed).YAML(), g.Example(seed).YAML()
			if !bytes.Equal(a, b) {
				t.Fatalf("seed %d: two draws differ:\n%s\n---\n%s", seed, a, b)
			}
		}
		// A fixed profile draws what drawing that profile would.
		s := Scenarios(Config{}).Example(seed)
		fixed := Scenarios(Config{Profile: s.ProfileName()}).Example(seed)
		if !bytes.Equal(s.YAML(), fixed.YAML()) {
			t.Fatalf("seed %d: Profile %q draws another scenario than Profile \"\"", seed, s.ProfileName())
		}
	}
}

// JSON values survive YAML: what YAML renders, the loader reads back.
func TestJSONValueRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := JSONValue(4).Draw(t, "value")
		o := JSONObject(3).Draw(t, "object")
		for _, x := range []any{v, o} {
			data, err := yaml.Marshal(x)
			if err != nil {
				t.Fatal(err)
			}
			j, err := yaml.YAMLToJSON(data)
			if err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			var back any
			if err := json.Unmarshal(j, &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(normalizeEmpty(x), normalizeEmpty(back)) {
				t.Fatalf("round trip changed %#v into %#v\n%s", x, back, data)
			}
		}
	})
}

// normalizeEmpty turns nil maps into empty ones (a generated empty object
// may be a nil map).
func normalizeEmpty(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			m[k] = normalizeEmpty(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = normalizeEmpty(e)
		}
		return l
	}
	return v
}

// Over 500 examples, every situation the properties rely on occurs.
func TestDistribution(t *testing.T) {
	counts := map[string]int{}
	wanted := []string{
		"timestamp tie", "nil timestamp", "sectionName target", "missing target",
		"forbidden kind", "cross-namespace target", "overrides", "patch strategy",
		"invalid selection", "two-gateway route", "listener route", "grpc route",
		"unnamed rule", "service without named port", "shared service",
		"cross-namespace backend", "granted backend", "two namespaces", "two targetRefs",
		"same name in two namespaces", "profile all-levels", "profile color-inherited",
		"profile color-direct", "profile backendtlspolicy",
	}
	g := Scenarios(Config{})
	for seed := 0; seed < 500; seed++ {
		s := g.Example(seed)
		tally(t, s, counts)
	}
	for _, w := range wanted {
		if counts[w] == 0 {
			t.Errorf("never drawn in 500 scenarios: %s", w)
		}
	}
	var b bytes.Buffer
	for _, w := range wanted {
		fmt.Fprintf(&b, "%s=%d ", w, counts[w])
	}
	t.Log(b.String())

	generic := map[string]int{}
	for seed := 0; seed < 200; seed++ {
		s := GenericScenarios(Config{}).Example(seed)
		parents := map[int]int{}
		for _, e := range s.Generic.Edges {
			parents[e[1]]++
		}
		for _, n := range parents {
			if n > 1 {
				generic["shared child"]++
			}
		}
		generic[fmt.Sprintf("%d kinds", len(s.Generic.Kinds))]++
	}
	for _, w := range []string{"shared child", "2 kinds", "3 kinds", "4 kinds"} {
		if generic[w] == 0 {
			t.Errorf("never drawn in 200 generic scenarios: %s", w)
		}
	}
}

func tally(t *testing.T, s *Scenario, counts map[string]int) {
	counts["profile "+s.ProfileName()]++
	times := map[int64]int{}
	for _, p := range s.Policies {
		if p.Created == nil {
			counts["nil timestamp"]++
		} else if times[p.Created.Unix()]++; times[p.Created.Unix()] == 2 {
			counts["timestamp tie"]++
		}
		if len(p.Targets) == 2 {
			counts["two targetRefs"]++
		}
		for _, tr := range p.Targets {
			if tr.Section != "" {
				counts["sectionName target"]++
			}
			if tr.Namespace != "" && tr.Namespace != p.Namespace {
				counts["cross-namespace target"]++
			}
		}
	}
	names := map[string]int{}
	for _, p := range s.Policies {
		names[p.Name]++
	}
	for _, n := range names {
		if n > 1 {
			counts["same name in two namespaces"]++
		}
	}
	if len(s.Namespaces) > 1 {
		counts["two namespaces"]++
	}
	prof, _ := s.ParsedProfile()
	for _, p := range s.Policies {
		in := prof.Interpret(p.Spec)
		switch {
		case in.Invalid != "":
			counts["invalid selection"]++
		case in.Strategy.IsOverride():
			counts["overrides"]++
		}
		if in.Invalid == "" && in.Strategy.IsPatch() {
			counts["patch strategy"]++
		}
	}
	backends := map[string]int{}
	for _, r := range s.Routes {
		if r.GRPC {
			counts["grpc route"]++
		}
		if len(r.Parents) == 1 && r.Parents[0].Section != "" {
			counts["listener route"]++
		}
		for _, rule := range r.Rules {
			if rule.Name == "" {
				counts["unnamed rule"]++
			}
			for _, b := range rule.Backends {
				backends[b.Namespace+"/"+b.Name]++
				if b.Namespace != "" {
					counts["cross-namespace backend"]++
				}
			}
		}
	}
	for _, n := range backends {
		if n > 1 {
			counts["shared service"]++
		}
	}
	for _, svc := range s.Services {
		if len(svc.Ports) == 0 {
			counts["service without named port"]++
		}
	}
	for _, g := range s.Grants {
		if g.ToKind == "Service" {
			counts["granted backend"]++
		}
	}
	m, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	// A route attached to listeners of two Gateways.
	for _, n := range m.Graph.Nodes {
		if (n.Ref.Kind == "HTTPRoute" || n.Ref.Kind == "GRPCRoute") && n.Ref.Section == "" {
			gws := map[string]bool{}
			for _, p := range n.Parents {
				gws[m.Graph.Nodes[p].Ref.Object().String()] = true
			}
			if len(gws) > 1 {
				counts["two-gateway route"]++
			}
		}
	}
	for _, ps := range m.Run(engine.StickyOverrides, nil).Policies {
		for _, pt := range ps.Targets {
			for _, c := range pt.Conditions {
				switch {
				case c.Reason == engine.ReasonTargetNotFound:
					counts["missing target"]++
				case c.Reason == engine.ReasonInvalid && bytes.Contains([]byte(c.Message), []byte("cannot target")):
					counts["forbidden kind"]++
				}
			}
		}
	}
}

// BenchmarkScenario measures drawing a scenario and building its Model, the
// cost every property check pays before running the engine.
func BenchmarkScenario(b *testing.B) {
	for _, bc := range []struct {
		name string
		gen  *rapid.Generator[*Scenario]
	}{
		{"gatewayapi", Scenarios(Config{})},
		{"generic", GenericScenarios(Config{})},
	} {
		b.Run(bc.name+"/draw", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = bc.gen.Example(i)
			}
		})
		b.Run(bc.name+"/draw+model", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := bc.gen.Example(i).Model(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.name+"/draw+model+run", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				m, err := bc.gen.Example(i).Model()
				if err != nil {
					b.Fatal(err)
				}
				m.Run(engine.StickyOverrides, nil)
			}
		})
		b.Run(bc.name+"/draw+yaml+load", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := simulator.LoadFiles([]string{"-"}, bytes.NewReader(bc.gen.Example(i).YAML()), simulator.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestStepped: a drawn scenario with steps holds the same objects as the
// draw without steps (the steps are drawn after it), and every step is one
// simulator.States accepts (what it deletes exists, what it applies is a
// valid object without creationTimestamp).
func TestStepped(t *testing.T) {
	overTime := 0
	for seed := 1; seed <= 60; seed++ {
		plain, err := Print(PrintOptions{Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		stepped, err := Print(PrintOptions{Seed: seed, Steps: 5})
		if err != nil {
			t.Fatal(err)
		}
		docs, err := load.Read([]string{"-"}, bytes.NewReader(stepped))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		m, err := simulator.Build(docs, simulator.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		states, err := simulator.States(docs, m.Scenario)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, stepped)
		}
		if len(states) > 1 {
			overTime++
		}
		if len(states) > 6 {
			t.Errorf("seed %d: %d steps, want at most 5", seed, len(states)-1)
		}
		// Apart from the Scenario document, the objects are the plain
		// draw's.
		pd, _ := load.Read([]string{"-"}, bytes.NewReader(plain))
		if a, b := objectsOf(pd), objectsOf(docs); a != b {
			t.Errorf("seed %d: the objects differ from the draw without steps:\n%s\nvs\n%s", seed, a, b)
		}
	}
	if overTime < 40 {
		t.Errorf("%d of 60 draws have steps, want most", overTime)
	}
}

func objectsOf(docs []*load.Doc) string {
	var b strings.Builder
	for _, d := range docs {
		if d.Kind == "Scenario" {
			continue
		}
		out, _ := json.Marshal(d.Raw)
		b.Write(out)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestSmallerKeepsBackendsResolved: no shrink candidate leaves a
// backendRef to a Service it removed (an implementation serves such a rule
// with a 500, not with its policies), and a Service removed from a rule
// with another backend leaves that rule in place.
func TestSmallerKeepsBackendsResolved(t *testing.T) {
	s := &Scenario{
		Namespaces: []string{"ns"},
		Services:   []Service{{Namespace: "ns", Name: "a"}, {Namespace: "ns", Name: "b"}},
		Routes: []Route{
			{Namespace: "ns", Name: "r1", Rules: []Rule{{Name: "one", Backends: []BackendRef{{Name: "a"}}}, {Name: "two", Backends: []BackendRef{{Name: "a"}, {Name: "b"}}}}},
			{Namespace: "ns", Name: "r2", Rules: []Rule{{Name: "one", Backends: []BackendRef{{Name: "a"}}}}},
		},
		Policies: []Policy{{Kind: "P", Namespace: "ns", Name: "p", Targets: []Target{{Kind: "HTTPRoute", Name: "r1"}}, Spec: map[string]any{"x": 1.0}}},
	}
	var sawA bool
	for _, c := range Smaller(s) {
		has := map[string]bool{}
		for _, v := range c.Services {
			has[v.Name] = true
		}
		for _, r := range c.Routes {
			for _, rule := range r.Rules {
				for _, b := range rule.Backends {
					if !has[b.Name] {
						t.Errorf("candidate keeps %s/%s's backendRef to Service %s it removed", r.Name, rule.Name, b.Name)
					}
				}
			}
		}
		if !has["a"] && len(c.Services) == 1 {
			sawA = true
			if len(c.Routes) != 1 || c.Routes[0].Name != "r1" || len(c.Routes[0].Rules) != 1 || c.Routes[0].Rules[0].Name != "two" {
				t.Errorf("without Service a, want r1 with rule two only, got %+v", c.Routes)
			}
		}
	}
	if !sawA {
		t.Error("no candidate removes Service a")
	}
}

// BackendTLSScenarios' policies name CA ConfigMaps the scenario holds: the
// YAML (where the loader resolves caCertificateRefs, Gateway API v1
// BackendTLSPolicyValidation) runs as the Model (which does not), so no
// drawn policy is NoValidCACertificate for want of its ConfigMap.
func TestBackendTLSModelMatchesYAML(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := BackendTLSScenarios("default", 4).Draw(t, "scenario")
		if len(s.ConfigMaps) == 0 {
			t.Fatal("no CA ConfigMaps drawn")
		}
		checkModelMatchesYAML(t, s)
		checkModelMatchesYAML(t, Permute(t, s))
	})
}

// BackendTLSScenarios draws, one time in four, a Gateway of another
// implementation's GatewayClass sending traffic to a Service the first
// Gateway uses too; the class is rendered with
// simulator.AnnotationOtherImplementation, and goes when shrinking takes
// its Gateway away.
func TestBackendTLSOtherImplementation(t *testing.T) {
	drawn := 0
	for seed := range 200 {
		s := BackendTLSScenarios("default", 4).Example(seed)
		if len(s.OtherClasses) == 0 {
			continue
		}
		drawn++
		y := string(s.YAML())
		if !strings.Contains(y, simulator.AnnotationOtherImplementation+`: "true"`) || !strings.Contains(y, "controllerName: "+OtherControllerName) {
			t.Fatalf("seed %d: the other class is not rendered as another implementation's:\n%s", seed, y)
		}
		c := s.Clone()
		c.Gateways = slices.DeleteFunc(c.Gateways, func(g Gateway) bool { return g.Class == "other" })
		if strings.Contains(string(c.YAML()), OtherControllerName) {
			t.Fatalf("seed %d: the other class stays without its Gateway", seed)
		}
	}
	if drawn < 20 || drawn > 80 {
		t.Errorf("%d of 200 cases with another implementation's Gateway, want about 50", drawn)
	}
}
