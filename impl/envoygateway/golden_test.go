package envoygateway

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/gepcheck/gepcheck/impl/envoygateway/egtestdata"
	"github.com/gepcheck/gepcheck/suite/observe"
	"github.com/gepcheck/gepcheck/suite/sidebyside"
)

// goldenStats are the figures of a golden run (docs/envoy-gateway.md,
// Envoy Gateway's own test cases).
type goldenStats struct {
	cases, skipped, paths, carrying, equal int
	// mismatches lists each path whose implementation side is not the
	// golden output's.
	mismatches []string
	// byFinding counts the differences between the implementation side
	// and the reference side by the finding that names them ("new").
	byFinding map[string]int
	news      []string
}

// goldenCases are the translator test inputs that carry a policy of a kind
// gepcheck judges Envoy Gateway on (BackendTrafficPolicy,
// ClientTrafficPolicy, SecurityPolicy) and are named for one of them or
// for merging (`ls testdata | grep merge`). Unless all, only those named
// for merging or that set a field gepcheck reads back (the policies'
// Fields), where the
// comparison says something: about 80 of 275, about 3 minutes
// (GEPCHECK_EG_GOLDEN=all runs the 275, about 10).
func goldenCases(t *testing.T, dir string, all bool) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "internal", "gatewayapi", "testdata", "*.in.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		base := filepath.Base(f)
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := "\n" + string(data)
		carries := false
		for _, key := range []string{"backendTrafficPolicies:", "clientTrafficPolicies:", "securityPolicies:"} {
			carries = carries || strings.Contains(text, "\n"+key)
		}
		named := strings.HasPrefix(base, "backendtrafficpolicy") || strings.HasPrefix(base, "clienttrafficpolicy") || strings.HasPrefix(base, "securitypolicy")
		merge := strings.Contains(base, "merge")
		if !carries || !named && !merge {
			continue
		}
		reads := false
		for _, key := range []string{"requestTimeout", "retry", "numRetries", "retryOn", "circuitBreaker", "maxConnections", "connectionLimit", "allowOrigins"} {
			reads = reads || strings.Contains(text, " "+key+":")
		}
		if all || merge || reads {
			out = append(out, f)
		}
	}
	return out
}

// runGolden runs simulate --impl envoy-gateway's library function on each
// input in files with the translator obs, and compares the implementation
// side of every route rule and HTTP listener with the golden output's
// (egtestdata.Golden: the oracle is Envoy Gateway's own .out.yaml, read
// independently of the xDS reader under test).
func runGolden(t *testing.T, obs observe.Observer, files []string) goldenStats {
	t.Helper()
	known, err := sidebyside.ReadKnown(filepath.Join("..", "..", "scenarios", "findings"), "envoy-gateway")
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		res    *sidebyside.Result
		golden []egtestdata.Setting
		err    error
	}
	results := make([]result, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f := files[i]
				in, err := os.ReadFile(f)
				if err != nil {
					results[i].err = err
					continue
				}
				yaml, err := egtestdata.Manifests(filepath.Base(f), in)
				if err != nil {
					results[i].err = err
					continue
				}
				out, err := os.ReadFile(strings.TrimSuffix(f, ".in.yaml") + ".out.yaml")
				if err != nil {
					results[i].err = err
					continue
				}
				if results[i].golden, err = egtestdata.Golden(filepath.Base(f), out); err != nil {
					results[i].err = err
					continue
				}
				results[i].res, results[i].err = sidebyside.Run(context.Background(), obs, observe.Case{Name: filepath.Base(f), YAML: string(yaml)}, known)
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	st := goldenStats{byFinding: map[string]int{}}
	for i, r := range results {
		name := strings.TrimSuffix(filepath.Base(files[i]), ".in.yaml")
		if r.err != nil {
			// The reference refuses the input (gepcheck's loader is
			// stricter than the translator's harness): not compared.
			st.skipped++
			t.Logf("%s: not compared: %v", name, r.err)
			continue
		}
		if r.res.Observed.Error != "" {
			st.skipped++
			t.Logf("%s: egctl refused it: %s", name, r.res.Observed.Error)
			continue
		}
		st.cases++
		golden, carrying := map[string][]string{}, map[string]bool{}
		for _, s := range r.golden {
			k := strings.Join(s.Path, " > ")
			golden[k] = append(golden[k], specJSON(s.Spec))
			if len(s.Policies) > 0 || len(s.Spec) > 0 {
				carrying[k] = true
			}
		}
		impl := map[string][]string{}
		for _, p := range r.res.Observed.Effective {
			k := strings.Join(p.Path, " > ")
			impl[k] = append(impl[k], specJSON(canonical(p.Spec)))
			if len(p.Spec) > 0 {
				carrying[k] = true
			}
		}
		for _, k := range slices.Sorted(maps.Keys(carrying)) {
			st.paths++
			st.carrying++
			g, o := distinct(golden[k]), distinct(impl[k])
			if slices.Equal(g, o) {
				st.equal++
				continue
			}
			st.mismatches = append(st.mismatches, fmt.Sprintf("%s: %s: golden %v, implementation side %v", name, k, g, o))
		}
		for _, d := range r.res.Differences {
			st.byFinding[d.Finding]++
			if d.Finding == sidebyside.New {
				st.news = append(st.news, fmt.Sprintf("%s: %s (%s)", name, d.String(), strings.Join(d.Kinds, ",")))
			}
		}
	}
	return st
}

// canonical writes the durations of an implementation-side spec as
// egtestdata.Canonical does (xDS prints 60s where the IR prints 1m0s).
func canonical(spec map[string]any) map[string]any {
	t, ok := spec["timeout"].(map[string]any)
	if !ok {
		return spec
	}
	h, _ := t["http"].(map[string]any)
	s, ok := h["requestTimeout"].(string)
	if !ok {
		return spec
	}
	out := maps.Clone(spec)
	out["timeout"] = map[string]any{"http": map[string]any{"requestTimeout": egtestdata.Canonical(s)}}
	return out
}

func specJSON(spec map[string]any) string {
	if len(spec) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(spec)
	return string(b)
}

// distinct is the sorted distinct specs of a path, "{}" left out when
// the path has others (a rule configured on some matches only).
func distinct(specs []string) []string {
	out := slices.Compact(slices.Sorted(slices.Values(specs)))
	if len(out) > 1 {
		out = slices.DeleteFunc(out, func(s string) bool { return s == "{}" })
	}
	if len(out) == 0 {
		return []string{"{}"}
	}
	return out
}

// TestEnvoyGatewayGolden: on Envoy Gateway v1.9.1's translator test inputs
// that carry its policies (goldenCases; hack/eg-testdata.sh writes the same
// manifests), `simulate --impl envoy-gateway` (sidebyside.Run with egctl)
// shows, on every policy-carrying path, the effective settings Envoy
// Gateway's own golden .out.yaml has; every difference between its side
// and the reference's names a kept finding in
// scenarios/findings/envoy-gateway/ (issue 31, Done when).
func TestEnvoyGatewayGolden(t *testing.T) {
	eg := &Translator{Egctl: cachedEgctl(t, EgctlFast), Parallelism: 1}
	files := goldenCases(t, moduleDir(t), os.Getenv("GEPCHECK_EG_GOLDEN") == "all")
	st := runGolden(t, eg, files)
	t.Logf("%d inputs; %d compared, %d not (the reference or egctl refuses them); %d policy-carrying paths, %d equal to the golden output", len(files), st.cases, st.skipped, st.carrying, st.equal)
	keys := slices.Sorted(maps.Keys(st.byFinding))
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("differences from the reference named by %s: %d", k, st.byFinding[k])
	}
	if st.cases < 50 {
		t.Errorf("%d inputs compared, want at least 50", st.cases)
	}
	for _, m := range st.mismatches {
		t.Errorf("implementation side differs from the golden output: %s", m)
	}
	for _, n := range st.news {
		t.Errorf("difference with no kept finding (keep one in scenarios/findings/envoy-gateway/): %s", n)
	}
}

// misreading is a planted fault: the translator with one field read wrong
// (circuitBreaker.maxConnections one more than the xDS cluster's).
type misreading struct{ *Translator }

func (m misreading) Observe(ctx context.Context, cases []observe.Case) ([]observe.Observation, error) {
	obs, err := m.Translator.Observe(ctx, cases)
	for _, o := range obs {
		for _, p := range o.Effective {
			if cb, ok := p.Spec["circuitBreaker"].(map[string]any); ok {
				n, _ := cb["maxConnections"].(float64)
				p.Spec["circuitBreaker"] = map[string]any{"maxConnections": n + 1}
			}
		}
	}
	return obs, err
}

// TestEnvoyGatewayGoldenCatchesPlantedFault: the golden check fails on an
// implementation side that reads one field wrong (misreading), on inputs
// where the right reading equals the golden output.
func TestEnvoyGatewayGoldenCatchesPlantedFault(t *testing.T) {
	eg := &Translator{Egctl: cachedEgctl(t, EgctlFast), Parallelism: 1}
	dir := filepath.Join(moduleDir(t), "internal", "gatewayapi", "testdata")
	files := []string{filepath.Join(dir, "backendtrafficpolicy-with-circuitbreakers.in.yaml"), filepath.Join(dir, "backendtrafficpolicy-with-timeout.in.yaml")}
	if st := runGolden(t, eg, files); len(st.mismatches) != 0 || st.cases != 2 || st.equal == 0 {
		t.Fatalf("the right reading: %d cases, %d paths equal, mismatches %q; want 2 cases, every path equal", st.cases, st.equal, st.mismatches)
	}
	st := runGolden(t, misreading{eg}, files)
	if len(st.mismatches) == 0 {
		t.Fatal("a misread circuitBreaker.maxConnections passes the golden check")
	}
	for _, m := range st.mismatches {
		if !strings.Contains(m, "circuitBreaker") {
			t.Errorf("mismatch not about the misread field: %s", m)
		}
	}
	t.Logf("planted fault caught on %d path(s), e.g. %s", len(st.mismatches), st.mismatches[0])
}
