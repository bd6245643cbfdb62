package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gepcheck/gepcheck/generators"
	"github.com/gepcheck/gepcheck/suite/driver"
)

// A batched differential run: many independent scenarios, one namespace
// each, observed by the implementation in few calls (one egctl process per
// batch costs about a second before it does any work), compared with the
// reference; each disagreement is shrunk, also in batches, to a minimal
// scenario.

// ImplDisagreement is one scenario on which an implementation and the reference
// differ.
type ImplDisagreement struct {
	Seed     int
	Scenario *generators.Scenario
	Diff     []string
	Want     driver.Observation
	Got      driver.Observation
}

// BatchRun draws n scenarios (gen(i) for i in [0, n)) and compares
// implementation d with the reference, batch scenarios per call. Only the
// condition types listed are compared (all when nil).
func BatchRun(ctx context.Context, d driver.Driver, profile string, gen func(i int) *generators.Scenario, n, batch int, types []string, progress func(done, disagree int), observed func(driver.Observation)) ([]ImplDisagreement, error) {
	var out []ImplDisagreement
	for start := 0; start < n; start += batch {
		end := min(n, start+batch)
		var scenarios []*generators.Scenario
		for i := start; i < end; i++ {
			scenarios = append(scenarios, gen(i))
		}
		res, err := compare(ctx, d, profile, scenarios, types)
		if err != nil {
			return out, err
		}
		for k, r := range res {
			if observed != nil {
				observed(r.Got)
			}
			if len(r.Diff) > 0 {
				r.Seed = start + k
				out = append(out, r)
			}
		}
		if progress != nil {
			progress(end, len(out))
		}
	}
	return out, nil
}

func compare(ctx context.Context, d driver.Driver, profile string, scenarios []*generators.Scenario, types []string) ([]ImplDisagreement, error) {
	cases := make([]driver.Case, len(scenarios))
	for i, s := range scenarios {
		cases[i] = driver.Case{Name: s.Namespaces[0], YAML: string(s.YAML()), Profiles: []string{profile}}
	}
	want, _ := driver.Reference{}.Observe(ctx, cases)
	got, err := d.Observe(ctx, cases)
	if err != nil {
		return nil, err
	}
	out := make([]ImplDisagreement, len(cases))
	for i := range cases {
		out[i] = ImplDisagreement{Scenario: scenarios[i], Want: want[i], Got: got[i], Diff: driver.DiffConditions(want[i], got[i], types)}
	}
	return out, nil
}

// Shrink makes a disagreeing scenario smaller while it still shows the
// kind of difference target (one of Kinds): each round tries, in one batch,
// every scenario with one policy removed and every one with one spec field
// removed, and keeps, of those still showing target, the one with the
// fewest kinds of difference, so that other behaviours fall away.
func Shrink(ctx context.Context, d driver.Driver, profile string, dis ImplDisagreement, types []string, target string) ImplDisagreement {
	cur := dis
	for round := 0; round < 20; round++ {
		var cands []*generators.Scenario
		s := cur.Scenario
		for i := range s.Policies {
			c := s.Clone()
			c.Policies = append(c.Policies[:i:i], c.Policies[i+1:]...)
			if len(c.Policies) > 0 {
				cands = append(cands, c)
			}
		}
		for i, p := range s.Policies {
			for _, f := range leafPaths(p.Spec, nil) {
				c := s.Clone()
				c.Policies[i].Spec = generators.CloneJSON(p.Spec).(map[string]any)
				deletePath(c.Policies[i].Spec, f)
				cands = append(cands, c)
			}
		}
		for i := range cands {
			cands[i] = cands[i].InNamespace(fmt.Sprintf("shrink-%d", i))
		}
		res, err := compare(ctx, d, profile, cands, types)
		if err != nil {
			return cur
		}
		best, bestKinds := -1, 0
		for i, r := range res {
			if r.Got.Error != "" {
				continue
			}
			if ks := Kinds(r.Diff); slices.Contains(ks, target) && (best < 0 || len(ks) < bestKinds) {
				best, bestKinds = i, len(ks)
			}
		}
		if best < 0 {
			break
		}
		cur = res[best]
		cur.Seed = dis.Seed
		cur.Scenario = cur.Scenario.InNamespace(dis.Scenario.Namespaces[0])
	}
	// Observe the minimal scenario in its original namespace.
	if res, err := compare(ctx, d, profile, []*generators.Scenario{cur.Scenario}, types); err == nil && len(res[0].Diff) > 0 {
		res[0].Seed = cur.Seed
		return res[0]
	}
	return cur
}

func leafPaths(m map[string]any, prefix []string) [][]string {
	var out [][]string
	for k, v := range m {
		p := append(append([]string(nil), prefix...), k)
		if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
			out = append(out, leafPaths(sub, p)...)
			continue
		}
		out = append(out, p)
	}
	return out
}

func deletePath(m map[string]any, path []string) {
	if len(path) == 1 {
		delete(m, path[0])
		return
	}
	sub, ok := m[path[0]].(map[string]any)
	if !ok {
		return
	}
	deletePath(sub, path[1:])
	if len(sub) == 0 {
		delete(m, path[0])
	}
}

// WriteDisagreement writes a shrunk disagreement as a findings file: a
// Finding document with the expected and observed outcomes side by side and
// the replay command, then the scenario's objects, in a file named after
// the kind of difference it was shrunk for (Kinds).
func WriteDisagreement(dir, impl, replay, kind string, d ImplDisagreement) (string, error) {
	head := map[string]any{
		"apiVersion": "gepcheck.dev/v1alpha1",
		"kind":       "Finding",
		"metadata":   map[string]any{"name": fmt.Sprintf("%s-%d", impl, d.Seed)},
		"spec": map[string]any{
			"implementation": impl,
			"replay":         replay,
			"differences":    d.Diff,
			"expected":       d.Want,
			"observed":       d.Got,
			"explanation": "gepcheck's reference engine (expected, under the profile Envoy Gateway's documentation " +
				"describes) and the implementation (observed) disagree on this scenario, shrunk to the fewest policies " +
				"and fields that still show it. A finding is evidence, not a test to make pass.",
		},
	}
	b, err := yaml.Marshal(head)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "# Finding: %s disagrees with gepcheck's reference.\n# Replay: %s\n", impl, replay)
	out.Write(b)
	out.WriteString("---\n")
	out.Write(bytes.TrimPrefix(d.Scenario.YAML(), []byte("---\n")))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	file := filepath.Join(dir, fmt.Sprintf("%s-%s.yaml", impl, kind))
	return file, os.WriteFile(file, out.Bytes(), 0o644)
}

// Kinds names the kinds of difference in a disagreement, sorted: "conflicted"
// (a policy the implementation rejected as Conflicted), "condition" (any
// other condition), and for effective settings one per spec field that
// differs: "effective-setting-retry" where a path's value differs,
// "extra-setting-retry" where the implementation sets it on a path the
// reference gives no effective policy. Fuzzing keeps one finding per kind.
func Kinds(diff []string) []string {
	kinds := map[string]bool{}
	for _, d := range diff {
		switch {
		case strings.HasPrefix(d, "policy") && strings.Contains(d, "Conflicted"):
			kinds["conflicted"] = true
		case strings.HasPrefix(d, "policy"):
			kinds["condition"] = true
		case strings.Contains(d, "want no effective policy"):
			for _, f := range fieldsDiffering(d) {
				kinds["extra-setting-"+f] = true
			}
		default:
			fs := fieldsDiffering(d)
			if len(fs) == 0 {
				kinds["effective-setting"] = true
			}
			for _, f := range fs {
				kinds["effective-setting-"+f] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(kinds))
}

// fieldsDiffering lists the top-level spec fields that differ in a
// difference line "path …: want {…}, got {…}" (driver.Diff), or none when
// the line does not have that form.
func fieldsDiffering(line string) []string {
	i := strings.Index(line, ": want ")
	if i < 0 {
		return nil
	}
	want, got, ok := strings.Cut(line[i+len(": want "):], ", got ")
	if !ok {
		return nil
	}
	var w, g map[string]any
	_ = json.Unmarshal([]byte(want), &w) // "no effective policy", "none": no fields
	_ = json.Unmarshal([]byte(got), &g)
	keys := map[string]bool{}
	for k := range w {
		keys[k] = true
	}
	for k := range g {
		keys[k] = true
	}
	var fields []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !reflect.DeepEqual(w[k], g[k]) {
			fields = append(fields, k)
		}
	}
	return fields
}
