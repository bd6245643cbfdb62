package render

import (
	"bytes"
	"html/template"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/simulator"
)

// css styles every page gepcheck writes: inline, so that a page needs no
// network at view time.
const css = `body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1400px}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}h3{font-size:1em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top;font-size:.9em}
code,pre{font-family:ui-monospace,monospace;font-size:.85em}pre{background:#f6f6f6;padding:.5em;overflow:auto}
.diagram{overflow:auto;border:1px solid #eee;margin:.5em 0}
svg.hierarchy text{font:12px ui-monospace,monospace;fill:#222}
svg.hierarchy .node rect{fill:#eef4ff;stroke:#4a6fa5}
svg.hierarchy .node.section rect{fill:#f4f8ff;stroke:#7f9ccc}
svg.hierarchy .node.policy rect{fill:#fff3d6;stroke:#c08a00}
svg.hierarchy .node.missing rect{fill:#fff;stroke:#b00}
svg.hierarchy .edge{stroke:#555;fill:none}svg.hierarchy .policy-edge{stroke:#c08a00}
svg.hierarchy marker path{fill:#555}
.passed{color:#17692a}.failed,.error{color:#b00020}.skipped{color:#777}.known{color:#8a5a00}.regression{color:#b00020;font-weight:bold}
.badge{display:inline-block;padding:0 .4em;border-radius:3px;border:1px solid currentColor;font-size:.85em}`

// Page writes a self-contained HTML document: title, inline style, body.
func Page(w io.Writer, title string, body template.HTML) error {
	return pageT.Execute(w, struct {
		Title string
		CSS   template.CSS
		Body  template.HTML
	}{title, template.CSS(css), body})
}

var pageT = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title><style>{{.CSS}}</style></head>
<body>
<h1>{{.Title}}</h1>
{{.Body}}
</body></html>
`))

// ScenarioHTML is the HTML of a simulation: the hierarchy drawn as GEP-713
// draws it, the effective policy of every path with the policy each field
// comes from, and each policy's conditions.
func ScenarioHTML(m *simulator.Model, out *simulator.Output) template.HTML {
	type row struct {
		Path, Spec string
		Provenance []string
	}
	type pol struct {
		Ref        string
		Conditions []string
	}
	var rows []row
	for _, e := range out.EffectivePolicies {
		var prov []string
		for _, f := range slices.Sorted(maps.Keys(e.Provenance)) {
			prov = append(prov, f+" ← "+clean(source(e, f, e.Provenance[f])))
		}
		rows = append(rows, row{Path: path(e.Path), Spec: compact(e.Spec), Provenance: prov})
	}
	var pols []pol
	for _, p := range out.Policies {
		var cs []string
		for _, c := range p.Conditions {
			s := c.Type + "=" + c.Status + "/" + c.Reason
			if c.Message != "" {
				s += ": " + c.Message
			}
			cs = append(cs, clean(s))
		}
		pols = append(pols, pol{Ref: clean(p.Ref), Conditions: cs})
	}
	var b bytes.Buffer
	_ = scenarioT.Execute(&b, struct {
		SVG      template.HTML
		Rows     []row
		Policies []pol
	}{template.HTML(NewDiagram(m).SVG()), rows, pols})
	return template.HTML(b.String())
}

var scenarioT = template.Must(template.New("scenario").Parse(`<div class="diagram">{{.SVG}}</div>
<h3>Effective policy per path</h3>
{{if .Rows}}<table><tr><th>Path</th><th>Effective spec</th><th>Provenance</th></tr>
{{range .Rows}}<tr><td><code>{{.Path}}</code></td><td><code>{{.Spec}}</code></td><td>{{range .Provenance}}<code>{{.}}</code><br>{{end}}</td></tr>
{{end}}</table>{{else}}<p>No path has an effective policy.</p>{{end}}
<h3>Policy conditions</h3>
<table><tr><th>Policy</th><th>Conditions</th></tr>
{{range .Policies}}<tr><td><code>{{.Ref}}</code></td><td>{{range .Conditions}}<code>{{.}}</code><br>{{end}}</td></tr>
{{end}}</table>
`))

// SimulationHTML writes a simulation as a page.
func SimulationHTML(w io.Writer, title string, m *simulator.Model, out *simulator.Output) error {
	return Page(w, title, ScenarioHTML(m, out))
}

// TextHTML is preformatted text, escaped.
func TextHTML(s string) template.HTML {
	return template.HTML("<pre>" + template.HTMLEscapeString(strings.TrimRight(s, "\n")) + "</pre>")
}
