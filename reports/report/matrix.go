package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/gepcheck/gepcheck/internal/markdown"

	"golang.org/x/mod/semver"
)

// Matrix is the page of an implementation's reports directory over its
// versions (the offline results of each): each scenario case's outcome
// per version, each kind of difference the random campaigns found per
// version, and what changed from one version to the next.
func Matrix(rs []*Results) []byte {
	if len(rs) == 0 {
		return nil
	}
	slices.SortFunc(rs, func(a, b *Results) int { return semver.Compare(a.Implementation.Version, b.Implementation.Version) })
	var b bytes.Buffer
	impl := rs[0].Implementation
	fmt.Fprintf(&b, "# %s: Policy Attachment conformance by version\n\n", markdown.Text(impl.Project))
	fmt.Fprintf(&b, "Written by `gepcheck report matrix` from the offline reports of each version (docs/reports.md); each version's README has the details and how to reproduce.\n\n")
	var versions []string
	for _, r := range rs {
		versions = append(versions, r.Implementation.Version)
	}
	b.WriteString("| | " + strings.Join(linkVersions(versions), " | ") + " |\n|---|" + strings.Repeat("---|", len(versions)) + "\n")
	var names []string
	outcome := map[string]map[string]string{}
	for _, r := range rs {
		for _, c := range r.Cases {
			if outcome[c.Name] == nil {
				outcome[c.Name] = map[string]string{}
				names = append(names, c.Name)
			}
			outcome[c.Name][r.Implementation.Version] = c.Outcome
		}
	}
	slices.Sort(names)
	p := func(r *Results) string {
		pa, f, s, e := r.Counts()
		return fmt.Sprintf("%d/%d/%d/%d", pa, f, s, e)
	}
	b.WriteString("| passed/failed/skipped/errors |")
	for _, r := range rs {
		fmt.Fprintf(&b, " %s |", p(r))
	}
	b.WriteString("\n")
	for _, n := range names {
		fmt.Fprintf(&b, "| %s |", markdown.Cell(n))
		for _, v := range versions {
			fmt.Fprintf(&b, " %s |", mark(outcome[n][v]))
		}
		b.WriteString("\n")
	}
	kinds := map[string]map[string]bool{}
	var kindNames []string
	for _, r := range rs {
		for _, c := range r.Campaigns {
			for _, f := range c.Findings {
				k := c.Kind + " " + f.Kind.String()
				if c.Steps > 0 {
					k = c.Kind + " (steps) " + f.Kind.String()
				}
				if kinds[k] == nil {
					kinds[k] = map[string]bool{}
					kindNames = append(kindNames, k)
				}
				kinds[k][r.Implementation.Version] = true
			}
		}
	}
	slices.Sort(kindNames)
	if len(kindNames) > 0 {
		b.WriteString("\n## Kinds of difference the random cases found\n\n| kind | " + strings.Join(mdTexts(versions), " | ") + " |\n|---|" + strings.Repeat("---|", len(versions)) + "\n")
		for _, k := range kindNames {
			fmt.Fprintf(&b, "| %s |", markdown.Cell(k))
			for _, v := range versions {
				if kinds[k][v] {
					b.WriteString(" found |")
				} else {
					b.WriteString(" — |")
				}
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n## What changed\n\n")
	for i := 1; i < len(rs); i++ {
		from, to := versions[i-1], versions[i]
		var changes []string
		for _, n := range names {
			if a, z := outcome[n][from], outcome[n][to]; a != z {
				changes = append(changes, fmt.Sprintf("%s: %s → %s", markdown.Code(n), or(a, "absent"), or(z, "absent")))
			}
		}
		for _, k := range kindNames {
			if kinds[k][from] != kinds[k][to] {
				if kinds[k][to] {
					changes = append(changes, fmt.Sprintf("random cases: %s appears", markdown.Code(k)))
				} else {
					changes = append(changes, fmt.Sprintf("random cases: %s no longer found", markdown.Code(k)))
				}
			}
		}
		fmt.Fprintf(&b, "- %s → %s: ", markdown.Text(from), markdown.Text(to))
		if len(changes) == 0 {
			b.WriteString("nothing gepcheck sees.\n")
			continue
		}
		b.WriteString(strings.Join(changes, "; ") + ".\n")
	}
	return b.Bytes()
}

func linkVersions(vs []string) []string {
	var out []string
	for _, v := range vs {
		// Validate keeps a version to a name: a link to a folder.
		out = append(out, fmt.Sprintf("[%s](./%s/)", markdown.Text(v), v))
	}
	return out
}

// mdTexts is markdown.Text of each of ss.
func mdTexts(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = markdown.Text(s)
	}
	return out
}

func mark(outcome string) string {
	switch outcome {
	case Passed:
		return "pass"
	case Failed:
		return "**fail**"
	case Skipped:
		return "skip"
	case "":
		return "—"
	}
	return "error"
}

func or(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}
