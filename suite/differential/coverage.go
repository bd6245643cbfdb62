package differential

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/gepcheck/gepcheck/generators"
)

// Combinations names what a scenario exercises:
//   - one name per policy field, level and merge option: "retry.numRetries
//     @ HTTPRoute rule / JSONMerge". The level is the targeted kind, with
//     "listener", "rule" or "port" when a section is targeted; the merge
//     option is the value of the spec's mergeType, or "none";
//   - values that matter to merge patches, by level and merge option:
//     "value null", "value {}" (an empty object), "value []" (an empty
//     list), "value list";
//   - targetRefs: "targetRefs: several", "targetRefs: missing KIND",
//     "targetRefs: missing beside existing" (GEP-713, TargetNotFound);
//   - creationTimestamps of two policies of a kind: "creationTimestamp:
//     equal", "creationTimestamp: older has the earlier name", "…: older
//     has the later name" (GEP-713, Conflict resolution, rule 2).
func Combinations(s *generators.Scenario) []string {
	seen := map[string]bool{}
	for i, p := range s.Policies {
		merge := "none"
		if m, ok := p.Spec["mergeType"].(string); ok {
			merge = m
		}
		spec := maps.Clone(p.Spec)
		delete(spec, "mergeType")
		for _, f := range generators.LeafPaths(spec, nil) {
			names := []string{strings.Join(f, ".")}
			switch v := valueAt(spec, f).(type) {
			case nil:
				names = []string{"value null"}
			case map[string]any:
				names = []string{"value {}"}
			case []any:
				if len(v) == 0 {
					names = append(names, "value []")
				} else {
					names = append(names, "value list")
				}
			}
			for _, t := range p.Targets {
				for _, n := range names {
					seen[Combination(n, level(t), merge)] = true
				}
			}
		}
		if len(p.Targets) > 1 {
			seen["targetRefs: several"] = true
		}
		var found, missing int
		for _, t := range p.Targets {
			if exists(s, p, t) {
				found++
			} else {
				missing++
				seen["targetRefs: missing "+t.Kind] = true
			}
		}
		if found > 0 && missing > 0 {
			seen["targetRefs: missing beside existing"] = true
		}
		for _, q := range s.Policies[i+1:] {
			if q.Kind != p.Kind || p.Created == nil || q.Created == nil {
				continue
			}
			older, newer := p, q
			if q.Created.Before(*p.Created) {
				older, newer = q, p
			}
			switch {
			case p.Created.Equal(*q.Created):
				seen["creationTimestamp: equal"] = true
			case older.Name < newer.Name:
				seen["creationTimestamp: older has the earlier name"] = true
			default:
				seen["creationTimestamp: older has the later name"] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// valueAt is the value at path in m.
func valueAt(m map[string]any, path []string) any {
	var v any = m
	for _, k := range path {
		v = v.(map[string]any)[k]
	}
	return v
}

// exists says whether the object t names is in s; targets of kinds s does
// not list objects of (generic DAGs) exist.
func exists(s *generators.Scenario, p generators.Policy, t generators.Target) bool {
	ns := t.Namespace
	if ns == "" {
		ns = p.Namespace
	}
	switch t.Kind {
	case "Gateway":
		return slices.ContainsFunc(s.Gateways, func(g generators.Gateway) bool { return g.Namespace == ns && g.Name == t.Name })
	case "HTTPRoute", "GRPCRoute":
		return slices.ContainsFunc(s.Routes, func(r generators.Route) bool { return r.Namespace == ns && r.Name == t.Name })
	case "Service":
		return slices.ContainsFunc(s.Services, func(v generators.Service) bool { return v.Namespace == ns && v.Name == t.Name })
	}
	return true
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
