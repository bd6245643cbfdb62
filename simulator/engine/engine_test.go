package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/topology"
)

const inherited = `
apiVersion: gepcheck.dev/v1alpha1
kind: PolicyProfile
metadata: {name: t}
spec:
  policy: {group: example.com, kind: XPolicy}
  targets:
  - {group: g, kind: A}
  - {group: g, kind: B, sectionName: Optional}
  - {group: g, kind: C}
  effectiveTargets: [{group: g, kind: C}]
  mergeStrategies: [AtomicDefaults, PatchDefaults, AtomicOverrides, PatchOverrides]
  selection:
    stanzas: {defaults: defaults, overrides: overrides}
    bareSpec: Defaults
    strategyField: strategy
    strategyValues: {atomic: Atomic, patch: Patch}
`

// chain builds a1 > b1 > c1 (and b1#s > c1 when section is true).
func chain(t *testing.T) *topology.Graph {
	t.Helper()
	g := &topology.Graph{}
	a := g.Add(ref.Ref{Group: "g", Kind: "A", Name: "a1"})
	b := g.Add(ref.Ref{Group: "g", Kind: "B", Name: "b1"})
	c := g.Add(ref.Ref{Group: "g", Kind: "C", Name: "c1"})
	for _, e := range [][2]topology.NodeID{{a, b}, {b, c}} {
		if err := g.Edge(e[0], e[1]); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func mustProfile(t *testing.T, s string) *profile.Profile {
	t.Helper()
	p, err := profile.Parse([]byte(s), "test")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func pol(t *testing.T, p *profile.Profile, name string, ts int, kind, target string, spec string) Policy {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(spec), &m); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 1, 1, 0, 0, ts, 0, time.UTC)
	return Policy{
		Ref:               ref.Ref{Group: "example.com", Kind: "XPolicy", Namespace: "default", Name: name},
		CreationTimestamp: &at,
		TargetRefs:        []TargetRef{{Group: "g", Kind: kind, Name: target}},
		Intent:            p.Interpret(m),
	}
}

func effective(t *testing.T, res Result) string {
	t.Helper()
	if len(res.EffectivePolicies) != 1 {
		t.Fatalf("want one path, got %d", len(res.EffectivePolicies))
	}
	b, _ := json.Marshal(res.EffectivePolicies[0].Spec)
	return string(b)
}

// Each merge strategy of GEP-713, between a policy at A (established, rule
// 1) and one at B (challenger), on the path a1 > b1 > c1.
func TestMergeStrategies(t *testing.T) {
	p := mustProfile(t, inherited)
	for _, tc := range []struct {
		name, high, low, want string
	}{
		// Atomic defaults: f(established, challenger) → challenger.
		{"atomic defaults", `{"x":1,"y":1}`, `{"x":2}`, `{"x":2}`},
		// Atomic overrides: f(established, challenger) → established.
		{"atomic overrides", `{"overrides":{"x":1,"y":1}}`, `{"x":2,"z":2}`, `{"x":1,"y":1}`},
		// Patch defaults: rfc7386(target = established, patch = challenger).
		{"patch defaults", `{"strategy":"patch","x":1,"y":{"a":1,"b":1}}`, `{"x":2,"y":{"a":null,"c":3}}`, `{"x":2,"y":{"b":1,"c":3}}`},
		// Patch overrides: rfc7386(target = challenger, patch = established).
		{"patch overrides", `{"overrides":{"strategy":"patch","x":1,"y":{"a":null}}}`, `{"x":2,"y":{"a":2,"b":2},"z":2}`, `{"x":1,"y":{"b":2},"z":2}`},
	} {
		for _, sem := range []Semantics{GEP713, StickyOverrides} {
			t.Run(tc.name+"/"+string(sem), func(t *testing.T) {
				res := Run(Input{Graph: chain(t), Profile: p, Semantics: sem, Policies: []Policy{
					pol(t, p, "high", 0, "A", "a1", tc.high),
					pol(t, p, "low", 0, "B", "b1", tc.low),
				}})
				if got := effective(t, res); got != tc.want {
					t.Errorf("effective %s, want %s", got, tc.want)
				}
			})
		}
	}
}

// GEP-713 Conflict resolution rules 2 and 3 at one level: the older policy
// is established; at equal timestamps, the first by {namespace}/{name}.
func TestSameLevelOrder(t *testing.T) {
	p := mustProfile(t, inherited)
	for _, tc := range []struct {
		name           string
		tsOld, tsNew   int
		nameOld, other string
		want           string
	}{
		{"older established, newer challenger wins defaults", 0, 5, "zzz", "aaa", `{"x":"aaa"}`},
		{"tie on time: alphabetical first is established", 3, 3, "aaa", "bbb", `{"x":"bbb"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Run(Input{Graph: chain(t), Profile: p, Policies: []Policy{
				pol(t, p, tc.other, tc.tsNew, "B", "b1", `{"x":"`+tc.other+`"}`),
				pol(t, p, tc.nameOld, tc.tsOld, "B", "b1", `{"x":"`+tc.nameOld+`"}`),
			}})
			if got := effective(t, res); got != tc.want {
				t.Errorf("effective %s, want %s", got, tc.want)
			}
			if got := res.EffectivePolicies[0].Policies[0]; !strings.HasSuffix(got, "/"+tc.nameOld) {
				t.Errorf("established %s, want %s", got, tc.nameOld)
			}
		})
	}
}

// A policy without a creationTimestamp counts as newer than one with it.
func TestMissingTimestampIsNewest(t *testing.T) {
	p := mustProfile(t, inherited)
	old := pol(t, p, "zzz", 0, "B", "b1", `{"x":"zzz"}`)
	fresh := pol(t, p, "aaa", 0, "B", "b1", `{"x":"aaa"}`)
	fresh.CreationTimestamp = nil
	res := Run(Input{Graph: chain(t), Profile: p, Policies: []Policy{fresh, old}})
	if got := effective(t, res); got != `{"x":"aaa"}` {
		t.Errorf("effective %s: the policy without timestamp should be the challenger", got)
	}
}

func TestTargetResolution(t *testing.T) {
	p := mustProfile(t, inherited)
	missing := pol(t, p, "missing", 0, "B", "b9", `{"x":1}`)
	section := pol(t, p, "section", 0, "B", "b1", `{"x":1}`)
	section.TargetRefs[0].SectionName = "nope"
	forbidden := pol(t, p, "forbidden", 0, "A", "a1", `{"x":1}`)
	forbidden.TargetRefs[0].SectionName = "s"
	wrongKind := pol(t, p, "wrongkind", 0, "D", "d1", `{"x":1}`)
	// A namespaced target in another namespace: the profile does not allow
	// cross-namespace targets. (A namespace on a cluster-scoped target,
	// such as b1 here, does not apply.)
	crossNS := pol(t, p, "crossns", 0, "B", "b1x", `{"x":1}`)
	crossNS.TargetRefs[0].Namespace = "other"
	both := pol(t, p, "both", 0, "B", "b1", `{"defaults":{"x":1},"overrides":{"x":2}}`)
	g := chain(t)
	g.Add(ref.Ref{Group: "g", Kind: "B", Namespace: "other", Name: "b1x"})
	res := Run(Input{Graph: g, Profile: p, Policies: []Policy{missing, section, forbidden, wrongKind, crossNS, both}})
	want := map[string]string{
		"missing":   ReasonTargetNotFound,
		"section":   ReasonTargetNotFound,
		"forbidden": ReasonInvalid,
		"wrongkind": ReasonInvalid,
		"crossns":   ReasonInvalid,
		"both":      ReasonInvalid,
	}
	for _, ps := range res.Policies {
		name := ps.Ref[strings.LastIndex(ps.Ref, "/")+1:]
		c := ps.Conditions[0]
		if c.Type != TypeAccepted || c.Status != "False" || c.Reason != want[name] {
			t.Errorf("%s: %+v, want Accepted=False %s", name, c, want[name])
		}
	}
	if len(res.EffectivePolicies) != 0 {
		t.Errorf("no policy is accepted, yet %d effective policies", len(res.EffectivePolicies))
	}
}

// The gep713 and sticky-overrides semantics disagree when an override sits
// two levels above a default (docs/semantics.md).
func TestSemanticsDisagree(t *testing.T) {
	p := mustProfile(t, inherited)
	pols := []Policy{
		pol(t, p, "a-override", 0, "A", "a1", `{"overrides":{"x":"a"}}`),
		pol(t, p, "b-default", 0, "B", "b1", `{"x":"b"}`),
		pol(t, p, "c-default", 0, "C", "c1", `{"x":"c"}`),
	}
	gep := effective(t, Run(Input{Graph: chain(t), Profile: p, Policies: pols, Semantics: GEP713}))
	sticky := effective(t, Run(Input{Graph: chain(t), Profile: p, Policies: pols, Semantics: StickyOverrides}))
	if gep != `{"x":"c"}` || sticky != `{"x":"a"}` {
		t.Errorf("gep713 %s (want c), sticky-overrides %s (want a)", gep, sticky)
	}
}

// Sticky overrides: a higher Patch override's null beats a lower override
// and every default (A override > B override > ... > A default).
func TestStickyPatchOverrideNull(t *testing.T) {
	p := mustProfile(t, inherited)
	pols := []Policy{
		pol(t, p, "a", 0, "A", "a1", `{"overrides":{"strategy":"patch","x":null}}`),
		pol(t, p, "b", 0, "B", "b1", `{"overrides":{"strategy":"patch","x":1,"y":1}}`),
		pol(t, p, "c", 0, "C", "c1", `{"x":2,"y":2,"z":2}`),
	}
	res := Run(Input{Graph: chain(t), Profile: p, Policies: pols, Semantics: StickyOverrides})
	if got := effective(t, res); got != `{"y":1,"z":2}` {
		t.Errorf("effective %s, want {\"y\":1,\"z\":2}", got)
	}
	prov := res.EffectivePolicies[0].Provenance
	if prov["y"] != "XPolicy/default/b" || prov["z"] != "XPolicy/default/c" {
		t.Errorf("provenance %v", prov)
	}
}

// Deterministic: the order of the input policies does not matter.
func TestInputOrder(t *testing.T) {
	p := mustProfile(t, inherited)
	pols := []Policy{
		pol(t, p, "a", 1, "A", "a1", `{"strategy":"patch","x":1}`),
		pol(t, p, "b", 1, "B", "b1", `{"strategy":"patch","y":1}`),
		pol(t, p, "c", 2, "B", "b1", `{"overrides":{"strategy":"patch","x":3}}`),
		pol(t, p, "d", 1, "B", "b1", `{"z":1}`),
	}
	first, _ := json.Marshal(Run(Input{Graph: chain(t), Profile: p, Policies: pols}))
	rev := []Policy{pols[3], pols[2], pols[1], pols[0]}
	second, _ := json.Marshal(Run(Input{Graph: chain(t), Profile: p, Policies: rev}))
	if string(first) != string(second) {
		t.Errorf("result depends on input order:\n%s\n%s", first, second)
	}
}

// The semantics are named as gepcheck names specs (gep-713, requirements
// --spec gep-713); gep713, the older spelling, still reads as GEP713.
func TestParseSemanticsSpelling(t *testing.T) {
	for in, want := range map[string]Semantics{"gep-713": GEP713, GEP713Alias: GEP713, "sticky-overrides": StickyOverrides} {
		if got, err := ParseSemantics(in); err != nil || got != want {
			t.Errorf("ParseSemantics(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if string(GEP713) != "gep-713" {
		t.Errorf("GEP713 prints %q, want the GEP's spelling gep-713", GEP713)
	}
	for _, in := range []string{"GEP-713", "gep_713", ""} {
		if _, err := ParseSemantics(in); err == nil {
			t.Errorf("ParseSemantics(%q): no error", in)
		}
	}
}
