// Package simulator turns the YAML a user would kubectl apply into effective
// policies: load → topology → engine. The heavy lifting lives in the
// subpackages; this package classifies documents and wires them together.
package simulator

import (
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gepcheck/gepcheck/simulator/crd"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/profile"
	"github.com/gepcheck/gepcheck/simulator/ref"
	"github.com/gepcheck/gepcheck/simulator/topology"
)

// Group names of the objects the loader understands.
const (
	GatewayGroup  = "gateway.networking.k8s.io"
	GepcheckGroup = "gepcheck.dev"
)

// AnnotationOtherImplementation, on a scenario's GatewayClass, says the
// class is served by another implementation than the one a scenario is run
// against: in a cluster its controllerName is kept, where every other class
// gets the implementation's, and gepcheck writes that implementation's
// policy ancestor entries. The implementation under test must not serve its
// Gateways, nor write ancestor status for them, nor remove the entries the
// other implementation writes (Gateway API PolicyStatus.Ancestors:
// "implementations MUST ONLY populate ancestor status for the Ancestor
// resources they are responsible for"). The reference engine reads the
// class as any other: what each Gateway's implementation should do.
const AnnotationOtherImplementation = "gepcheck.dev/other-implementation"

// Options configure Load.
type Options struct {
	// Profiles are built-in profile names or profile files. When empty, the
	// profiles come from PolicyProfile documents in the input, the
	// Scenario document, or the built-ins matching the policy kinds.
	Profiles []string
	// Limits bound the reading of the input (load.DefaultLimits when
	// zero).
	Limits load.Limits
	// CEL bounds the evaluation of CEL conditions (engine.CELLimits
	// defaults when zero).
	CEL engine.CELLimits
	// Vocabulary is the status vocabulary the model's runs write
	// (Model.Vocabulary; empty: merged GEP-713's).
	Vocabulary engine.Vocabulary
	// AncestorEntries is the reading of "Gateway as the
	// PolicyAncestorStatus object" the model's runs write
	// (Model.AncestorEntries; empty: one entry per Gateway).
	AncestorEntries AncestorEntries
	// IgnoreCreationTimestamps reads every policy as an implementation
	// that reads no metadata.creationTimestamp does (an offline
	// translator whose loader keeps only names): created at one time, so
	// that Conflict resolution rule 3 decides where rule 2 would (GEP-713).
	IgnoreCreationTimestamps bool
	// CRDs are CustomResourceDefinitions read from a cluster
	// (crd.FromObjects): a policy of a kind one serves is stored with it,
	// unless the input holds its kind's CRD (docs/profiles.md, What is
	// stored).
	CRDs *crd.Set
	// FieldValidation is what storing does with a field a policy's CRD
	// does not know (crd.FieldValidation; empty: warn, the API server's
	// default): pruned with a warning, pruned silently (ignore), or bad
	// input naming file, document, line and field (strict, as `kubectl
	// apply --validate=strict` refuses it); docs/profiles.md, What is
	// stored.
	FieldValidation crd.FieldValidation
}

// Model is a loaded input: the hierarchy and the policies of each kind.
type Model struct {
	Graph    *topology.Graph
	Grants   topology.Grants
	Kinds    []*Kind
	Scenario *Scenario
	// Finding names the Finding document of the input, if any, and
	// FindingImplementation the implementation it is about (empty for a
	// disagreement between specs).
	Finding               string
	FindingImplementation string
	// OwnFields holds the values objects set themselves in fields that
	// field-level policies default or override (ObjectFields documents),
	// by object ref.
	OwnFields map[string]map[string]any
	Warnings  []string
	// Vocabulary is the status vocabulary every run writes (engine.Input,
	// docs/semantics.md); empty: merged GEP-713's.
	Vocabulary engine.Vocabulary
	// AncestorEntries is how every run writes status per ancestor
	// (ancestors.go; empty: AncestorsPerGateway).
	AncestorEntries AncestorEntries
	// FieldValidation is what storing did with fields a policy's CRD does
	// not know (Options.FieldValidation; never empty in a built model).
	FieldValidation crd.FieldValidation

	mutant engine.Mutant // RunMutant
	cel    engine.CELLimits
	// sources locates each policy's document, by ref, for LimitErrors.
	sources map[string]load.Source
}

// Kind is one policy kind, its profile and its policies.
type Kind struct {
	Profile  *profile.Profile
	Policies []engine.Policy
	// Refs holds, by policy ref, the condition a profile.RefsCondition
	// writes (e.g. BackendTLSPolicy's ResolvedRefs), for kinds with one
	// (ResolveReferences).
	Refs map[string]engine.Condition
}

// Output is the result of a simulation over every policy kind.
type Output struct {
	Semantics engine.Semantics `json:"semantics"`
	// StatusVocabulary names the conditions the policies' status is
	// written in (never empty in an output), and Profiles the profile of
	// each policy kind, sorted: with Semantics, the reading that produced
	// the answer (docs/output.md).
	StatusVocabulary engine.Vocabulary `json:"statusVocabulary"`
	// AncestorEntries names the reading of status per ancestor when it is
	// not the default, one entry per Gateway (AncestorsPerListener:
	// "listener"; docs/semantics.md).
	AncestorEntries AncestorEntries `json:"ancestorEntries,omitempty"`
	// FieldValidation names what storing did with fields a policy's CRD
	// does not know when it is not the default, warn (Options).
	FieldValidation   crd.FieldValidation      `json:"fieldValidation,omitempty"`
	Profiles          []string                 `json:"profiles"`
	EffectivePolicies []engine.EffectivePolicy `json:"effectivePolicies"`
	Policies          []engine.PolicyStatus    `json:"policies"`
	Targets           []engine.TargetStatus    `json:"targets"`
	Warnings          []string                 `json:"warnings,omitempty"`
	// LimitErrors are the policies a CEL limit made Invalid (Model.Limits).
	LimitErrors []*engine.LimitError `json:"-"`
	// Written are the effective policies the policies as their authors
	// wrote them give, on the paths where storing them (CRD defaults,
	// pruned nulls) changes the answer, and Stored the fields that
	// change; Warnings words them (stored.go). Empty when storing changed
	// no policy, and in runs that leave a policy out.
	Written []engine.EffectivePolicy `json:"-"`
	Stored  []StoredChange           `json:"-"`
}

// Reading names what produced an answer: the path semantics, the status
// vocabulary and the profile of each policy kind (docs/output.md).
type Reading struct {
	Semantics        engine.Semantics  `json:"semantics"`
	StatusVocabulary engine.Vocabulary `json:"statusVocabulary"`
	// AncestorEntries: set when not one entry per Gateway (Output).
	AncestorEntries AncestorEntries `json:"ancestorEntries,omitempty"`
	// FieldValidation: set when not warn (Output).
	FieldValidation crd.FieldValidation `json:"fieldValidation,omitempty"`
	Profiles        []string            `json:"profiles"`
}

// Reading is the reading that produced o.
func (o *Output) Reading() Reading {
	return Reading{Semantics: o.Semantics, StatusVocabulary: o.StatusVocabulary, AncestorEntries: o.AncestorEntries, FieldValidation: o.FieldValidation, Profiles: o.Profiles}
}

// LoadFiles reads paths ("-" is stdin) and builds the model (LoadInput).
func LoadFiles(paths []string, stdin io.Reader, opts Options) (*Model, error) {
	return LoadInput(Input{Files: paths, Stdin: stdin}, opts)
}

// FromObjects builds the model of objs, objects a caller holds decoded (a
// controller's, read from a cluster), as LoadFiles builds it from the same
// objects written as YAML on standard input: object i is document i+1 of
// "<stdin>" (load.Objects). Its limit: no error names a line, and
// opts.Limits.MaxBytes is not applied, the objects being in memory already.
func FromObjects(objs []map[string]any, opts Options) (*Model, error) {
	docs, err := load.Objects(load.StdinName, objs, opts.Limits)
	if err != nil {
		return nil, err
	}
	return build(docs, opts, true)
}

// LoadInput reads in (ReadInput) and builds the model; what the reading
// skipped is among the model's Warnings, first.
func LoadInput(in Input, opts Options) (*Model, error) {
	docs, warns, err := ReadInput(in, opts.Limits)
	if err != nil {
		return nil, err
	}
	m, err := build(docs, opts, true)
	if err != nil {
		if len(warns) > 0 {
			return nil, &LoadError{Err: err, Warnings: warns}
		}
		return nil, err
	}
	m.Warnings = append(warns, m.Warnings...)
	return m, nil
}

// Build classifies documents and builds the model. All problems found are
// returned together, each naming its file, document and field.
func Build(docs []*load.Doc, opts Options) (*Model, error) {
	return build(docs, opts, false)
}

// build is Build; with own, the documents are the builder's alone, and the
// raw form of an object decoded into its Go type is let go at once, so
// that the two are not both held for every object (docs/performance.md).
func build(docs []*load.Doc, opts Options, own bool) (*Model, error) {
	return buildWith(docs, opts, own, nil)
}

// buildWith is build; pre, when not nil, holds documents decoded already
// (BuildPair), and the builder decodes only the others.
func buildWith(docs []*load.Doc, opts Options, own bool, pre map[*load.Doc]predecoded) (*Model, error) {
	fv, err := crd.ParseFieldValidation(string(opts.FieldValidation))
	if err != nil {
		return nil, err
	}
	b := &builder{shared: pre, m: &Model{Graph: &topology.Graph{}, cel: opts.CEL, Vocabulary: opts.Vocabulary, AncestorEntries: opts.AncestorEntries, FieldValidation: fv, sources: map[string]load.Source{}}, seen: map[string]load.Source{}, own: own, noTimestamps: opts.IgnoreCreationTimestamps}
	b.run(docs, opts)
	// Paths are counted before any is walked: a small input can describe
	// a hierarchy with more paths than a machine can hold.
	if max := opts.Limits.OrDefault().MaxPaths; b.m.Graph.Prefixes(max) > max {
		b.fail(nil, "", "the hierarchy has more than %d path prefixes (the limit; --max-paths raises it): %d objects and their parent and child links multiply into more paths than a run should walk", max, len(b.m.Graph.Nodes))
	}
	if len(b.errs) > 0 {
		return nil, b.errs
	}
	return b.m, nil
}

type builder struct {
	m    *Model
	errs load.Errors
	seen map[string]load.Source
	// data holds, by the key of seen, the keys of an object's data with a
	// value that is not empty (a ConfigMap's ca.crt), for
	// profile.Reference.Keys.
	data map[string]map[string]bool
	pre  map[*load.Doc]predecoded // decodeAll
	// shared are documents decoded for two builds (BuildPair).
	shared map[*load.Doc]predecoded
	own    bool // build
	// noTimestamps: Options.IgnoreCreationTimestamps
	noTimestamps bool
	// labels of the objects of the hierarchy that have some, nsLabels of
	// the declared namespaces, and byKind the object nodes by kind
	// (selectors.go).
	labels   map[ref.Ref]labels.Set
	nsLabels map[string]map[string]string
	byKind   map[profile.GroupKind][]topology.NodeID
	// selectWarnings name the policies whose selectors select nothing,
	// added sorted (the output does not depend on document order).
	selectWarnings []string
	// crds are the input's CustomResourceDefinitions, optCRDs
	// Options.CRDs, and crdWarnings the fields storing pruned (crds.go).
	crds, optCRDs *crd.Set
	crdWarnings   []string
	// dups are the second and later objects of a key already seen, of
	// kinds only a profile may use (candidates): an error when one does,
	// else a warning (ignoredDuplicates).
	dups []duplicate
}

func (b *builder) fail(d *load.Doc, field, format string, a ...any) {
	e := &load.Error{Msg: fmt.Sprintf(format, a...), Field: field}
	if d != nil {
		e.Source, e.Object = d.At(field), d.Object()
	}
	b.errs = append(b.errs, e)
}

func (b *builder) decode(d *load.Doc, into any) bool {
	err := errNotDecoded
	if pre, ok := b.pre[d]; ok && reflect.TypeOf(pre.v) == reflect.TypeOf(into) {
		reflect.ValueOf(into).Elem().Set(reflect.ValueOf(pre.v).Elem())
		err = pre.err
		delete(b.pre, d)
	}
	if err == errNotDecoded {
		err = load.DecodeStrict(d, into)
	}
	if err != nil {
		if le, ok := err.(*load.Error); ok {
			b.errs = append(b.errs, le)
		} else {
			b.fail(d, "", "%v", err)
		}
		return false
	}
	return true
}

// errNotDecoded marks a document decodeAll left to decode.
var errNotDecoded = errors.New("not decoded")

// predecoded is a document decoded ahead by decodeAll.
type predecoded struct {
	v   any
	err error
}

// decodeAll decodes the documents of the Gateway API and core kinds on
// every CPU, ahead of run's loop, which takes them in order (strict
// decoding is most of the time spent building; docs/performance.md).
func decodeAll(docs []*load.Doc, release bool) map[*load.Doc]predecoded {
	out := make([]predecoded, len(docs))
	var wg sync.WaitGroup
	var next atomic.Int64
	for range min(runtime.GOMAXPROCS(0), len(docs)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(docs); i = int(next.Add(1) - 1) {
				if v := typed(docs[i]); v != nil {
					out[i] = predecoded{v, load.DecodeStrict(docs[i], v)}
					if release && out[i].err == nil {
						docs[i].Raw = nil
					}
				}
			}
		})
	}
	wg.Wait()
	m := make(map[*load.Doc]predecoded, len(docs))
	for i, p := range out {
		if p.v != nil {
			m[docs[i]] = p
		}
	}
	return m
}

func (b *builder) run(docs []*load.Doc, opts Options) {
	if b.shared != nil {
		b.pre = make(map[*load.Doc]predecoded, len(b.shared))
		for _, d := range docs {
			if p, ok := b.shared[d]; ok {
				b.pre[d] = p
			}
		}
	} else {
		b.pre = decodeAll(docs, b.own)
	}
	var g gathered
	var candidates []*load.Doc
	for _, d := range docs {
		if d.Namespace == "" && namespaced(d) {
			d.Namespace = "default"
		}
		key := d.Group + "/" + d.Kind + "/" + d.Namespace + "/" + d.Name
		if prev, dup := b.seen[key]; dup {
			if builtKind(d.Group, d.Kind) {
				b.fail(d, "metadata.name", "duplicate object: %s is also defined at %s", d.Object(), prev)
			} else {
				b.dups = append(b.dups, duplicate{d, prev})
			}
			continue
		}
		b.seen[key] = d.Source
		if !b.served(d) {
			continue
		}
		if read, ok := readers[groupKind{d.Group, d.Kind}]; ok {
			read(b, d, &g)
			continue
		}
		b.candidateData(d, key)
		candidates = append(candidates, d)
	}
	b.m.Graph.AddGatewayAPI(g.gw)
	b.m.Grants = topology.Grants(g.gw.ReferenceGrants)
	for _, d := range g.generic {
		var t topology.GenericTopology
		if b.decode(d, &t) {
			if err := b.m.Graph.AddGeneric(t.Spec); err != nil {
				b.fail(d, "", "%v", err)
			}
		}
	}
	b.m.Graph.Sort()
	b.m.Warnings = append(b.m.Warnings, b.m.Graph.Warnings...)
	profiles := b.profiles(opts, g.profiles, candidates)
	b.optCRDs = opts.CRDs
	b.policies(profiles, candidates)
	b.m.Warnings = append(b.m.Warnings, b.sortedCRDWarnings()...)
	slices.Sort(b.selectWarnings)
	b.m.Warnings = append(b.m.Warnings, b.selectWarnings...)
	b.references()
}

// references resolves the references of every kind's policies against
// the objects of the input (ResolveReferences).
func (b *builder) references() {
	lookup := func(key string) (map[string]bool, bool) {
		_, ok := b.seen[key]
		return b.data[key], ok
	}
	for _, k := range b.m.Kinds {
		ResolveReferences(k, lookup)
	}
}

// ResolveReferences rejects each policy of k whose references in a field
// of its profile's References all fail to resolve (profile.Reference:
// Accepted=False with the field's Reason), and records, in k.Refs, the
// field's Condition where it has one. lookup says whether the input has
// the object "group/kind/namespace/name", and the keys of its data whose
// value is not empty.
func ResolveReferences(k *Kind, lookup func(key string) (data map[string]bool, ok bool)) {
	for _, ref := range k.Profile.Spec.References {
		for i := range k.Policies {
			p := &k.Policies[i]
			if p.Intent.Invalid != "" {
				continue
			}
			v := any(p.Intent.SpecProper)
			for _, f := range strings.Split(ref.Field, ".") {
				m, _ := v.(map[string]any)
				v = m[f]
			}
			list, _ := v.([]any)
			var bad, why []string
			reason := ""
			for _, e := range list {
				entry, problem, r := referenceProblem(ref, e, p.Ref.Namespace, lookup)
				if problem == "" {
					continue
				}
				bad = append(bad, entry)
				why = append(why, problem)
				if reason == "" {
					reason = r
				}
			}
			if len(list) > 0 && len(bad) == len(list) {
				p.Intent.Invalid = fmt.Sprintf("no reference in spec.%s resolves (%s)", ref.Field, strings.Join(bad, ", "))
				p.Intent.InvalidReason = ref.Reason
			}
			c := ref.Condition
			if c == nil {
				continue
			}
			if k.Refs == nil {
				k.Refs = map[string]engine.Condition{}
			}
			if prev, ok := k.Refs[p.Ref.String()]; ok && prev.Status == "False" {
				continue // the first field with an invalid reference tells
			}
			cond := engine.Condition{Type: c.Type, Status: "True", Reason: c.Resolved, Message: "every reference in spec." + ref.Field + " resolves"}
			switch reason {
			case "kind":
				cond = engine.Condition{Type: c.Type, Status: "False", Reason: c.InvalidKind, Message: "spec." + ref.Field + ": " + strings.Join(why, "; ")}
			case "ref":
				cond = engine.Condition{Type: c.Type, Status: "False", Reason: c.Invalid, Message: "spec." + ref.Field + ": " + strings.Join(why, "; ")}
			}
			k.Refs[p.Ref.String()] = cond
		}
	}
}

// referenceProblem judges one reference e of a policy in namespace ns: its
// "kind name", and the problem and its reason ("kind" or "ref") when it
// does not resolve (a kind ref does not allow, no such object, a key
// missing from its data).
func referenceProblem(ref profile.Reference, e any, ns string, lookup func(key string) (data map[string]bool, ok bool)) (entry, problem, reason string) {
	m, _ := e.(map[string]any)
	g, _ := m["group"].(string)
	kind, _ := m["kind"].(string)
	name, _ := m["name"].(string)
	entry = kind + " " + name
	allowed := slices.ContainsFunc(ref.Kinds, func(gk profile.GroupKind) bool { return gk.Group == g && gk.Kind == kind })
	data, found := lookup(g + "/" + kind + "/" + ns + "/" + name)
	switch {
	case !allowed:
		return entry, fmt.Sprintf("%s %s: kind %s is not supported", kind, name, groupKindName(g, kind)), "kind"
	case !found:
		return entry, fmt.Sprintf("%s %s: not found", kind, name), "ref"
	}
	for _, want := range ref.Keys {
		if !data[want] {
			return entry, fmt.Sprintf("%s %s: no %s", kind, name, want), "ref"
		}
	}
	return entry, "", ""
}

// groupKindName is kind, or kind.group for a group other than the core.
func groupKindName(group, kind string) string {
	if group == "" {
		return kind
	}
	return kind + "." + group
}

// namespaced reports whether objects of d's kind live in a namespace.
func namespaced(d *load.Doc) bool {
	switch {
	case d.Group == GatewayGroup && d.Kind == "GatewayClass",
		d.Group == "" && d.Kind == "Namespace",
		d.Group == CRDGroup && d.Kind == CRDKind,
		d.Group == GepcheckGroup:
		return false
	}
	return true
}

// checkListeners rejects listeners without a unique name: GEP-713,
// "Targeting sections of an object" requires them to be uniquely named.
func (b *builder) checkListeners(d *load.Doc, g *gwv1.Gateway) {
	b.checkNames(d, len(g.Spec.Listeners), func(i int) gwv1.SectionName { return g.Spec.Listeners[i].Name })
}

// checkNames rejects the listeners of a Gateway or a ListenerSet without a
// name unique in their object (GEP-1713, Listener Validation: "Within a
// single resource such as a Gateway or ListenerSet, the list of listeners
// MUST have unique names").
func (b *builder) checkNames(d *load.Doc, n int, name func(int) gwv1.SectionName) {
	seen := map[gwv1.SectionName]bool{}
	for i := range n {
		l := name(i)
		if l == "" {
			b.fail(d, fmt.Sprintf("spec.listeners[%d].name", i), "a listener needs a name")
		} else if seen[l] {
			b.fail(d, fmt.Sprintf("spec.listeners[%d].name", i), "listener name %q is used twice", l)
		}
		seen[l] = true
	}
}

// served refuses an object of a Gateway API kind at a version Gateway API
// v1.6.3's CRDs do not serve (topology.ServedVersions): an API server with
// those CRDs would not store it.
func (b *builder) served(d *load.Doc) bool {
	s, ok := topology.LookupServed(d.Group, d.Kind)
	if !ok || s.Serves(d.Version) {
		return true
	}
	b.fail(d, "apiVersion", "Gateway API %s does not serve %s at %s: it serves %s", topology.GatewayAPIVersion, d.Kind, d.APIVersion, s.Describe())
	return false
}

func (b *builder) checkRules(d *load.Doc, n int, name func(int) *gwv1.SectionName) {
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		if nm := name(i); nm != nil {
			if seen[string(*nm)] {
				b.fail(d, fmt.Sprintf("spec.rules[%d].name", i), "rule name %q is used twice", *nm)
			}
			seen[string(*nm)] = true
		}
	}
}

// profileFile reads every document of a --profile file as the input's
// documents are read (the same limits, and errors naming file, document,
// line and field): each must be a PolicyProfile, and each is used.
func (b *builder) profileFile(file string, lim load.Limits) []*profile.Profile {
	docs, err := load.ReadLimited([]string{file}, nil, lim)
	if err != nil {
		b.fail(nil, "", "--profile %v", err)
		return nil
	}
	if len(docs) == 0 {
		b.fail(nil, "", "--profile %s: holds no PolicyProfile", file)
	}
	var out []*profile.Profile
	for _, d := range docs {
		if d.Group != GepcheckGroup || d.Kind != "PolicyProfile" {
			b.fail(d, "kind", "a --profile file holds PolicyProfile documents (apiVersion %s/v1alpha1), not %s", GepcheckGroup, d.Kind)
			continue
		}
		var p profile.Profile
		if !b.decode(d, &p) {
			continue
		}
		p.Source = d.Source.String()
		if err := p.Validate(); err != nil {
			b.fail(d, fieldOf(err), "%v", msgOf(err))
			continue
		}
		out = append(out, &p)
	}
	return out
}

// profiles resolves the profiles to use, in order of preference: --profile,
// PolicyProfile documents, the Scenario's profiles, built-ins by kind.
func (b *builder) profiles(opts Options, inInput []*profile.Profile, candidates []*load.Doc) []*profile.Profile {
	builtins, err := profile.Builtins()
	if err != nil {
		b.fail(nil, "", "built-in profiles: %v", err)
		return nil
	}
	var out []*profile.Profile
	named := opts.Profiles
	if len(named) == 0 && b.m.Scenario != nil {
		named = b.m.Scenario.Spec.Profiles
	}
	for _, n := range named {
		out = append(out, b.namedProfile(n, builtins, inInput, opts)...)
	}
	if len(named) == 0 {
		out = append(out, inInput...)
	}
	// Built-ins for the remaining policy kinds, when unambiguous.
	have := map[string]bool{}
	for _, p := range out {
		k := p.Spec.Policy.Group + "/" + p.Spec.Policy.Kind
		if have[k] {
			b.fail(nil, "", "two profiles for %s: pass one --profile", p.Spec.Policy.Kind)
		}
		have[k] = true
	}
	if len(named) > 0 {
		return out
	}
	asked := map[string]bool{}
	for _, d := range candidates {
		k := d.Group + "/" + d.Kind
		if have[k] || asked[k] {
			continue
		}
		asked[k] = true
		match := builtinsFor(builtins, d.Group, d.Kind)
		switch len(match) {
		case 1:
			out = append(out, builtins[match[0]])
			have[k] = true
		case 0:
		default:
			b.fail(d, "kind", "%s matches the built-in profiles %s: pass --profile to choose one", d.Kind, strings.Join(match, ", "))
		}
	}
	return out
}

// namedProfile finds the profile named n (--profile or a Scenario's
// spec.profiles): a built-in, the input's PolicyProfiles of that name, or
// the PolicyProfiles of file n.
func (b *builder) namedProfile(n string, builtins map[string]*profile.Profile, inInput []*profile.Profile, opts Options) []*profile.Profile {
	if p, ok := builtins[n]; ok {
		return []*profile.Profile{p}
	}
	var out []*profile.Profile
	for _, p := range inInput {
		if p.Metadata.Name == n {
			out = append(out, p)
		}
	}
	if len(out) > 0 {
		return out
	}
	if _, err := os.Stat(n); err != nil {
		b.fail(nil, "", "--profile %s: not a built-in profile (%s) nor a readable file: %v%s", n, strings.Join(profile.BuiltinNames(), ", "), err, didYouMean(n, profile.BuiltinNames()))
		return nil
	}
	return b.profileFile(n, opts.Limits)
}

// builtinsFor names the built-in profiles of a policy kind that are not
// alternatives, in the order of their names.
func builtinsFor(builtins map[string]*profile.Profile, group, kind string) []string {
	var match []string
	for _, n := range profile.BuiltinNames() {
		p := builtins[n]
		if p.Spec.Policy.Group == group && p.Spec.Policy.Kind == kind && !p.Spec.Alternative {
			match = append(match, n)
		}
	}
	return match
}

func (b *builder) policies(profiles []*profile.Profile, candidates []*load.Doc) {
	byKind := map[string]*Kind{}
	for _, p := range profiles {
		k := &Kind{Profile: p}
		byKind[p.Spec.Policy.Group+"/"+p.Spec.Policy.Kind] = k
		b.m.Kinds = append(b.m.Kinds, k)
	}
	ignored := map[string]bool{}
	for _, p := range profiles {
		for _, r := range p.Spec.References {
			for _, gk := range r.Kinds {
				ignored[gk.Kind] = true // read for references, not ignored
			}
		}
	}
	for _, d := range candidates {
		k := byKind[d.Group+"/"+d.Kind]
		if k == nil {
			if d.Group == "" && d.Kind == "Secret" {
				// A Gateway listener's certificate (Gateway API v1
				// GatewayTLSConfig.CertificateRefs): input of the
				// Gateway, outside the hierarchy, and no stray object.
				continue
			}
			if !ignored[d.Kind] {
				if _, gatewayAPI := topology.LookupServed(d.Group, d.Kind); gatewayAPI {
					b.m.Warnings = append(b.m.Warnings, fmt.Sprintf("%s: kind %s ignored: a Gateway API kind outside the hierarchy of targets, and no profile's policy kind (pass --profile for a policy kind)", d.Source, d.Kind))
				} else {
					b.m.Warnings = append(b.m.Warnings, fmt.Sprintf("%s: kind %s ignored: it is neither a Gateway API object nor a policy kind of a profile", d.Source, d.Kind))
				}
				ignored[d.Kind] = true
			}
			continue
		}
		if p, ok := b.policy(d, k.Profile); ok {
			k.Policies = append(k.Policies, p)
		}
	}
	b.duplicates(byKind, profiles)
	for _, k := range b.m.Kinds {
		engine.AddVirtualTargets(b.m.Graph, k.Profile, k.Policies)
	}
	b.m.Graph.Sort()
}

// duplicate is an object whose key an earlier one, at prev, has.
type duplicate struct {
	doc  *load.Doc
	prev load.Source
}

// builtKind reports whether the builder reads objects of group/kind
// itself (the cases of run's switch, and all of gepcheck's own kinds):
// the rest are candidates, used only when a profile names them.
func builtKind(group, kind string) bool {
	switch group {
	case GatewayGroup:
		switch kind {
		case "GatewayClass", "Gateway", "HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute", "ListenerSet", "ReferenceGrant":
			return true
		}
	case "":
		return kind == "Service" || kind == "Namespace"
	case GepcheckGroup:
		return true
	case CRDGroup:
		return kind == CRDKind // the policies of its kind are stored with it
	}
	return false
}

// duplicates judges the duplicates of candidate kinds once the profiles
// are known: a duplicate of a kind the profiles use (a policy kind, or a
// kind a policy references) is an error naming both places, as two
// objects with one name cannot both be stored; one of a kind gepcheck
// ignores is a warning (docs/input.md, Folders).
func (b *builder) duplicates(byKind map[string]*Kind, profiles []*profile.Profile) {
	referenced := map[string]bool{}
	for _, p := range profiles {
		for _, r := range p.Spec.References {
			for _, gk := range r.Kinds {
				referenced[gk.Group+"/"+gk.Kind] = true
			}
		}
	}
	for _, x := range b.dups {
		gk := x.doc.Group + "/" + x.doc.Kind
		if byKind[gk] != nil || referenced[gk] {
			b.fail(x.doc, "metadata.name", "duplicate object: %s is also defined at %s", x.doc.Object(), x.prev)
			continue
		}
		b.m.Warnings = append(b.m.Warnings, fmt.Sprintf("%s: duplicate object %s (also defined at %s) ignored: no profile uses kind %s", x.doc.Source, x.doc.Object(), x.prev, x.doc.Kind))
	}
}

// policy reads a policy object through its profile.
func (b *builder) policy(d *load.Doc, p *profile.Profile) (engine.Policy, bool) {
	pol := engine.Policy{Ref: ref.Ref{Group: d.Group, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name}}
	b.m.sources[pol.Ref.String()] = d.Source
	if !b.creationTimestamp(d, &pol) {
		return pol, false
	}
	spec, ok := d.Raw["spec"].(map[string]any)
	if !ok {
		b.fail(d, "spec", "a %s needs a spec", d.Kind)
		return pol, false
	}
	// As the API server stores it, where the kind's CRD is known.
	schema, known := b.schemaFor(d, b.optCRDs)
	if !known {
		return pol, false
	}
	var written map[string]any
	var changes *profile.StoredChanges
	if schema != nil {
		var stored map[string]any
		if written, stored, changes, ok = b.storePolicy(d, schema); !ok {
			return pol, false
		}
		spec = stored
	}
	refs, ok := spec["targetRefs"].([]any)
	singleRef := false
	if single, has := spec["targetRef"]; has {
		// GEP-2649, Policy TargetRef API: "Each Policy resource MUST
		// include a single targetRef field".
		if ok {
			b.fail(d, "spec.targetRef", "set either targetRef (GEP-2649) or targetRefs (GEP-713), not both")
			return pol, false
		}
		refs, ok = []any{single}, true
		singleRef = true
	}
	selected, selectors, valid := b.selectTargets(d, p, &pol, spec)
	if !valid {
		return pol, false
	}
	if (!ok || len(refs) == 0) && !selectors {
		// GEP-713: "Every policy MUST include a targetRefs stanza".
		b.fail(d, "spec.targetRefs", "a policy must list its targets in spec.targetRefs (GEP-713, Policy structure)%s", orSelectors(p))
		return pol, false
	}
	for i, r := range refs {
		field := fmt.Sprintf("spec.targetRefs[%d]", i)
		if singleRef {
			field = "spec.targetRef"
		}
		tr, ok := b.targetRef(d, field, r)
		if !ok {
			return pol, false
		}
		pol.TargetRefs = append(pol.TargetRefs, tr)
	}
	pol.TargetRefs = append(pol.TargetRefs, selected...)
	if schema != nil {
		pol.Intent = p.InterpretStored(written, spec, changes)
	} else {
		pol.Intent = p.Interpret(spec)
	}
	return pol, true
}

// creationTimestamp reads a policy's metadata.creationTimestamp, which
// decides precedence between policies (GEP-713, Conflict resolution).
func (b *builder) creationTimestamp(d *load.Doc, pol *engine.Policy) bool {
	meta, _ := d.Raw["metadata"].(map[string]any)
	ts, ok := meta["creationTimestamp"]
	if !ok || ts == nil {
		return true
	}
	s, isString := ts.(string)
	t, err := time.Parse(time.RFC3339, s)
	if !isString || err != nil {
		b.fail(d, "metadata.creationTimestamp", "%v is not an RFC 3339 time (e.g. 2024-01-02T15:04:05Z)", ts)
		return false
	}
	if !b.noTimestamps {
		pol.CreationTimestamp = &t
	}
	return true
}

// targetRef reads one entry of a policy's targetRefs (or its targetRef) at
// field: string fields group, kind, name, namespace and sectionName, kind
// and name required, each a name an object can have.
func (b *builder) targetRef(d *load.Doc, field string, r any) (engine.TargetRef, bool) {
	var tr engine.TargetRef
	m, ok := r.(map[string]any)
	if !ok {
		b.fail(d, field, "must be an object with group, kind and name")
		return tr, false
	}
	for _, f := range []struct {
		name     string
		into     *string
		required bool
	}{{"group", &tr.Group, false}, {"kind", &tr.Kind, true}, {"name", &tr.Name, true}, {"namespace", &tr.Namespace, false}, {"sectionName", &tr.SectionName, false}} {
		v, present := m[f.name]
		if !present || v == nil {
			if f.required {
				b.fail(d, field+"."+f.name, "is required")
				return tr, false
			}
			continue
		}
		s, isString := v.(string)
		if !isString {
			b.fail(d, field+"."+f.name, "must be a string, not %v", v)
			return tr, false
		}
		*f.into = s
	}
	for k := range m {
		switch k {
		case "group", "kind", "name", "namespace", "sectionName":
		default:
			b.fail(d, field+"."+k, "unknown field (targetRefs take group, kind, name, namespace and sectionName)")
			return tr, false
		}
	}
	// A name no object can have names nothing, and would reach paths and
	// messages (ref.NameErrors).
	for _, f := range []struct {
		name, value string
		problems    []string
	}{
		{"name", tr.Name, ref.NameErrors(tr.Group, tr.Kind, tr.Name)},
		{"namespace", tr.Namespace, nonEmpty(tr.Namespace, ref.NamespaceErrors)},
		{"sectionName", tr.SectionName, nonEmpty(tr.SectionName, ref.SectionNameErrors)},
	} {
		if f.problems != nil {
			b.fail(d, field+"."+f.name, "%s", ref.Invalid(f.value, f.problems))
			return tr, false
		}
	}
	return tr, true
}

// orSelectors names a kind's label-selector field in an error about
// missing targets.
func orSelectors(p *profile.Profile) string {
	if ts := p.Spec.TargetSelectors; ts != nil {
		return " or spec." + ts.Field
	}
	return ""
}

// HasPolicies says, as an error, when there is nothing to simulate: an
// input with no objects at all (an empty file, only "---", an empty
// directory), or no policy of the kinds asked for.
func (m *Model) HasPolicies() error {
	var kinds []string
	for _, k := range m.Kinds {
		if len(k.Policies) > 0 {
			return nil
		}
		kinds = append(kinds, k.Profile.Spec.Policy.Kind)
	}
	if len(m.Graph.Nodes) == 0 {
		return errors.New("the input holds no objects")
	}
	return fmt.Errorf("the input has no %s to simulate", strings.Join(kinds, " or "))
}

// Run simulates every policy kind of the model; exclude, when not nil, names
// a policy to leave out.
func (m *Model) Run(sem engine.Semantics, exclude *ref.Ref) *Output {
	return m.run(sem, exclude, nil, false)
}

// RunDecisions is Run with the engine's record of how it decided each
// field (engine.Input.Decisions), which Explain and Decide read. Its JSON is
// Run's.
func (m *Model) RunDecisions(sem engine.Semantics) *Output {
	return m.run(sem, nil, nil, true)
}

// RunMutant simulates with a deliberately broken engine (engine.Mutants),
// so that tests can show a check catches it.
func (m *Model) RunMutant(sem engine.Semantics, mutant engine.Mutant) *Output {
	m.mutant = mutant
	defer func() { m.mutant = "" }()
	return m.run(sem, nil, nil, false)
}

func (m *Model) run(sem engine.Semantics, exclude, detail *ref.Ref, decisions bool) *Output {
	vocab := m.Vocabulary
	if vocab == "" {
		vocab = engine.VocabularyMerged
	}
	out := &Output{Semantics: sem, StatusVocabulary: vocab, Profiles: []string{}, Warnings: m.Warnings}
	if m.AncestorEntries != AncestorsPerGateway {
		out.AncestorEntries = m.AncestorEntries
	}
	if m.FieldValidation != crd.FieldValidationWarn {
		out.FieldValidation = m.FieldValidation
	}
	targets := map[string]*engine.TargetStatus{}
	for _, k := range m.Kinds {
		out.Profiles = append(out.Profiles, k.Profile.Metadata.Name)
		res := engine.Run(engine.Input{Graph: m.Graph, Profile: k.Profile, Policies: k.Policies, Grants: m.Grants, Semantics: sem, Vocabulary: vocab, Exclude: exclude, Detail: detail, Decisions: decisions, OwnFields: m.OwnFields, Mutant: m.mutant, CEL: m.cel})
		m.statusAncestors(k, res.Policies)
		out.LimitErrors = append(out.LimitErrors, res.LimitErrors...)
		if exclude == nil && detail == nil {
			w, ch := m.asWritten(k, sem, res)
			out.Written, out.Stored = append(out.Written, w...), append(out.Stored, ch...)
		}
		out.EffectivePolicies = append(out.EffectivePolicies, res.EffectivePolicies...)
		out.Policies = append(out.Policies, res.Policies...)
		for _, t := range res.Targets {
			if have := targets[t.Ref]; have != nil {
				have.Conditions = append(have.Conditions, t.Conditions...)
				have.AffectedBy = append(have.AffectedBy, t.AffectedBy...)
				continue
			}
			t := t
			targets[t.Ref] = &t
		}
	}
	for _, t := range targets {
		out.Targets = append(out.Targets, *t)
	}
	out.Warnings = append(slices.Clone(out.Warnings), partlyAccepted(out.Policies)...)
	sort.Strings(out.Profiles)
	out.Warnings = append(out.Warnings, StoredWarnings(out.Stored)...)
	sort.Slice(out.Targets, func(a, b int) bool { return out.Targets[a].Ref < out.Targets[b].Ref })
	if out.EffectivePolicies == nil {
		out.EffectivePolicies = []engine.EffectivePolicy{}
	}
	if out.Policies == nil {
		out.Policies = []engine.PolicyStatus{}
	}
	if out.Targets == nil {
		out.Targets = []engine.TargetStatus{}
	}
	return out
}

// Limits returns the limits out's run went over as errors naming each
// policy's file, document and field (docs/limits.md), or nil. The CLI
// refuses such input; a controller writes the policy's status instead.
func (m *Model) Limits(out *Output) error {
	var errs load.Errors
	for _, le := range out.LimitErrors {
		errs.Add(&load.Error{Source: m.sources[le.Policy], Object: le.Policy, Field: le.Field, Msg: fmt.Sprintf("%s (raise with %s)", le.Msg, le.Limit)})
	}
	return errs.Err()
}

// partlyAccepted warns of each target a policy names in vain while it is
// accepted for others: a typo in one of several targetRefs would otherwise
// show only in the policy's Accepted message and in explain.
func partlyAccepted(ps []engine.PolicyStatus) []string {
	var out []string
	for _, p := range ps {
		if c, ok := engine.FindCondition(p.Conditions, engine.TypeAccepted); !ok || c.Status != "True" {
			continue
		}
		for _, t := range p.Targets {
			if c, ok := engine.FindCondition(t.Conditions, engine.TypeAccepted); ok && c.Status == "False" {
				out = append(out, fmt.Sprintf("%s: accepted, but not for %s (%s: %s)", p.Ref, t.Ref, c.Reason, c.Message))
			}
		}
	}
	return out
}

// nonEmpty applies check to a set value.
func nonEmpty(v string, check func(string) []string) []string {
	if v == "" {
		return nil
	}
	return check(v)
}

func fieldOf(err error) string {
	if fe, ok := err.(*profile.FieldError); ok {
		return fe.Field
	}
	return ""
}

func msgOf(err error) string {
	if fe, ok := err.(*profile.FieldError); ok {
		return fe.Msg
	}
	return err.Error()
}
