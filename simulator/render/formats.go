package render

import (
	"bytes"
	"io"
	"slices"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
)

// SimulationAs writes out, m's simulation, in format, one of simulate's
// -o values (docs/output.md).
func SimulationAs(w io.Writer, format string, opts TableOptions, m *simulator.Model, out *simulator.Output) error {
	switch format {
	case "table", "wide":
		return SimulationTable(w, out, opts)
	case "name":
		return Names(w, PolicyNames(out))
	case "html":
		return SimulationHTML(w, "gepcheck simulate", m, out)
	case "dot":
		_, err := io.WriteString(w, NewDiagram(m).DOT())
		return err
	case "mermaid":
		_, err := io.WriteString(w, NewDiagram(m).Mermaid())
		return err
	}
	return Data(w, format, out)
}

// TargetAs writes x, explain --target's explanation, in format, one of
// explain's -o values; a picture (Pictures) is titled title and draws m
// as out simulated it.
func TargetAs(w io.Writer, format, title string, opts TableOptions, m *simulator.Model, out *simulator.Output, x *simulator.TargetExplanation) error {
	switch format {
	case "table", "wide":
		return TargetTable(w, x, opts)
	case "name":
		return Names(w, x.AffectedBy)
	}
	if slices.Contains(Pictures, format) {
		var text bytes.Buffer
		_ = Target(&text, x)
		return picture(w, format, title, m, out, text.String())
	}
	return Data(w, format, x)
}

// PolicyAs writes x, explain --policy's explanation, in format, one of
// explain's -o values; a picture (Pictures) is titled title and draws m
// as sem simulates it.
func PolicyAs(w io.Writer, format, title string, opts TableOptions, m *simulator.Model, sem engine.Semantics, x *simulator.PolicyExplanation) error {
	switch format {
	case "table", "wide":
		return PolicyTable(w, x, opts)
	case "name":
		targets := make([]string, len(x.Status.Targets))
		for i, t := range x.Status.Targets {
			targets[i] = t.Ref
		}
		return Names(w, targets)
	}
	if slices.Contains(Pictures, format) {
		var text bytes.Buffer
		_ = Policy(&text, x)
		return picture(w, format, title, m, m.Run(sem, nil), text.String())
	}
	return Data(w, format, x)
}

// picture writes the hierarchy in a picture format; an HTML page also
// holds the explanation, as text.
func picture(w io.Writer, format, title string, m *simulator.Model, out *simulator.Output, text string) error {
	d := NewDiagram(m)
	switch format {
	case "dot":
		_, err := io.WriteString(w, d.DOT())
		return err
	case "mermaid":
		_, err := io.WriteString(w, d.Mermaid())
		return err
	}
	return Page(w, title, TextHTML(text)+ScenarioHTML(m, out))
}
