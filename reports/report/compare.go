package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/internal/markdown"
)

// Compare is the page that sets implementations side by side (a results
// file each, in the order given): one row per scenario file (and step),
// whatever name a mode gives its cases (offline runs name a case by its
// file, cluster runs by its scenario's name, and two implementations'
// findings may share a name), a row per
// random campaign with how many of its cases disagreed, and one row per
// kind of difference a campaign found, one column per implementation.
// Random cases of a cluster run are counted in their campaign's row, not
// listed one by one. Cases of a scenario an implementation did not run
// show as "—". under, when not empty, keeps only the cases whose file is
// under one of its paths.
func Compare(rs []*Results, under []string) []byte {
	var b bytes.Buffer
	b.WriteString("| | " + strings.Join(columns(rs), " | ") + " |\n|---|" + strings.Repeat("---|", len(rs)) + "\n")
	b.WriteString("| claims |")
	for _, r := range rs {
		fmt.Fprintf(&b, " %s |", markdown.Text(claims(r)))
	}
	b.WriteString("\n| status vocabulary |")
	for _, r := range rs {
		fmt.Fprintf(&b, " %s |", markdown.Text(vocabularyClaim(r)))
	}
	b.WriteString("\n")
	var names []string
	outcome := make([]map[string]string, len(rs))
	for i, r := range rs {
		outcome[i] = map[string]string{}
		for _, c := range r.Cases {
			if isRandomCase(r, c) || len(under) > 0 && !slices.ContainsFunc(under, func(u string) bool { return strings.HasPrefix(c.File, u) }) {
				continue
			}
			name := c.File
			if name == "" {
				name = c.Name
			}
			if c.Step != "" {
				name += " " + c.Step
			}
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
			outcome[i][name] = c.Outcome
		}
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "| %s |", markdown.Cell(n))
		for i := range rs {
			fmt.Fprintf(&b, " %s |", mark(outcome[i][n]))
		}
		b.WriteString("\n")
	}
	var campaigns []string
	cells := map[string][]string{}
	add := func(name string, i int, cell string) {
		if cells[name] == nil {
			cells[name] = make([]string, len(rs))
			campaigns = append(campaigns, name)
		}
		cells[name][i] = cell
	}
	for i, r := range rs {
		for _, c := range r.Campaigns {
			name := fmt.Sprintf("random %s cases (%s)", markdown.Text(c.Kind), markdown.Text(c.Profile))
			if c.Steps > 0 {
				name = fmt.Sprintf("random %s cases with up to %d steps (%s)", markdown.Text(c.Kind), c.Steps, markdown.Text(c.Profile))
			}
			add(name, i, fmt.Sprintf("%d of %d disagree (seed %d)", c.Disagreed, c.Checks, c.Seed))
			for _, f := range c.Findings {
				add(name+": "+markdown.Cell(f.Kind.String()), i, "found")
			}
		}
	}
	slices.Sort(campaigns)
	for _, n := range campaigns {
		fmt.Fprintf(&b, "| %s |", n)
		for _, cell := range cells[n] {
			if cell == "" {
				cell = "—"
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// columns names each results file's implementation, version and mode.
func columns(rs []*Results) []string {
	var out []string
	for _, r := range rs {
		out = append(out, markdown.Text(fmt.Sprintf("%s %s (%s)", r.Implementation.Project, r.Implementation.Version, r.Mode)))
	}
	return out
}

// claims says what an implementation declared: its features (all, for
// the reference) and the profile it claims per kind.
func claims(r *Results) string {
	fs := "all features"
	if len(r.Implementation.Features) > 0 {
		fs = strings.Join(r.Implementation.Features, ", ")
	}
	return fs
}

// vocabularyClaim is the status vocabulary r's implementation claims
// (docs/semantics.md), and, when the condition types compared leave out
// the vocabulary's second condition (Enforced, Programmed), that the claim
// is moot: only those compared.
func vocabularyClaim(r *Results) string {
	v := r.StatusVocabularyRead()
	if len(r.Conditions) > 0 && !slices.Contains(r.Conditions, "Enforced") && !slices.Contains(r.Conditions, "Programmed") {
		return v + " (only " + strings.Join(r.Conditions, ", ") + " compared)"
	}
	return v
}

// isRandomCase says whether c is a random case of a campaign of r.
func isRandomCase(r *Results, c CaseResult) bool {
	if len(r.Campaigns) == 0 {
		return false
	}
	for _, cp := range r.Campaigns {
		if strings.HasPrefix(c.Name, "random-"+cp.Profile+"-") {
			return true
		}
	}
	return false
}
