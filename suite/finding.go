package suite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/load"
	"github.com/gepcheck/gepcheck/simulator/ref"
)

// Finding is the header document of a findings file: a minimal scenario on
// which two readings of the specs disagree. A finding is an output of the
// suite, not a test expectation.
type Finding struct {
	APIVersion string                 `json:"apiVersion"`
	Kind       string                 `json:"kind"`
	Metadata   simulator.ScenarioMeta `json:"metadata"`
	Spec       FindingSpec            `json:"spec"`
}

// FindingSpec explains a finding.
type FindingSpec struct {
	Property    string         `json:"property"`
	Cite        string         `json:"cite"`
	Explanation string         `json:"explanation"`
	Replay      string         `json:"replay"`
	Differences []Disagreement `json:"differences"`
	Triage      *Triage        `json:"triage"`
}

// Disagreement is one path where the semantics differ.
type Disagreement struct {
	Path       []string                     `json:"path"`
	Stack      []string                     `json:"stack"`
	Outcomes   map[string]any               `json:"outcomes"`
	Provenance map[string]map[string]string `json:"provenance"`
}

const stickyVsGEP713 = `Two readings of the same policies. gep-713 follows GEP-713's "Abstract
process for calculating Effective policies" literally: pop the two policies on
top of the stack, combine them with the strategy of the first (the
established, higher one: "the spec assigned as established MUST dictate the
merge strategy"), and give the result the strategy of the second (flowchart
step H). So a Patch default above an Atomic override merges with it instead of
being replaced, and once an override has been combined with a default below
it, the result is a default again that policies further down can beat.
sticky-overrides reads overrides as GEP-2649's Hierarchy does (A override >
B override > C override > C default > B default > A default): an override is
never beaten from below, and an Atomic override replaces everything of lower
precedence in its entirety. Each difference below lists the path's stack
(established first) with the strategy each policy selected, and the outcome
and provenance under both semantics. docs/semantics.md explains why gepcheck
defaults to sticky-overrides.`

// stickyVsGEP713Triage: the finding is about the specs, read two ways.
var stickyVsGEP713Triage = Triage{Verdict: UndefinedBySpecs,
	Note: "GEP-713's abstract process read literally (flowchart step H) and GEP-2649's " +
		"Hierarchy (an override is never beaten from below) give different effective policies " +
		"here, and neither spec says which reading wins. docs/semantics.md says why gepcheck " +
		"defaults to sticky-overrides."}

// Disagreements runs a scenario under both semantics and lists the paths
// where the effective policies differ.
func Disagreements(m *simulator.Model) []Disagreement {
	a, b := m.Run(engine.GEP713, nil), m.Run(engine.StickyOverrides, nil)
	strategy := map[string]string{}
	for _, p := range a.Policies {
		strategy[p.Ref] = p.Strategy
	}
	sticky := map[string]engine.EffectivePolicy{}
	for _, e := range b.EffectivePolicies {
		sticky[pathKey(e.Path)] = e
	}
	var out []Disagreement
	for _, e := range a.EffectivePolicies {
		s := sticky[pathKey(e.Path)]
		if canonical(s.Spec) == canonical(e.Spec) {
			continue
		}
		var stack []string
		for _, p := range e.Policies {
			stack = append(stack, p+" ("+strategy[p]+")")
		}
		out = append(out, Disagreement{
			Path:       e.Path,
			Stack:      stack,
			Outcomes:   map[string]any{string(engine.GEP713): e.Spec, string(engine.StickyOverrides): s.Spec},
			Provenance: map[string]map[string]string{string(engine.GEP713): e.Provenance, string(engine.StickyOverrides): s.Provenance},
		})
	}
	return out
}

// WriteFinding writes the counterexample of a failed finding property to
// dir/NAME.yaml: the Finding document, then the scenario's objects.
func WriteFinding(dir, name string, out Outcome) (string, error) {
	p, ok := Lookup(out.Property)
	if !ok {
		return "", fmt.Errorf("no property %s", out.Property)
	}
	s, _, _ := out.Capture.Last()
	if s == nil {
		return "", fmt.Errorf("%s recorded no scenario", out.Property)
	}
	m, err := s.Model()
	if err != nil {
		return "", err
	}
	f := Finding{APIVersion: "gepcheck.dev/v1alpha1", Kind: "Finding", Metadata: simulator.ScenarioMeta{Name: name},
		Spec: FindingSpec{Property: p.Name, Cite: p.Cite, Explanation: stickyVsGEP713,
			Replay:      ReplayCommand(out),
			Differences: Disagreements(m),
			Triage:      &stickyVsGEP713Triage}}
	if len(f.Spec.Differences) == 0 {
		return "", fmt.Errorf("the recorded scenario shows no disagreement")
	}
	head, err := yaml.Marshal(f)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# A finding of gepcheck's property %s, shrunk by rapid.\n# Regenerate: %s\n", p.Name, ReplayCommand(out))
	b.Write(head)
	b.WriteString("---\n")
	b.Write(bytes.TrimPrefix(s.YAML(), []byte("---\n")))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	file := filepath.Join(dir, name+".yaml")
	return file, os.WriteFile(file, b.Bytes(), 0o644)
}

// ReplayCommand is the one command that reruns a property exactly.
func ReplayCommand(out Outcome) string {
	var b strings.Builder
	if out.Replay != "" {
		// The flags that rebuilt the property, profile and semantics
		// among them.
		fmt.Fprintf(&b, "gepcheck fuzz %s --seed %d --checks %d", out.Replay, out.Seed, out.Checks)
		return b.String()
	}
	fmt.Fprintf(&b, "gepcheck fuzz --property %s --seed %d --checks %d", out.Property, out.Seed, out.Checks)
	if out.Capture != nil {
		if out.Capture.opts.Profile != "" {
			fmt.Fprintf(&b, " --profile %s", out.Capture.opts.Profile)
		}
		if out.Capture.opts.Semantics != "" {
			fmt.Fprintf(&b, " --semantics %s", out.Capture.opts.Semantics)
		}
	}
	if out.Mutant != "" {
		fmt.Fprintf(&b, " --mutant %s", out.Mutant)
	}
	return b.String()
}

// WriteCounterexample writes the scenario a failed property last checked as
// a file `gepcheck simulate` reads.
func WriteCounterexample(dir string, out Outcome) (string, error) {
	s, sem, note := out.Capture.Last()
	if s == nil {
		return "", fmt.Errorf("%s recorded no scenario", out.Property)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Counterexample to gepcheck property %s (shrunk by rapid).\n", out.Property)
	for _, l := range strings.Split(strings.TrimSpace(note), "\n") {
		fmt.Fprintf(&b, "# %s\n", l)
	}
	if sem != "" {
		fmt.Fprintf(&b, "# Semantics: %s\n", sem)
	}
	fmt.Fprintf(&b, "# Replay: %s\n", ReplayCommand(out))
	b.Write(s.YAML())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	name := fileName(out.Property)
	if out.Mutant != "" {
		name += "-" + string(out.Mutant)
	}
	file := filepath.Join(dir, fmt.Sprintf("%s-seed%d.yaml", name, out.Seed))
	return file, os.WriteFile(file, b.Bytes(), 0o644)
}

// fileName is s with every byte but letters, digits, '.', '_' and '-'
// replaced by '-': a property named after a command ("differential/exec:
// my-translator") makes a file name every system takes.
func fileName(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
		default:
			b[i] = '-'
		}
	}
	return string(b)
}

// Key is the path the two semantics disagree on (compare.Keyed).
func (d Disagreement) Key() string { return "path " + pathKey(d.Path) }

// String prints the disagreement's path and both outcomes.
func (d Disagreement) String() string {
	b, _ := json.Marshal(d.Outcomes)
	return ref.Printable(d.Key() + ": " + string(b))
}

// ReproduceFinding checks that a kept finding of a property still shows
// exactly the disagreements its Finding document d records on m, the
// model of its file (ReproduceDisagreements).
func ReproduceFinding(d *load.Doc, m *simulator.Model) error {
	var f Finding
	if err := load.DecodeStrict(d, &f); err != nil {
		return err
	}
	if len(f.Spec.Differences) == 0 {
		return &load.Error{Source: d.At("spec"), Object: d.Object(), Field: "spec.differences", Msg: "missing: a finding records the disagreements it shows"}
	}
	return ReproduceDisagreements(f.Spec.Differences, Disagreements(m))
}
