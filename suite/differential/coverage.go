package differential

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/gepcheck/gepcheck/generators"
)

// Combinations names what a scenario exercises, one name per policy
// field, level and merge option: "retry.numRetries @ HTTPRoute rule /
// JSONMerge". The level is the targeted kind, with "listener", "rule" or
// "port" when a section is targeted; the merge option is the value of the
// spec's mergeType, or "none".
func Combinations(s *generators.Scenario) []string {
	seen := map[string]bool{}
	for _, p := range s.Policies {
		merge := "none"
		if m, ok := p.Spec["mergeType"].(string); ok {
			merge = m
		}
		spec := maps.Clone(p.Spec)
		delete(spec, "mergeType")
		for _, f := range generators.LeafPaths(spec, nil) {
			for _, t := range p.Targets {
				seen[Combination(strings.Join(f, "."), level(t), merge)] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// Combination is the name Combinations gives a field at a level with a
// merge option.
func Combination(field, level, merge string) string {
	return field + " @ " + level + " / " + merge
}

func level(t generators.Target) string {
	if t.Section == "" {
		return t.Kind
	}
	switch t.Kind {
	case "Gateway":
		return "Gateway listener"
	case "Service":
		return "Service port"
	}
	return t.Kind + " rule"
}

// Coverage counts, per combination, the scenarios that drew it and those
// of them that disagreed.
type Coverage struct {
	Drawn, Disagreed map[string]int
	// Declared are the combinations the implementation's profile says
	// it accepts (FuzzKind.Combinations).
	Declared []string
}

func newCoverage(declared []string) *Coverage {
	return &Coverage{Drawn: map[string]int{}, Disagreed: map[string]int{}, Declared: declared}
}

func (c *Coverage) add(s *generators.Scenario, disagrees bool) {
	for _, k := range Combinations(s) {
		c.Drawn[k]++
		if disagrees {
			c.Disagreed[k]++
		}
	}
}

// Missing lists the declared combinations never drawn.
func (c *Coverage) Missing() []string {
	var out []string
	for _, k := range c.Declared {
		if c.Drawn[k] == 0 {
			out = append(out, k)
		}
	}
	return out
}

// Rows lists every combination declared or drawn, sorted, with its counts
// and whether it was declared.
func (c *Coverage) Rows() []CoverageRow {
	names := map[string]bool{}
	for _, k := range c.Declared {
		names[k] = true
	}
	for k := range c.Drawn {
		names[k] = true
	}
	var rows []CoverageRow
	for k := range names {
		rows = append(rows, CoverageRow{Combination: k, Drawn: c.Drawn[k], Disagreed: c.Disagreed[k], Declared: slices.Contains(c.Declared, k)})
	}
	sort.Slice(rows, func(a, b int) bool { return rows[a].Combination < rows[b].Combination })
	return rows
}

// CoverageRow is one line of the coverage report.
type CoverageRow struct {
	Combination      string
	Drawn, Disagreed int
	Declared         bool
}

// DeclaredCombinations is every field at every level with every merge
// option the level offers: the combinations a profile declares.
func DeclaredCombinations(fields []string, merges map[string][]string) []string {
	var out []string
	for _, f := range fields {
		for _, l := range slices.Sorted(maps.Keys(merges)) {
			for _, m := range merges[l] {
				out = append(out, Combination(f, l, m))
			}
		}
	}
	sort.Strings(out)
	return out
}
