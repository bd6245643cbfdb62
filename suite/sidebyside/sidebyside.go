// Package sidebyside puts an implementation's answer beside the
// reference's for one set of objects (`gepcheck simulate --impl`, `explain
// --impl`; docs/output.md, The implementation's answer): the effective
// settings the implementation produces on every path and the statuses it
// writes, next to the reference engine's under the reading the
// implementation claims, each difference named by the kept finding that
// explains it (scenarios/findings/IMPL/, matched by profile and kind of
// difference as `gepcheck run` and `fuzz` match them) or "new".
package sidebyside

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/gepcheck/gepcheck/scenarios"
	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/suite/compare"
	"github.com/gepcheck/gepcheck/suite/findings"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// New is the Finding of a difference no kept finding explains.
const New = "new"

// Result is both answers and how they differ.
type Result struct {
	// Implementation is the observer's name.
	Implementation string `json:"implementation"`
	// Reading is the reading of the specs that produced the reference
	// side: the semantics, status vocabulary and ancestor entries the
	// implementation claims (observe.Capabilities), and the profiles.
	Reading simulator.Reading `json:"reading"`
	// AncestorEntries is the reading of status per ancestor of the
	// reference side, always named: gateway or listener
	// (simulator.AncestorEntries; docs/semantics.md).
	AncestorEntries string `json:"ancestorEntries"`
	// Reference is the reference engine's answer, its effective specs
	// projected on what the implementation's output can show
	// (Capabilities.Readable) and only on the paths it can show
	// (Capabilities.Observable); NotObservable lists the others.
	Reference observe.Observation `json:"reference"`
	// Observed is the implementation's answer.
	Observed observe.Observation `json:"observed"`
	// NotObservable lists the reference's paths the implementation's
	// output cannot show (compared on neither side).
	NotObservable [][]string `json:"notObservable,omitempty"`
	// Conditions are the condition types compared (nil: all).
	Conditions []string `json:"conditions,omitempty"`
	// Differences are compare.Diff's, each named.
	Differences []Difference `json:"differences"`
	// Overridden lists the settings of the reading the user gave in
	// place of the implementation's claim (simulate --impl
	// --ancestor-entries, --semantics, --status-vocabulary); omitted when
	// the reading is the implementation's claim throughout.
	Overridden []Override `json:"overridden,omitempty"`

	model *simulator.Model
	out   *simulator.Output
	caps  observe.Capabilities
}

// Model is the reference's model of the objects (the policies a
// reference like kind/name -n ns is resolved against).
func (r *Result) Model() *simulator.Model { return r.model }

// Override is one setting of the reference's reading given by a flag in
// place of the one the implementation claims.
type Override struct {
	// Setting is the reading's setting: semantics, status vocabulary or
	// ancestor entries.
	Setting string `json:"setting"`
	// Flag is the command-line flag that gave it.
	Flag string `json:"flag"`
	// Claimed is the implementation's claim; Used, the flag's value.
	Claimed string `json:"claimed"`
	Used    string `json:"used"`
}

// Overrides names the settings of the reading given by flags in place of
// the implementation's claim (claimed): only those that differ from it.
func Overrides(claimed observe.Capabilities, sem engine.Semantics, voc engine.Vocabulary, anc *simulator.AncestorEntries) []Override {
	var out []Override
	if sem != "" && sem != claimed.Claim() {
		out = append(out, Override{Setting: "semantics", Flag: "--semantics", Claimed: string(claimed.Claim()), Used: string(sem)})
	}
	if voc != "" && voc != claimed.StatusVocabulary() {
		out = append(out, Override{Setting: "status vocabulary", Flag: "--status-vocabulary", Claimed: string(claimed.StatusVocabulary()), Used: string(voc)})
	}
	if anc != nil && *anc != claimed.AncestorEntries {
		out = append(out, Override{Setting: "ancestor entries", Flag: "--ancestor-entries", Claimed: claimed.AncestorEntries.Name(), Used: anc.Name()})
	}
	return out
}

// Difference is one difference with the kept finding that explains it.
type Difference struct {
	compare.Difference
	// Profile is the profile of the policy kind the difference is about.
	Profile string `json:"profile,omitempty"`
	// Kinds are the kinds of difference it is (compare.Kinds), as
	// findings files are named.
	Kinds []string `json:"kinds"`
	// Finding is the kept finding of the first kind that has one
	// (a file under the findings directory), or New.
	Finding string `json:"finding"`
	// Verdict and Requirement are the finding's triage.
	Verdict     string `json:"verdict,omitempty"`
	Requirement string `json:"requirement,omitempty"`
}

// Known are kept findings, read from DIR/IMPL/.
type Known struct {
	Dir     string
	Entries []findings.Entry
}

// ReadKnown reads the findings kept for implementation impl in dir
// (dir/impl/, every file a Finding document, findings.Read); a directory
// that does not exist holds none.
func ReadKnown(dir, impl string) (*Known, error) {
	k := &Known{Dir: filepath.Join(dir, impl)}
	if _, err := os.Stat(k.Dir); errors.Is(err, os.ErrNotExist) {
		return k, nil
	}
	files, err := scenarios.Files([]string{k.Dir})
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		e, err := findings.Read(f)
		if err != nil {
			return nil, err
		}
		e.File = filepath.ToSlash(f)
		k.Entries = append(k.Entries, e)
	}
	return k, nil
}

// Name returns the kept finding of profile with one of kinds (in order),
// as `gepcheck run` and `fuzz` triage a kind of difference: a finding of
// the profile (findings.Entry.Profile, offline or kept from a cluster run)
// and whose kind is the kind.
func (k *Known) Name(profile string, kinds []string) (findings.Entry, bool) {
	if k == nil {
		return findings.Entry{}, false
	}
	for _, kind := range kinds {
		for _, e := range k.Entries {
			if e.Profile == profile && e.Kind == kind {
				return e, true
			}
		}
	}
	return findings.Entry{}, false
}

// Run observes case c with the implementation d and with the reference as
// d's capabilities read it, and names every difference by a finding of
// known (nil: none kept). An error is the implementation failing to run
// at all, or the case not loading for the reference.
func Run(ctx context.Context, d observe.Observer, c observe.Case, known *Known) (*Result, error) {
	caps := d.Capabilities()
	m, err := observe.ReferenceModel(c, caps)
	if err != nil {
		return nil, err
	}
	out := m.RunDecisions(caps.Claim())
	want := observe.FromOutput(c.Name, out)
	want.Effective = mergePaths(want.Effective)
	obs, err := d.Observe(ctx, []observe.Case{c})
	if err != nil {
		return nil, err
	}
	if len(obs) != 1 {
		return nil, fmt.Errorf("%s returned %d observations for one case", d.Name(), len(obs))
	}
	got := obs[0]
	got.Effective = distinctPaths(got.Effective)
	r := &Result{Implementation: d.Name(), Reading: out.Reading(), Observed: got, Conditions: caps.Conditions, model: m, out: out, caps: caps}
	r.Reading.AncestorEntries = caps.AncestorEntries
	r.AncestorEntries = caps.AncestorEntries.Name()
	r.Reference = want
	r.Reference.Effective = nil
	for _, p := range want.Effective {
		if caps.Observable != nil && !caps.Observable(p.Path, &got) {
			r.NotObservable = append(r.NotObservable, p.Path)
			continue
		}
		if caps.Readable != nil {
			p.Spec = caps.Readable(p.Spec)
		}
		r.Reference.Effective = append(r.Reference.Effective, p)
	}
	if r.Reference.Effective == nil {
		r.Reference.Effective = []observe.Path{}
	}
	r.Differences = []Difference{}
	for _, dif := range compare.Diff(want, got, caps) {
		nd := Difference{Difference: dif, Profile: profileOf(m, dif), Kinds: compare.Kinds([]compare.Difference{dif}), Finding: New}
		if e, ok := known.Name(nd.Profile, nd.Kinds); ok {
			nd.Finding, nd.Verdict, nd.Requirement = e.File, string(e.Triage.Verdict), e.Triage.Requirement
		}
		r.Differences = append(r.Differences, nd)
	}
	return r, nil
}

// mergePaths makes one entry of the entries of the same path (one per
// policy kind in the reference's output): the kinds an implementation
// reads back into one proxy configuration set distinct top-level fields.
func mergePaths(ps []observe.Path) []observe.Path {
	var out []observe.Path
	at := map[string]int{}
	for _, p := range ps {
		k := strings.Join(p.Path, " > ")
		i, ok := at[k]
		if !ok {
			at[k] = len(out)
			out = append(out, observe.Path{Path: p.Path, Spec: maps.Clone(p.Spec)})
			continue
		}
		if out[i].Spec == nil {
			out[i].Spec = map[string]any{}
		}
		maps.Copy(out[i].Spec, p.Spec)
	}
	return out
}

// distinctPaths keeps one entry of entries that are the same path and
// spec (an implementation configures a route rule once per match).
func distinctPaths(ps []observe.Path) []observe.Path {
	out := []observe.Path{}
	seen := map[string]bool{}
	for _, p := range ps {
		k := strings.Join(p.Path, " > ") + "\x00" + specKey(p.Spec)
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}

// profileOf is the profile of the policy kind a difference is about: the
// kind of the policy (a condition), of the policies setting the fields
// that differ (an effective setting), of the Affected condition's policy
// kind (a target condition), else the first kind of the model.
func profileOf(m *simulator.Model, d compare.Difference) string {
	if len(m.Kinds) == 0 {
		return ""
	}
	byKind := func(kind string) string {
		for _, k := range m.Kinds {
			if k.Profile.Spec.Policy.Kind == kind {
				return k.Profile.Metadata.Name
			}
		}
		return ""
	}
	switch d.Kind {
	case compare.PolicyCondition, compare.StatusRule:
		if kind, _, ok := strings.Cut(d.Ref, "/"); ok {
			if p := byKind(kind); p != "" {
				return p
			}
		}
	case compare.TargetCondition:
		for _, k := range m.Kinds {
			if strings.Contains(d.Condition, k.Profile.Spec.Policy.Kind) {
				return k.Profile.Metadata.Name
			}
		}
	case compare.Effective, compare.ExtraEffective:
		for _, f := range d.Fields {
			for _, k := range m.Kinds {
				for _, p := range k.Policies {
					if _, ok := p.Intent.SpecProper[f]; ok {
						return k.Profile.Metadata.Name
					}
				}
			}
		}
	}
	return m.Kinds[0].Profile.Metadata.Name
}

// specKey is a spec as JSON (keys sorted).
func specKey(spec map[string]any) string {
	b, _ := json.Marshal(spec)
	return string(b)
}
