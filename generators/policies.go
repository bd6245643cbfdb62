package generators

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"pgregory.net/rapid"

	"github.com/gepcheck/gepcheck/simulator/crd"
	"github.com/gepcheck/gepcheck/simulator/profile"
)

// BaseTime is the creationTimestamp policies are drawn around: BaseTime plus
// 0 to 3 seconds, so that ties are frequent; some policies have none.
var BaseTime = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// PolicyNames are the names policies are drawn from (then p-f, p-g, ... when
// a namespace has used them all), so that {namespace}/{name} ordering and
// same names in two namespaces are frequent.
var PolicyNames = []string{"p-a", "p-b", "p-c", "p-d", "p-e"}

// PolicyFor draws one more policy for s, of the kind of s's profile, with a
// ns/name no policy of s has; it may target anything s's objects offer (and,
// unless cfg.NoInvalid, what they do not). It adds no ReferenceGrant: a
// cross-namespace target is honoured only if s already grants it. Use it
// with WithPolicy, e.g. for locality properties. cfg.Profile, MaxObjects and
// MaxPolicies are ignored.
func PolicyFor(s *Scenario, cfg Config) *rapid.Generator[Policy] {
	cfg = cfg.withDefaults()
	return rapid.Custom(func(t *rapid.T) Policy {
		return newWorld(s, cfg).drawPolicy(t, false)
	})
}

// targetable is an object policies may name.
type targetable struct {
	group, kind, namespace, name string
	sections                     []string // named sections: listeners, named rules, named ports
}

type groupKind struct{ group, kind string }

// world is what drawing policies for a scenario needs to know.
type world struct {
	s          *Scenario
	cfg        Config
	prof       *profile.Profile
	objs       []targetable
	allowed    []groupKind // target kinds of the profile, in profile order
	forbidden  []groupKind // kinds the profile may not target
	namespaces []string    // policy namespaces
	taken      map[string]bool
	grants     int // left in the object budget
	merging    bool
	style      string // spec style: color, tls or generic
	// stored is the schema of the kind's built-in CRD (profile.CRD), nil
	// without one: what is drawn is what that CRD accepts as written
	// (generators/crd-accepts-drawn-policies).
	stored *crd.Schema
}

func newWorld(s *Scenario, cfg Config) *world {
	prof, err := s.ParsedProfile()
	if err != nil {
		panic("generators: " + err.Error())
	}
	w := &world{s: s, cfg: cfg, prof: prof, taken: map[string]bool{}, grants: cfg.MaxObjects - s.ObjectCount()}
	w.objs = targetables(s)
	universe := []groupKind{{gatewayGroup, "GatewayClass"}, {gatewayGroup, "Gateway"}, {gatewayGroup, "HTTPRoute"}, {gatewayGroup, "GRPCRoute"}, {"", "Service"}, {gatewayGroup, "TCPRoute"}, {"", "ConfigMap"}}
	if g := s.Generic; g != nil {
		for _, n := range g.Nodes {
			w.objs = append(w.objs, targetable{group: g.Group, kind: n.Kind, name: n.Name})
		}
		universe = []groupKind{{g.Group, "Z"}, {gatewayGroup, g.Kinds[0]}, {"", "Service"}}
	}
	for _, t := range prof.Spec.Targets {
		w.allowed = append(w.allowed, groupKind{t.Group, t.Kind})
	}
	for _, gk := range universe {
		if !slices.Contains(w.allowed, gk) {
			w.forbidden = append(w.forbidden, gk)
		}
	}
	w.namespaces = policyNamespaces(s, w.objs)
	for _, p := range s.Policies {
		w.taken[p.Namespace+"/"+p.Name] = true
	}
	w.merging = !prof.Implements(profile.None) && prof.Spec.Selection != nil
	if prof.CRD != nil {
		w.stored = prof.CRD.Preferred()
	}
	switch prof.Spec.Policy.Kind {
	case "ColorPolicy":
		w.style = "color"
	case "BackendTLSPolicy":
		w.style = "tls"
	default:
		w.style = "generic"
	}
	return w
}

// targetables lists the objects of s's Gateway API hierarchy a policy can
// target, with their sections: listeners, named rules, Service ports.
func targetables(s *Scenario) []targetable {
	var objs []targetable
	for _, c := range s.GatewayClasses {
		objs = append(objs, targetable{group: gatewayGroup, kind: "GatewayClass", name: c})
	}
	for _, gw := range s.Gateways {
		o := targetable{group: gatewayGroup, kind: "Gateway", namespace: namespaceOr(gw.Namespace), name: gw.Name}
		for _, l := range gw.Listeners {
			o.sections = append(o.sections, l.Name)
		}
		objs = append(objs, o)
	}
	for _, set := range s.ListenerSets {
		o := targetable{group: gatewayGroup, kind: "ListenerSet", namespace: namespaceOr(set.Namespace), name: set.Name}
		for _, l := range set.Listeners {
			o.sections = append(o.sections, l.Name)
		}
		objs = append(objs, o)
	}
	for _, r := range s.Routes {
		o := targetable{group: gatewayGroup, kind: r.RouteKind(), namespace: namespaceOr(r.Namespace), name: r.Name}
		for _, rule := range r.Rules {
			if rule.Name != "" {
				o.sections = append(o.sections, rule.Name)
			}
		}
		objs = append(objs, o)
	}
	for _, svc := range s.Services {
		objs = append(objs, targetable{kind: "Service", namespace: namespaceOr(svc.Namespace), name: svc.Name, sections: svc.Ports})
	}
	return objs
}

// policyNamespaces is where policies live: where the objects are (generic:
// where s's policies are), else the first of AllNamespaces.
func policyNamespaces(s *Scenario, objs []targetable) []string {
	namespaces := slices.Clone(s.Namespaces)
	if s.Generic == nil {
		namespaces = nil
		for _, o := range objs {
			if o.namespace != "" && !slices.Contains(namespaces, o.namespace) {
				namespaces = append(namespaces, o.namespace)
			}
		}
		slices.Sort(namespaces)
	}
	if len(namespaces) == 0 {
		namespaces = AllNamespaces[:1]
	}
	return namespaces
}

// sectionRule returns how targets of gk may name sections.
func (w *world) sectionRule(gk groupKind) profile.SectionRule {
	t, _ := w.prof.Target(gk.group, gk.kind)
	return t.SectionName
}

// candidates lists the objects of allowed kinds that a policy in ns can
// target without naming a namespace (all of them when ns is empty).
func (w *world) candidates(ns string, crossNS bool) []int {
	var out []int
	for i, o := range w.objs {
		if !slices.Contains(w.allowed, groupKind{o.group, o.kind}) {
			continue
		}
		switch {
		case crossNS && o.namespace != "" && o.namespace != ns:
		case !crossNS && (ns == "" || o.namespace == "" || o.namespace == ns):
		default:
			continue
		}
		out = append(out, i)
	}
	return out
}

// pickNS draws a policy namespace other than avoid.
func (w *world) pickNS(t *rapid.T, avoid string) string {
	list := w.namespaces
	if avoid != "" {
		list = nil
		for _, ns := range append(slices.Clone(w.namespaces), AllNamespaces...) {
			if ns != avoid && !slices.Contains(list, ns) {
				list = append(list, ns)
			}
		}
	}
	return rapid.SampledFrom(list).Draw(t, "policy namespace")
}

// drawPolicy draws a policy; addGrants lets it add ReferenceGrants to w.s
// for cross-namespace targets, within the object budget.
func (w *world) drawPolicy(t *rapid.T, addGrants bool) Policy {
	p := Policy{Group: w.prof.Spec.Policy.Group, Kind: w.prof.Spec.Policy.Kind}
	n := rapid.IntRange(1, 2).Draw(t, "targetRefs")
	ns := ""
	for i := 0; i < n; i++ {
		tr, ok := w.drawTarget(t, &ns, addGrants)
		if ok && !w.refusesWith(p.Targets, tr) {
			p.Targets = append(p.Targets, tr)
		}
	}
	if len(p.Targets) == 0 {
		// Only when the profile targets no kind the scenario has.
		p.Targets = append(p.Targets, w.missingTarget(t, &ns))
	}
	if w.prof.Spec.TargetSelectors != nil && rapid.IntRange(0, 3).Draw(t, "label-selector target") == 0 {
		// A selector in place of the last targetRef (or beside it): the
		// routes of a kind with a label value (profile.TargetSelectors).
		if len(p.Targets) > 1 || rapid.Bool().Draw(t, "selector only") {
			p.Targets = p.Targets[:len(p.Targets)-1]
		}
		if ns == "" {
			ns = namespaceOr(rapid.SampledFrom(w.namespaces).Draw(t, "selector namespace"))
		}
		kinds := append([]string{"HTTPRoute", "GRPCRoute"}, RouteKinds...)
		p.Selectors = append(p.Selectors, Selector{
			Kind:        rapid.SampledFrom(kinds).Draw(t, "selector kind"),
			MatchLabels: map[string]string{"tier": rapid.SampledFrom(LabelValues).Draw(t, "selector label")},
		})
	}
	p.Namespace = ns
	p.Name = w.name(t, ns)
	if rapid.IntRange(0, 9).Draw(t, "has creationTimestamp") < 8 {
		ts := BaseTime.Add(time.Duration(rapid.IntRange(0, 3).Draw(t, "creationTimestamp")) * time.Second)
		p.Created = &ts
	}
	p.Spec = w.drawSpec(t)
	return p
}

// refusesWith reports whether the kind's CRD refuses tr beside targets:
// Gateway API's policy CRDs (LocalPolicyTargetReferenceWithSectionName
// lists, e.g. BackendTLSPolicySpec.TargetRefs) refuse two references to
// one target unless each names a sectionName and they differ
// ("sectionName must be specified when targetRefs includes 2 or more
// references to the same target", "sectionName must be unique when
// targetRefs includes 2 or more references to the same target"). Without
// a built-in CRD a kind takes duplicates, which GEP-713 leaves to the
// engine.
func (w *world) refusesWith(targets []Target, tr Target) bool {
	if w.stored == nil {
		return false
	}
	for _, x := range targets {
		if x.Group == tr.Group && x.Kind == tr.Kind && x.Name == tr.Name && namespaceOr(x.Namespace) == namespaceOr(tr.Namespace) &&
			(x.Section == "" || tr.Section == "" || x.Section == tr.Section) {
			return true
		}
	}
	return false
}

// localRefs reports whether the kind's CRD has no namespace in a
// targetRef (Gateway API's LocalPolicyTargetReference: "a local object
// reference", in the policy's namespace): the API server would prune
// one, so none is drawn and a cross-namespace target cannot be written.
func (w *world) localRefs() bool {
	return w.stored != nil && !w.stored.Knows("spec", "targetRefs", "namespace")
}

// name draws a name unused in ns.
func (w *world) name(t *rapid.T, ns string) string {
	i := rapid.IntRange(0, len(PolicyNames)-1).Draw(t, "policy name")
	for {
		var n string
		if i < len(PolicyNames) {
			n = PolicyNames[i]
		} else {
			n = fmt.Sprintf("p-%c", 'a'+i)
			if i >= 26 {
				n = fmt.Sprintf("p-%d", i)
			}
		}
		if !w.taken[ns+"/"+n] {
			w.taken[ns+"/"+n] = true
			return n
		}
		i++
	}
}

// Target modes: a draw from 0–99 below modeValid is a valid target, below
// modeCrossNS a cross-namespace one, and so on; shrinking goes towards a
// valid target.
const (
	modeValid     = 78
	modeCrossNS   = 84
	modeMissing   = 90
	modeForbidden = 95
)

// drawTarget draws one targetRef. *ns is the policy's namespace, "" until
// the first target sets it. ok is false when no target fits.
func (w *world) drawTarget(t *rapid.T, ns *string, addGrants bool) (Target, bool) {
	mode := rapid.IntRange(0, 99).Draw(t, "target mode")
	if w.cfg.NoInvalid && mode >= modeValid && (mode >= modeCrossNS || !w.prof.Spec.CrossNamespace) {
		mode = 0
	}
	switch {
	case mode < modeValid:
	case mode < modeCrossNS && w.localRefs():
		// A local reference names no namespace: a valid target instead.
	case mode < modeCrossNS:
		if tr, ok := w.crossTarget(t, ns, addGrants); ok {
			return tr, true
		}
	case mode < modeMissing:
		return w.missingTarget(t, ns), true
	case mode < modeForbidden:
		return w.forbiddenKind(t, ns), true
	default:
		if tr, ok := w.forbiddenSection(t, ns); ok {
			return tr, true
		}
		return w.forbiddenKind(t, ns), true
	}
	return w.validTarget(t, ns)
}

func (w *world) setNS(t *rapid.T, ns *string, o targetable) {
	if *ns != "" {
		return
	}
	if o.namespace != "" {
		*ns = o.namespace
	} else {
		*ns = w.pickNS(t, "")
	}
}

// validTarget targets an object of an allowed kind in the policy's
// namespace (or cluster-scoped), sometimes one of its sections.
func (w *world) validTarget(t *rapid.T, ns *string) (Target, bool) {
	cands := w.candidates(*ns, false)
	if len(cands) == 0 {
		return Target{}, false
	}
	o := w.objs[rapid.SampledFrom(cands).Draw(t, "target")]
	w.setNS(t, ns, o)
	tr := Target{Group: o.group, Kind: o.kind, Name: o.name}
	switch w.sectionRule(groupKind{o.group, o.kind}) {
	case profile.SectionOptional:
		switch x := rapid.IntRange(0, 9).Draw(t, "sectionName"); {
		case x < 6:
		case x < 9 || w.cfg.NoInvalid:
			if len(o.sections) > 0 {
				tr.Section = rapid.SampledFrom(o.sections).Draw(t, "section")
			}
		default:
			tr.Section = w.missingSection(t, o)
		}
	case profile.SectionRequired:
		if len(o.sections) > 0 {
			tr.Section = rapid.SampledFrom(o.sections).Draw(t, "section")
		} else {
			tr.Section = w.missingSection(t, o)
		}
	}
	if o.namespace != "" && rapid.IntRange(0, 9).Draw(t, "explicit namespace") == 9 && !w.localRefs() {
		tr.Namespace = o.namespace // names the policy's own namespace
	}
	return tr, true
}

// missingSection names a section o lacks. (An unnamed rule's positional
// name, rules[i], is not a valid SectionName: the API server refuses it,
// and so does the loader.)
func (w *world) missingSection(*rapid.T, targetable) string {
	return "missing"
}

// crossTarget targets an object in another namespace, naming it. It adds a
// ReferenceGrant for most of them when the profile honours them.
func (w *world) crossTarget(t *rapid.T, ns *string, addGrants bool) (Target, bool) {
	cands := w.candidates(*ns, true)
	if len(cands) == 0 {
		return Target{}, false
	}
	o := w.objs[rapid.SampledFrom(cands).Draw(t, "cross-namespace target")]
	pns := *ns
	if pns == "" {
		pns = w.pickNS(t, o.namespace)
	}
	tr := Target{Group: o.group, Kind: o.kind, Namespace: o.namespace, Name: o.name}
	if w.sectionRule(groupKind{o.group, o.kind}) != profile.SectionForbidden && len(o.sections) > 0 &&
		rapid.IntRange(0, 9).Draw(t, "cross-namespace sectionName") < 3 {
		tr.Section = rapid.SampledFrom(o.sections).Draw(t, "section")
	}
	if !w.prof.Spec.CrossNamespace || w.granted(pns, o) {
		*ns = pns
		return tr, true
	}
	if addGrants && w.grants > 0 && (w.cfg.NoInvalid || rapid.IntRange(0, 9).Draw(t, "grant policy") < 7) {
		g := Grant{
			Namespace: o.namespace, Name: w.grantName(o.namespace),
			FromGroup: w.prof.Spec.Policy.Group, FromKind: w.prof.Spec.Policy.Kind, FromNamespace: pns,
			ToGroup: o.group, ToKind: o.kind,
		}
		if rapid.IntRange(0, 9).Draw(t, "grant one object") < 3 {
			g.ToName = o.name
		}
		w.s.Grants = append(w.s.Grants, g)
		w.grants--
		*ns = pns
		return tr, true
	}
	if w.cfg.NoInvalid {
		return Target{}, false // the policy's namespace stays undecided
	}
	*ns = pns
	return tr, true
}

// granted reports whether a grant of w.s lets policies in ns target o.
func (w *world) granted(ns string, o targetable) bool {
	for _, g := range w.s.Grants {
		if g.Namespace == o.namespace && g.FromGroup == w.prof.Spec.Policy.Group && g.FromKind == w.prof.Spec.Policy.Kind &&
			g.FromNamespace == ns && g.ToGroup == o.group && g.ToKind == o.kind && (g.ToName == "" || g.ToName == o.name) {
			return true
		}
	}
	return false
}

func (w *world) grantName(ns string) string {
	for i := 1; ; i++ {
		n := fmt.Sprintf("grant-%d", i)
		if !slices.ContainsFunc(w.s.Grants, func(g Grant) bool { return g.Namespace == ns && g.Name == n }) {
			return n
		}
	}
}

// missingTarget names an object of an allowed kind that does not exist (or
// exists only in another namespace).
func (w *world) missingTarget(t *rapid.T, ns *string) Target {
	gk := rapid.SampledFrom(w.allowed).Draw(t, "missing kind")
	names := []string{"missing"}
	for _, o := range w.objs {
		if o.group == gk.group && o.kind == gk.kind && o.namespace != "" && !slices.Contains(names, o.name) {
			names = append(names, o.name)
		}
	}
	if *ns == "" {
		*ns = w.pickNS(t, "")
	}
	return Target{Group: gk.group, Kind: gk.kind, Name: rapid.SampledFrom(names).Draw(t, "missing name")}
}

// forbiddenKind names an object of a kind the profile may not target.
func (w *world) forbiddenKind(t *rapid.T, ns *string) Target {
	gk := rapid.SampledFrom(w.forbidden).Draw(t, "forbidden kind")
	names := []string{"x"}
	for _, o := range w.objs {
		if o.group == gk.group && o.kind == gk.kind && !slices.Contains(names, o.name) {
			names = append(names, o.name)
		}
	}
	if *ns == "" {
		*ns = w.pickNS(t, "")
	}
	return Target{Group: gk.group, Kind: gk.kind, Name: rapid.SampledFrom(names).Draw(t, "forbidden name")}
}

// forbiddenSection names a section of an object whose kind the profile
// targets only as a whole.
func (w *world) forbiddenSection(t *rapid.T, ns *string) (Target, bool) {
	var cands []int
	for _, i := range w.candidates(*ns, false) {
		o := w.objs[i]
		if w.sectionRule(groupKind{o.group, o.kind}) == profile.SectionForbidden {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return Target{}, false
	}
	o := w.objs[rapid.SampledFrom(cands).Draw(t, "target")]
	w.setNS(t, ns, o)
	sec := "s"
	if len(o.sections) > 0 {
		sec = rapid.SampledFrom(o.sections).Draw(t, "forbidden section")
	}
	return Target{Group: o.group, Kind: o.kind, Name: o.name, Section: sec}, true
}

var (
	colors    = []string{"red", "blue", "green", "yellow"}
	hostnames = []string{"a.example.com", "b.example.com", "backend.internal"}

	colorSpec = rapid.Custom(func(t *rapid.T) map[string]any {
		switch x := rapid.IntRange(0, 11).Draw(t, "color spec"); {
		case x < 6:
			return map[string]any{"color": rapid.SampledFrom(colors).Draw(t, "color")}
		case x < 8:
			m := flatSpec.Draw(t, "flat spec")
			m["color"] = rapid.SampledFrom(colors).Draw(t, "color")
			return m
		case x < 10:
			// A list under a key every such spec shares, so that a
			// merge patch meets a list (RFC 7386 replaces it whole).
			m := map[string]any{"palette": palette.Draw(t, "palette")}
			if rapid.Bool().Draw(t, "with color") {
				m["color"] = rapid.SampledFrom(colors).Draw(t, "color")
			}
			return m
		}
		return jsonSpec.Draw(t, "json spec")
	})
	palette = rapid.Map(rapid.SliceOfN(rapid.SampledFrom(colors), 0, 3), func(l []string) any {
		out := make([]any, len(l))
		for i, c := range l {
			out[i] = c
		}
		return out
	})
	// The system CAs only: a caCertificateRefs needs its ConfigMap, which
	// the drawn world does not hold (a policy none of whose references
	// resolves is rejected, profile references).
	tlsSpec = rapid.Custom(func(t *rapid.T) map[string]any {
		v := map[string]any{"hostname": rapid.SampledFrom(hostnames).Draw(t, "hostname"), "wellKnownCACertificates": "System"}
		return map[string]any{"validation": v}
	})
	jsonSpec    = JSONObject(2)
	genericSpec = rapid.OneOf(flatSpec, jsonSpec)
)

// drawSpec draws a policy spec (without targetRefs) for the profile.
func (w *world) drawSpec(t *rapid.T) map[string]any {
	proper := w.drawProper(t)
	if !w.merging {
		return proper
	}
	sel := w.prof.Spec.Selection
	defaults, overrides, field := "defaults", "overrides", sel.StrategyField
	if sel.Stanzas != nil {
		defaults, overrides = sel.Stanzas.Defaults, sel.Stanzas.Overrides
	}
	value := func(mode string) string { return strategyValue(sel, mode) }
	if !w.cfg.NoInvalid && rapid.IntRange(0, 19).Draw(t, "invalid selection") == 19 {
		return w.invalidSpec(t, proper, defaults, overrides, field, value)
	}
	strategies := w.cfg.merging()
	if len(strategies) == 0 {
		strategies = []profile.Strategy{profile.AtomicDefaults}
	}
	st := rapid.SampledFrom(strategies).Draw(t, "strategy")
	mode := value("Atomic")
	if st.IsPatch() {
		mode = value("Patch")
	}
	stanza := ""
	if st.IsOverride() || rapid.IntRange(0, 2).Draw(t, "stanza") > 0 {
		stanza = map[bool]string{false: defaults, true: overrides}[st.IsOverride()]
	}
	// Where the strategy field goes: 0 nowhere (Atomic only), 1 spec level,
	// 2 inside the stanza, 3 both.
	where := rapid.IntRange(0, 3).Draw(t, "strategy field")
	if st.IsPatch() && where == 0 {
		where = 1
	}
	if stanza == "" && where > 1 {
		where = 1
	}
	spec := map[string]any{}
	if where == 1 || where == 3 {
		spec[field] = mode
	}
	if stanza == "" {
		maps.Copy(spec, proper)
		return spec
	}
	if where >= 2 {
		proper[field] = mode
	}
	spec[stanza] = proper
	return spec
}

// drawProper draws a spec proper in the kind's style.
func (w *world) drawProper(t *rapid.T) map[string]any {
	switch {
	case w.cfg.FlatSpecs && w.style != "tls":
		// A BackendTLSPolicy's spec has its CRD's shape, flat specs or
		// not (spec.validation is required, a flat key unknown).
		return flatSpec.Draw(t, "spec proper")
	case w.style == "color":
		return colorSpec.Draw(t, "spec proper")
	case w.style == "tls":
		return tlsSpec.Draw(t, "spec proper")
	default:
		return genericSpec.Draw(t, "spec proper")
	}
}

// strategyValue is the value of the selection's strategy field that
// selects mode (Atomic or Patch), mode itself when none is listed.
func strategyValue(sel *profile.Selection, mode string) string {
	for _, k := range slices.Sorted(maps.Keys(sel.StrategyValues)) {
		if sel.StrategyValues[k] == mode {
			return k
		}
	}
	return mode
}

// invalidSpec draws a spec whose strategy selection a controller rejects.
func (w *world) invalidSpec(t *rapid.T, proper map[string]any, defaults, overrides, field string, value func(string) string) map[string]any {
	switch rapid.IntRange(0, 4).Draw(t, "invalid kind") {
	case 0: // both stanzas
		return map[string]any{defaults: proper, overrides: map[string]any{}}
	case 1: // unknown strategy value
		return map[string]any{field: "merge", overrides: proper}
	case 2: // strategies disagree
		proper[field] = value("Patch")
		return map[string]any{field: value("Atomic"), defaults: proper}
	case 3: // spec proper next to a stanza
		return map[string]any{overrides: proper, "stray": "x"}
	}
	return map[string]any{defaults: "x"} // a stanza that is not an object
}
