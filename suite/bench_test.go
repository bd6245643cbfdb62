package suite

import (
	"runtime"
	"testing"
	"time"
)

// BenchmarkProperties measures the property suite's throughput: random
// cases checked per second and engine runs per second (a case may run the
// engine several times, e.g. once per input order). Scenarios have at most
// 20 objects and 10 policies (generators.DefaultMaxObjects/Policies).
// Recorded in docs/performance.md.
func BenchmarkProperties(b *testing.B) {
	for _, p := range Properties() {
		if p.Finding {
			continue
		}
		b.Run(p.Name, func(b *testing.B) {
			runs := EngineRuns.Load()
			start := time.Now()
			out := Run(p, "", 1, b.N, Options{})
			if !out.Passed {
				b.Fatalf("%s fails:\n%s", p.Name, out.Log)
			}
			secs := time.Since(start).Seconds()
			b.ReportMetric(float64(b.N)/secs, "checks/s")
			b.ReportMetric(float64(EngineRuns.Load()-runs)/secs, "engine-runs/s")
		})
	}
}

// BenchmarkSuite runs every property at once, one worker per CPU, as `go
// test ./suite/` and `gepcheck fuzz` do: the suite's throughput on this
// machine.
func BenchmarkSuite(b *testing.B) {
	var ps []Property
	for _, p := range Properties() {
		if !p.Finding {
			ps = append(ps, p)
		}
	}
	runs := EngineRuns.Load()
	start := time.Now()
	for _, out := range RunAll(ps, "", 1, b.N, Options{}, runtime.GOMAXPROCS(0), nil) {
		if !out.Passed {
			b.Fatalf("%s fails:\n%s", out.Property, out.Log)
		}
	}
	secs := time.Since(start).Seconds()
	b.ReportMetric(float64(b.N*len(ps))/secs, "checks/s")
	b.ReportMetric(float64(EngineRuns.Load()-runs)/secs, "engine-runs/s")
}
