// Package observe is what an implementation of policy attachment did with
// a case, in gepcheck's own model (an Observation): the effective setting
// of every path and the conditions written on policies and targets. The
// reference engine's output (FromOutput), an offline translator and a
// controller in a cluster are all read into it, so that any two can be
// compared (package compare).
package observe

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite/features"
)

// Case is one scenario to observe: the documents a user would apply.
type Case struct {
	// Name identifies the case in a batch.
	Name string `json:"name"`
	// YAML holds the objects (multi-document YAML), including, where
	// needed, PolicyProfile and ObjectFields documents.
	YAML string `json:"yaml"`
	// Profiles names the built-in profiles the case uses, if any.
	Profiles []string `json:"profiles,omitempty"`
	// Semantics are the path semantics the case's expectations hold
	// under (a scenario's semantics:), empty for any; a case is judged
	// only against an implementation that claims one of them. Not sent to
	// the implementation.
	Semantics []engine.Semantics `json:"-"`
	// File is the scenario file the case is read from (LoadedCases); in
	// a scenario with steps, State is the index of the case's state
	// (simulator.State.Step) and States names the file's states
	// ("create", then each step's name; Label), nil in one without. Not
	// sent to the implementation.
	File   string   `json:"-"`
	State  int      `json:"-"`
	States []string `json:"-"`
	// Docs are YAML's documents as ScenarioCases loaded them, nil when
	// only YAML is known: the reference builds the case from them
	// (Model) instead of parsing YAML again. Not sent to the
	// implementation.
	Docs []*load.Doc `json:"-"`
}

// Label names c's state for printing: "step N (name)"
// (simulator.State.Label), "" for a case without steps.
func (c Case) Label() string {
	if len(c.States) < 2 {
		return ""
	}
	return simulator.State{Step: c.State, Name: c.States[c.State]}.Label(len(c.States) - 1)
}

// Model builds c with opts: from the documents it was loaded as (Docs)
// when it has them, else from its YAML. An error names the file the
// documents came from, or "-" for YAML.
func (c Case) Model(opts simulator.Options) (*simulator.Model, error) {
	if c.Docs != nil {
		return simulator.Build(c.Docs, opts)
	}
	return simulator.LoadFiles([]string{"-"}, strings.NewReader(c.YAML), opts)
}

// Unclaimed says why expectations that hold under holds (any semantics
// when empty) do not apply to implementation who, which claims claim, or
// is "" when they apply: such a scenario is skipped, offline and in a
// cluster.
func Unclaimed(holds []engine.Semantics, claim engine.Semantics, who string) string {
	if len(holds) == 0 || slices.Contains(holds, claim) {
		return ""
	}
	names := make([]string, len(holds))
	for i, s := range holds {
		names[i] = string(s)
	}
	return fmt.Sprintf("holds under %s; %s claims %s", strings.Join(names, ", "), who, claim)
}

// Observation is what an implementation did with one case.
type Observation struct {
	Name string `json:"name"`
	// Effective lists the effective settings per path, as realized.
	Effective []Path `json:"effective"`
	// Policies lists the conditions written on each policy.
	Policies []Status `json:"policies"`
	// Targets lists the conditions written on affected objects.
	Targets []Status `json:"targets,omitempty"`
	// Rejected lists objects the implementation refused, and why.
	Rejected []Rejection `json:"rejected,omitempty"`
	// Broken lists the rules of the specs the implementation's own status
	// breaks, where an offline translator prints status it can be judged
	// on (package statusrules); each is a difference of its own.
	Broken []RuleBreak `json:"broken,omitempty"`
	// Reached lists the objects (Kind/namespace/name[#section]) the
	// implementation's configuration reaches, where what it configures
	// depends on more than a path (a proxy has a Service port's TLS
	// settings only where a route sends traffic to it): for
	// Capabilities.Observable.
	Reached []string `json:"reached,omitempty"`
	// Unreported lists policies the implementation has no place to write
	// status for: Gateway API's PolicyAncestorStatus reports per ancestor,
	// and no ancestor reaches any of their targets (a Service no route
	// sends traffic to). Their conditions are not compared.
	Unreported []string `json:"unreported,omitempty"`
	// Error, when set, says the implementation failed on this case; the
	// rest of the observation is then empty.
	Error string `json:"error,omitempty"`
	// Written is the reference's alone: its effective settings from the
	// policies as their authors wrote them, on the paths where the API
	// server's storing them (CRD defaults, pruned nulls) changes the
	// answer (simulator.Output.Written; nil spec: no effective policy).
	// compare.Diff reads it to tell a stored-values difference.
	Written []Path `json:"-"`
}

// RuleBreak is a status rule (statusrules.Rules) broken on an object.
type RuleBreak struct {
	Ref  string `json:"ref"`
	Rule string `json:"rule"`
	Got  string `json:"got"`
}

// Path is the effective setting of one path.
type Path struct {
	// Path lists Kind/namespace/name[#section] elements, as gepcheck
	// prints them.
	Path []string `json:"path"`
	// Spec is the effective spec proper.
	Spec map[string]any `json:"spec"`
}

// Status lists the conditions of one object.
type Status struct {
	Ref        string      `json:"ref"`
	Conditions []Condition `json:"conditions"`
	// Ancestors, for a policy whose kind reports status per ancestor
	// Gateway (Gateway API's PolicyStatus.Ancestors; the reference for a
	// profile with statusAncestors), lists the conditions per ancestor
	// (Ref: Gateway/namespace/name) that the observed side writes; nil
	// when it reports none per ancestor. Comparisons then judge each
	// ancestor the implementation writes (compare.Diff).
	Ancestors []Status `json:"ancestors,omitempty"`
}

// Condition is a status condition, the engine's own type; Message is
// informative and never compared.
type Condition = engine.Condition

// Rejection is an object the implementation refused.
type Rejection struct {
	Ref    string `json:"ref"`
	Reason string `json:"reason"`
}

// Capabilities say what an implementation reports, so that a comparison
// judges only that: data, not behaviour (controller-runtime's split of
// client.Reader and client.Writer, in the same spirit).
type Capabilities struct {
	// Features the implementation handles; cases that need another are
	// skipped, not failed.
	Features features.Set
	// Conditions lists the policy condition types the implementation
	// writes and gepcheck compares; nil: all of them.
	Conditions []string
	// StrategyNames are the names the implementation's API gives merge
	// strategies where they are not GEP-713's (a merge-type field's
	// values): a status message must not name a strategy by one of them
	// (status rule strategy-names).
	StrategyNames []string
	// Semantics is the reading of GEP-713 the implementation claims
	// (docs/semantics.md), which every comparison follows; empty for
	// sticky-overrides.
	Semantics engine.Semantics
	// Vocabulary is the status vocabulary the implementation claims to
	// write (engine.Vocabulary; docs/semantics.md), which every
	// comparison follows; empty for merged GEP-713's.
	Vocabulary engine.Vocabulary
	// AncestorEntries is the reading of status per ancestor the
	// implementation claims (simulator.AncestorEntries: one entry per
	// Gateway, or per Gateway listener), which the reference's expectation
	// is written in; empty: per Gateway.
	AncestorEntries simulator.AncestorEntries
	// Readable, when set, is the part of a reference effective spec the
	// implementation's observations can show (e.g. the fields read back
	// from xDS): every comparison projects the reference's side with it.
	Readable func(spec map[string]any) map[string]any
	// Profiles, when set, names the profile the implementation claims for
	// a policy kind, where built-in profiles read a kind two ways
	// (docs/semantics.md): cases read with another profile of the kind
	// are skipped.
	Profiles map[string]string
	// IgnoresCreationTimestamps says the implementation reads no
	// metadata.creationTimestamp (an offline translator whose loader keeps
	// only names): the reference reads none either, so Conflict resolution
	// rule 3 decides where rule 2 would; timestamps are judged in a
	// cluster.
	IgnoresCreationTimestamps bool
	// Observable, when set, says which of the reference's paths an
	// observation got can show (e.g. only paths through a Gateway, whose
	// proxy configuration is read; Service ports got.Reached); the others
	// are not compared.
	Observable func(path []string, got *Observation) bool
}

// FieldFeatures are the features the policies of k need for a field they
// set: a BackendTLSPolicy naming the system's CAs needs
// WellKnownCACertificates (Implementation-specific support).
func FieldFeatures(k *simulator.Kind) []features.Name {
	if k.Profile.Spec.Policy.Kind != "BackendTLSPolicy" {
		return nil
	}
	for _, p := range k.Policies {
		if v, _ := p.Intent.SpecProper["validation"].(map[string]any); v["wellKnownCACertificates"] != nil {
			return []features.Name{features.WellKnownCACertificates}
		}
	}
	return nil
}

// Unsupported names the first feature the case m is built from needs
// that the implementation does not declare (a policy kind, ObjectFields),
// or is "" when it needs none other: such a case is skipped, not failed.
// m is the reference's model of the case (ReferenceModel), built once
// for both.
func (c Capabilities) Unsupported(m *simulator.Model) string {
	if c.Features == nil && c.Profiles == nil {
		return ""
	}
	for _, k := range m.Kinds {
		if kind := k.Profile.Spec.Policy.Kind; c.Features != nil && !c.Features.Has(features.PolicyKind(kind)) {
			return kind
		}
		if want, name := c.Profiles[k.Profile.Spec.Policy.Kind], k.Profile.Metadata.Name; want != "" && name != want {
			return "profile " + name + " (it claims " + want + ")"
		}
		for _, f := range FieldFeatures(k) {
			if !c.Features.Has(f) {
				return string(f)
			}
		}
	}
	if len(m.OwnFields) > 0 && c.Features != nil && !c.Features.Has(features.ObjectFields) {
		return string(features.ObjectFields)
	}
	return ""
}

// Claim is the semantics the implementation claims: c.Semantics, or
// sticky-overrides.
func (c Capabilities) Claim() engine.Semantics {
	if c.Semantics == "" {
		return engine.StickyOverrides
	}
	return c.Semantics
}

// StatusVocabulary is the status vocabulary the implementation claims:
// c.Vocabulary, or merged GEP-713's.
func (c Capabilities) StatusVocabulary() engine.Vocabulary {
	if c.Vocabulary == "" {
		return engine.VocabularyMerged
	}
	return c.Vocabulary
}

// ClaimingVocabulary is d claiming the status vocabulary v instead of its
// own (the --status-vocabulary flag of run and fuzz); d is returned as it
// is when v is empty.
func ClaimingVocabulary(d Observer, v engine.Vocabulary) Observer {
	if v == "" {
		return d
	}
	return claimed{d, func(c *Capabilities) { c.Vocabulary = v }}
}

// Claiming is d claiming sem instead of its own semantics (the
// --semantics flag of run and fuzz); d is returned as it is when sem is
// empty.
func Claiming(d Observer, sem engine.Semantics) Observer {
	if sem == "" {
		return d
	}
	return claimed{d, func(c *Capabilities) { c.Semantics = sem }}
}

// ClaimingAncestors is d claiming the ancestor-entries reading a instead
// of its own (the --ancestor-entries flag of simulate --impl and explain
// --impl; Gateway API PolicyAncestorStatus, docs/semantics.md). a is
// never "no claim": its zero value is simulator.AncestorsPerGateway.
func ClaimingAncestors(d Observer, a simulator.AncestorEntries) Observer {
	return claimed{d, func(c *Capabilities) { c.AncestorEntries = a }}
}

// claimed is an Observer whose Capabilities are its own with one setting
// of its reading replaced (set), as a flag gives it.
type claimed struct {
	Observer
	set func(*Capabilities)
}

func (c claimed) Capabilities() Capabilities {
	caps := c.Observer.Capabilities()
	c.set(&caps)
	return caps
}

// Observer runs cases through an implementation offline.
type Observer interface {
	// Name identifies the implementation.
	Name() string
	Capabilities() Capabilities
	// Observe runs a batch of independent cases and returns one
	// observation per case, in order. An error means the whole batch
	// failed (the implementation could not run at all).
	Observe(ctx context.Context, cases []Case) ([]Observation, error)
}

// Normalize sorts an observation so that two observations of the same
// behaviour compare equal.
func (o *Observation) Normalize() {
	sort.Slice(o.Effective, func(a, b int) bool {
		return strings.Join(o.Effective[a].Path, " ") < strings.Join(o.Effective[b].Path, " ")
	})
	for _, l := range [][]Status{o.Policies, o.Targets} {
		sort.Slice(l, func(a, b int) bool { return l[a].Ref < l[b].Ref })
		for _, s := range l {
			sort.Slice(s.Conditions, func(a, b int) bool { return s.Conditions[a].Type < s.Conditions[b].Type })
			sort.Slice(s.Ancestors, func(a, b int) bool { return s.Ancestors[a].Ref < s.Ancestors[b].Ref })
			for _, a := range s.Ancestors {
				sort.Slice(a.Conditions, func(i, j int) bool { return a.Conditions[i].Type < a.Conditions[j].Type })
			}
		}
	}
	sort.Slice(o.Rejected, func(a, b int) bool { return o.Rejected[a].Ref < o.Rejected[b].Ref })
	slices.Sort(o.Reached)
	o.Reached = slices.Compact(o.Reached)
	slices.Sort(o.Unreported)
	o.Unreported = slices.Compact(o.Unreported)
}

// FromOutput reads the reference engine's output as an observation.
func FromOutput(name string, out *simulator.Output) Observation {
	o := Observation{Name: name, Effective: []Path{}, Policies: []Status{}}
	for _, e := range out.EffectivePolicies {
		spec, _ := e.Spec.(map[string]any)
		o.Effective = append(o.Effective, Path{Path: e.Path, Spec: spec})
	}
	for _, e := range out.Written {
		spec, _ := e.Spec.(map[string]any)
		o.Written = append(o.Written, Path{Path: e.Path, Spec: spec})
	}
	for _, p := range out.Policies {
		st := Status{Ref: p.Ref, Conditions: slices.Clone(p.Conditions)}
		if p.Ancestors != nil {
			st.Ancestors = make([]Status, 0, len(p.Ancestors))
			for _, a := range p.Ancestors {
				st.Ancestors = append(st.Ancestors, Status{Ref: a.Ref, Conditions: slices.Clone(a.Conditions)})
			}
		}
		o.Policies = append(o.Policies, st)
	}
	for _, t := range out.Targets {
		o.Targets = append(o.Targets, Status{Ref: t.Ref, Conditions: slices.Clone(t.Conditions)})
	}
	o.Normalize()
	return o
}

// Reference observes cases with gepcheck's reference engine as an
// implementation with caps reads them: under the semantics it claims, in
// the status vocabulary it claims, without creationTimestamps if it reads
// none. It is the expectation every comparison starts from. A case that
// does not load is an observation with Error set.
func Reference(cases []Case, caps Capabilities) []Observation {
	out := make([]Observation, len(cases))
	for i, c := range cases {
		m, err := ReferenceModel(c, caps)
		out[i] = ReferenceOf(c.Name, m, err, caps)
	}
	return out
}

// ReferenceOf is Reference's observation of the case named name, built
// as ReferenceModel builds it (m, or the error building it gave), for a
// caller that holds the model already.
func ReferenceOf(name string, m *simulator.Model, err error, caps Capabilities) Observation {
	if err != nil {
		return Observation{Name: name, Error: err.Error()}
	}
	return FromOutput(name, m.Run(caps.Claim(), nil))
}

// ReferenceModel loads case c as the reference reads it for an
// implementation with caps (Reference): its profiles, the status
// vocabulary the implementation claims, without creationTimestamps if it
// reads none.
func ReferenceModel(c Case, caps Capabilities) (*simulator.Model, error) {
	return c.Model(simulator.Options{Profiles: c.Profiles, IgnoreCreationTimestamps: caps.IgnoresCreationTimestamps, Vocabulary: caps.StatusVocabulary(), AncestorEntries: caps.AncestorEntries})
}
