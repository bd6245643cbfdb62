// Package findings reads and checks the findings files gepcheck keeps
// (scenarios/findings/, docs/properties.md, docs/implementations.md): a
// shrunk scenario and the differences it shows, with their triage. A kept
// finding reproduces when a run shows exactly the differences it records
// (Reproduce).
package findings

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/suite"
	"github.com/gepcheck/gepcheck/suite/compare"
)

// Implementation is the header document of a findings file of a
// differential run (report.WriteFinding): a shrunk scenario on which an
// implementation and gepcheck's reference disagree.
type Implementation struct {
	APIVersion string                 `json:"apiVersion"`
	Kind       string                 `json:"kind"`
	Metadata   simulator.ScenarioMeta `json:"metadata"`
	Spec       ImplementationSpec     `json:"spec"`
}

// ImplementationSpec holds both outcomes and their differences.
type ImplementationSpec struct {
	Implementation string `json:"implementation"`
	Replay         string `json:"replay"`
	// Differences are what the finding shows, as the comparison typed
	// them: a run reproduces the finding when it shows exactly these
	// (compare.Reproduce).
	Differences []compare.Difference `json:"differences"`
	// Expected and Observed are observe.Observations: the reference's and
	// the implementation's.
	Expected    any           `json:"expected"`
	Observed    any           `json:"observed"`
	Explanation string        `json:"explanation"`
	Triage      *suite.Triage `json:"triage"`
}

// Entry is a findings file as `gepcheck findings` lists it: its
// Finding document, of either form, and its triage.
type Entry struct {
	File           string `json:"file"`
	Name           string `json:"name"`
	Implementation string `json:"implementation,omitempty"`
	// Profile is the policy profile the run was named after:
	// Implementation, without ClusterPrefix for a finding made in a
	// cluster (report.WriteFinding); empty for a property's.
	Profile  string `json:"-"`
	Property string `json:"property,omitempty"`
	// Kind is the kind of difference the file was shrunk for (its name
	// after the implementation's, report.WriteFinding), or the property.
	Kind string `json:"kind"`
	// Run is the implementation, its version and the mode of the run
	// that found it, read from the replay command it records (spec.replay:
	// --impl NAME, --NAME-version V, --cluster); empty for a property's.
	Run         Run          `json:"run,omitzero"`
	Differences []string     `json:"differences"`
	Triage      suite.Triage `json:"triage"`
}

// ClusterPrefix comes before the profile in spec.implementation of a
// finding a cluster run wrote (gepcheck run --cluster --random).
const ClusterPrefix = "cluster-"

// Run names what a finding of an implementation was found on.
type Run struct {
	// Implementation is the plug-in (--impl NAME).
	Implementation string `json:"implementation,omitempty"`
	// Version is the implementation's version (--NAME-version), e.g.
	// v1.9.1; empty when the replay names none.
	Version string `json:"version,omitempty"`
	// Mode is offline (a translator) or the --cluster provider.
	Mode string `json:"mode,omitempty"`
}

// ReplayRun reads the run a replay command (gepcheck run|fuzz ... --impl
// NAME [--NAME-version V] [--cluster C]) names: its flags only, each a
// word as report.WriteFinding writes it; the zero Run for a command
// without --impl (a property's).
func ReplayRun(replay string) Run {
	words := strings.Fields(replay)
	value := func(flag string) string {
		for i, w := range words {
			if v, ok := strings.CutPrefix(w, flag+"="); ok {
				return v
			}
			if w == flag && i+1 < len(words) {
				return words[i+1]
			}
		}
		return ""
	}
	r := Run{Implementation: value("--impl")}
	if r.Implementation == "" {
		return Run{}
	}
	r.Version = value("--" + r.Implementation + "-version")
	r.Mode = value("--cluster")
	if r.Mode == "" {
		r.Mode = "offline"
	}
	return r
}

// Read reads the Finding document of a findings file strictly and
// checks its triage (Triage.Check); an error names the file, the document
// and the field.
func Read(file string) (Entry, error) {
	docs, err := load.Read([]string{file}, nil)
	if err != nil {
		return Entry{}, err
	}
	i := slices.IndexFunc(docs, func(d *load.Doc) bool { return d.Group == simulator.GepcheckGroup && d.Kind == "Finding" })
	if i < 0 {
		return Entry{}, fmt.Errorf("%s: not a finding: no Finding document (apiVersion gepcheck.dev/v1alpha1, kind Finding)", file)
	}
	d := docs[i]
	out := Entry{File: file, Name: d.Name}
	var triage *suite.Triage
	if spec, _ := d.Raw["spec"].(map[string]any); spec["implementation"] != nil {
		var f Implementation
		if err := load.DecodeStrict(d, &f); err != nil {
			return Entry{}, err
		}
		base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		out.Implementation, triage = f.Spec.Implementation, f.Spec.Triage
		out.Profile = strings.TrimPrefix(f.Spec.Implementation, ClusterPrefix)
		out.Run = ReplayRun(f.Spec.Replay)
		for _, dif := range f.Spec.Differences {
			out.Differences = append(out.Differences, dif.String())
		}
		out.Kind = strings.TrimPrefix(base, f.Spec.Implementation+"-")
	} else {
		var f suite.Finding
		if err := load.DecodeStrict(d, &f); err != nil {
			return Entry{}, err
		}
		out.Property, out.Kind, triage = f.Spec.Property, f.Spec.Property, f.Spec.Triage
		for _, dis := range f.Spec.Differences {
			out.Differences = append(out.Differences, dis.Key())
		}
	}
	if triage == nil {
		return Entry{}, &load.Error{Source: d.At("spec"), Object: d.Object(), Field: "spec.triage",
			Msg: "missing: say whether the finding contradicts a MUST or SHOULD (quoted), is undefined by the specs or a profile gap, or verdict: untriaged"}
	}
	var errs load.Errors
	for _, p := range triage.Check() {
		field := "spec.triage." + p.Field
		errs.Add(&load.Error{Source: d.At(field), Object: d.Object(), Field: field, Msg: p.Msg})
	}
	if err := errs.Err(); err != nil {
		return Entry{}, err
	}
	out.Triage = *triage
	return out, nil
}
