package report

import (
	"bytes"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/simulator"
	"github.com/gepcheck/gepcheck/simulator/engine"
	"github.com/gepcheck/gepcheck/simulator/render"
	"github.com/gepcheck/gepcheck/suite/observe"
)

// HTML is r as one self-contained page (inline style, no script, nothing
// fetched at view time): the summary per profile and feature, the random
// campaigns with their shrunk findings, and each case with its hierarchy
// drawn as GEP-713 draws it (render.NewDiagram), the effective policy of
// every path with provenance, expected against observed conditions, and
// for a failure the scenario and the command that replays it.
func HTML(r *Results) ([]byte, error) {
	type caseView struct {
		ID, Name, File, Outcome, Reason, Step, Replay, Offline string
		Known                                                  []Known
		Regression                                             bool
		Features, Differences                                  []string
		Picture                                                template.HTML
		Conditions                                             []condRow
		Scenario                                               string
		ShowScenario                                           bool
	}
	type findingView struct {
		Kind        string
		Known       []Known
		Regression  bool
		Case        int
		Differences []string
		Picture     template.HTML
		Scenario    string
	}
	type campaignView struct {
		Campaign
		Findings []findingView
	}
	// A results file may spell gep-713 the older way (gep713).
	sem, perr := engine.ParseSemantics(r.Semantics)
	if perr != nil {
		sem = engine.Semantics(r.Semantics)
	}
	var cases []caseView
	for i, c := range r.Cases {
		v := caseView{ID: fmt.Sprintf("case-%d", i), Name: c.Name, File: c.File, Outcome: c.Outcome, Reason: c.Reason, Step: c.Step,
			Replay: c.Replay, Offline: c.Offline, Features: c.Features, Differences: c.Differences, Scenario: c.Scenario,
			ShowScenario: c.Outcome == Failed || c.Outcome == Errored, Regression: c.Regression(r.KnownFrom)}
		if c.Outcome == Failed {
			v.Known = c.Known
		}
		v.Picture = picture(observe.Case{YAML: c.Scenario, Docs: c.docs, Profiles: c.Profiles}, sem)
		v.Conditions = conditionRows(c.Expected, c.Observed, r.Conditions)
		cases = append(cases, v)
	}
	var campaigns []campaignView
	for _, c := range r.Campaigns {
		cv := campaignView{Campaign: c}
		for _, f := range c.Findings {
			cv.Findings = append(cv.Findings, findingView{Kind: f.Kind.String(), Known: f.Known, Regression: r.KnownFrom != "" && len(f.Known) == 0, Case: f.Case, Differences: f.Differences,
				Picture: picture(observe.Case{YAML: f.Scenario, Profiles: f.Profiles}, sem), Scenario: f.Scenario})
		}
		campaigns = append(campaigns, cv)
	}
	p, f, s, e := r.Counts()
	var body bytes.Buffer
	err := reportT.Execute(&body, map[string]any{
		"R": r, "Features": FeatureCounts(r), "Cases": cases, "Campaigns": campaigns,
		"Passed": p, "Failed": f, "Skipped": s, "Errors": e, "Rep": ConformanceReport(r),
		"ThirdParty": r.Standing(), "Reading": r.Reading(), "Producer": r.Producer(),
	})
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	title := fmt.Sprintf("%s %s: Policy Attachment conformance (%s)", r.Implementation.Project, r.Implementation.Version, r.Mode)
	if err := render.Page(&out, title, template.HTML(body.String())); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// picture draws a scenario with the reference's outcome, or says why not.
func picture(c observe.Case, sem engine.Semantics) template.HTML {
	if c.YAML == "" {
		return ""
	}
	m, err := c.Model(simulator.Options{Profiles: c.Profiles})
	if err != nil {
		return template.HTML("<p>Not drawn: " + template.HTMLEscapeString(err.Error()) + "</p>")
	}
	if sem == "" {
		sem = engine.StickyOverrides
	}
	return render.ScenarioHTML(m, m.Run(sem, nil))
}

// conditionRows puts the reference's and the implementation's conditions
// of each policy side by side: the types compared (all when compared is
// empty), and the implementation's others apart.
func conditionRows(want, got *observe.Observation, compared []string) []condRow {
	if want == nil {
		return nil
	}
	isCompared := func(t string) bool { return len(compared) == 0 || slices.Contains(compared, t) }
	conds := func(o *observe.Observation, keep bool) map[string][]string {
		out := map[string][]string{}
		if o == nil {
			return out
		}
		for _, p := range o.Policies {
			for _, c := range p.Conditions {
				if isCompared(c.Type) == keep {
					out[p.Ref] = append(out[p.Ref], c.Type+"="+c.Status+"/"+c.Reason)
				}
			}
		}
		return out
	}
	w, g, extra := conds(want, true), conds(got, true), conds(got, false)
	refs := map[string]bool{}
	for _, m := range []map[string][]string{w, g, extra} {
		for k := range m {
			refs[k] = true
		}
	}
	var rows []condRow
	for _, ref := range slices.Sorted(maps.Keys(refs)) {
		rows = append(rows, condRow{Ref: ref, Expected: strings.Join(w[ref], ", "), Observed: strings.Join(g[ref], ", "), Other: strings.Join(extra[ref], ", "),
			Differs: got != nil && !slices.Equal(sorted(w[ref]), sorted(g[ref]))})
	}
	return rows
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

type condRow = struct {
	Ref, Expected, Observed, Other string
	Differs                        bool
}

var reportT = template.Must(template.New("report").Parse(`
<p>gepcheck <code>--impl {{.R.Implementation.Name}}</code>, {{.R.Mode}}, semantics <code>{{.R.Semantics}}</code>, status vocabulary <code>{{.R.StatusVocabularyRead}}</code>;
Gateway API {{.R.GatewayAPIVersion}} ({{.R.GatewayAPIChannel}}); {{.R.Date}}{{if .R.Shards}}; merged from shards {{range .R.Shards}}{{.}} {{end}}{{end}}.
<a href="{{.R.Implementation.URL}}">{{.R.Implementation.URL}}</a></p>
<p class="third-party"><strong>{{.ThirdParty}}</strong></p>
<p>{{.Reading}}</p>
<p>{{.Producer}}</p>
<h2>Summary</h2>
<p>{{len .R.Cases}} cases: <span class="passed">{{.Passed}} passed</span>, <span class="failed">{{.Failed}} failed</span>, <span class="skipped">{{.Skipped}} skipped</span>, {{.Errors}} errors.</p>
<table><tr><th>Profile</th><th>Part</th><th>Result</th><th>Passed</th><th>Failed</th><th>Skipped</th></tr>
{{range .Rep.ProfileReports}}<tr><td>{{.Name}}</td><td>core</td><td class="{{.Core.Result}}">{{.Core.Result}}</td><td>{{.Core.Statistics.Passed}}</td><td>{{.Core.Statistics.Failed}}</td><td>{{.Core.Statistics.Skipped}}</td></tr>
{{if .Extended}}<tr><td>{{.Name}}</td><td>extended</td><td class="{{.Extended.Result}}">{{.Extended.Result}}</td><td>{{.Extended.Statistics.Passed}}</td><td>{{.Extended.Statistics.Failed}}</td><td>{{.Extended.Statistics.Skipped}}</td></tr>{{end}}
{{end}}</table>
<h3>Per feature</h3>
<table><tr><th>Feature</th><th>Profile</th><th>Passed</th><th>Failed</th><th>Skipped</th></tr>
{{range .Features}}<tr><td>{{.Name}}</td><td>{{.Profile}}</td><td>{{.Passed}}</td><td>{{.Failed}}</td><td>{{.Skipped}}</td></tr>
{{end}}</table>
{{range .Campaigns}}<h2>Random cases: {{.Kind}}</h2>
<p>Profile <code>{{.Profile}}</code>, seed {{.Seed}}, {{.Checks}} cases{{if .Steps}} with up to {{.Steps}} changes each{{end}}: {{.Disagreed}} disagree with the reference. Replay: <code>{{.Replay}}</code></p>
{{range .Findings}}<section class="finding"><h3>Finding <code>{{.Kind}}</code> (case {{.Case}})</h3>
{{template "known" .}}
<ul>{{range .Differences}}<li><code>{{.}}</code></li>{{end}}</ul>
{{.Picture}}
<details><summary>Shrunk scenario</summary><pre>{{.Scenario}}</pre></details></section>
{{end}}{{end}}
<h2>Cases</h2>
<ul>{{range .Cases}}<li><a href="#{{.ID}}">{{.Name}}</a> <span class="badge {{.Outcome}}">{{.Outcome}}</span>{{if .Known}} <span class="badge known">known</span>{{end}}{{if .Regression}} <span class="badge regression">regression</span>{{end}}</li>{{end}}</ul>
{{range .Cases}}<section class="case" id="{{.ID}}" data-outcome="{{.Outcome}}">
<h2>{{.Name}} <span class="badge {{.Outcome}}">{{.Outcome}}</span></h2>
<p><code>{{.File}}</code>{{if .Step}}, {{.Step}}{{end}}. Features: {{range .Features}}<code>{{.}}</code> {{end}}</p>
{{if .Reason}}<p>{{.Reason}}</p>{{end}}
{{template "known" .}}
{{if .Differences}}<h3>Differences</h3><ul>{{range .Differences}}<li><code>{{.}}</code></li>{{end}}</ul>{{end}}
{{if .Offline}}<p>{{.Offline}}</p>{{end}}
{{.Picture}}
{{if .Conditions}}<h3>Expected and observed conditions</h3>
<table><tr><th>Policy</th><th>Expected (reference)</th><th>Observed</th><th>Also written, not compared</th></tr>
{{range .Conditions}}<tr{{if .Differs}} class="failed"{{end}}><td><code>{{.Ref}}</code></td><td><code>{{.Expected}}</code></td><td><code>{{.Observed}}</code></td><td><code>{{.Other}}</code></td></tr>
{{end}}</table>{{end}}
{{if .ShowScenario}}<h3>Scenario</h3><pre>{{.Scenario}}</pre>{{end}}
<p>Replay: <code>{{.Replay}}</code></p>
</section>
{{end}}{{define "known"}}{{range .Known}}<p><span class="badge known">known</span> <code>{{.Finding}}</code>, {{.Verdict}}{{if .Requirement}} {{.Requirement}}{{end}}, {{if .Upstream}}{{range $i, $u := .Upstream}}{{if $i}}, {{end}}<a href="{{$u}}">{{$u}}</a>{{end}}{{else}}no upstream issue known{{end}}</p>{{end}}{{if .Regression}}<p><span class="badge regression">regression</span> no kept finding shows these differences</p>{{end}}{{end}}`))
